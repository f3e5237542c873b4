import sanitizeHtml from 'sanitize-html';
import { z } from 'zod';

/**
 * Rich-text fields (card and task descriptions, HTML comments, richtext card fields) are rendered as HTML
 * by the web application, so they are cleaned on write against an allowlist: basic formatting and links
 * with safe schemes. Scripts, styles, event handlers, images and `javascript:`/`data:` URLs never get stored.
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

const ENTITIES: Record<string, string> = {
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&amp;': '&',
};

/**
 * The text of a rich-text value, for places that show plain text (a notification's excerpt): every tag dropped,
 * blocks and line breaks turned into spaces, whitespace collapsed, and the entities sanitize-html writes decoded.
 */
export function richTextToPlain(html: string): string {
  const text = sanitizeHtml(html.replace(/<\/(p|div|li|h[1-6]|blockquote)>|<br\s*\/?>/gi, ' '), {
    allowedTags: [],
    allowedAttributes: {},
  });
  return text
    .replace(/&(lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e])
    .replace(/\s+/g, ' ')
    .trim();
}
