import sanitizeHtml from 'sanitize-html';
import { z } from 'zod';

/**
 * Rich-text fields (card and task descriptions, HTML comments, richtext card fields) are HTML that clients may
 * render as such (the web application shows only their text: web/src/lib/html-text.ts), so they are cleaned on
 * write against an allowlist: basic formatting and links with safe schemes. Scripts, styles, event handlers, images
 * and `javascript:`/`data:` URLs never get stored.
 */
const options: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'del',
    'ins',
    'mark',
    'sub',
    'sup',
    'small',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'span',
    'a',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    th: ['colspan', 'rowspan'],
    td: ['colspan', 'rowspan'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  allowedStyles: {},
  disallowedTagsMode: 'discard',
  // A link opening a new tab must not hand the opener to the target page.
  transformTags: {
    a: (tagName, attribs) =>
      attribs.target
        ? { tagName, attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer nofollow' } }
        : { tagName, attribs },
  },
};

/** The stored form of a rich-text value: only allowlisted tags, attributes and URL schemes survive. */
export function sanitizeRichText(html: string): string {
  return sanitizeHtml(html, options);
}

/** Schema of a rich-text input: at most `max` characters as sent, sanitised on parse. */
export const richText = (max: number) => z.string().max(max).transform(sanitizeRichText);

/**
 * The text of an HTML value (a mail's plain part, a notification's excerpt of a comment): scripts and styles
 * dropped, blocks and line breaks as new lines, a link as "text (url)", every other tag dropped and the entities
 * sanitize-html writes decoded.
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|blockquote)>/gi, '\n')
    .replace(/<\/(td|th)>/gi, ' ')
    .replace(/<a\s[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, '$2 ($1)')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
