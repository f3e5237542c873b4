/**
 * Rich text (the service's HTML: card and task descriptions, rich-text fields, comments written in HTML through the
 * API) as the text a person reads and edits in a textarea, and that text as HTML again.
 *
 * `htmlAsText` parses with the browser's DOMParser into an inert document (no script runs, nothing loads) and walks
 * it for its text: the page never inserts the HTML itself. Paragraphs, headings, lists and quotes are apart by an
 * empty line, a line break, a list item ("• ") or a table row starts a line, and a link's address follows its words
 * when they differ. A value without any tag (an older one the app saved as typed) keeps its lines.
 * `textAsHtml` is its inverse for what a person types: characters escaped, an empty line starts a paragraph, a line
 * break is a `<br>`, so `htmlAsText(textAsHtml(s))` gives `s` back, but for runs of spaces or tabs (one space, as
 * HTML reads them) and spaces at a line's ends.
 */
const PARAGRAPHS = new Set([
  'P',
  'UL',
  'OL',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'BLOCKQUOTE',
  'PRE',
  'TABLE',
]);
const LINES = new Set(['DIV', 'LI', 'TR']);

export function htmlAsText(html: string | null | undefined): string {
  if (!html) return '';
  const doc = new DOMParser().parseFromString(html, 'text/html');
  if (!/<[a-z!/]/i.test(html)) return (doc.body.textContent ?? '').trim();
  let out = '';
  /** The text so far ends with `n` line ends (none at the start). */
  const gap = (n: number) => {
    if (out === '') return;
    const have = /\n*$/.exec(out)![0].length;
    if (have < n) out += '\n'.repeat(n - have);
  };
  const walk = (node: Node, pre: boolean) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const raw = node.textContent ?? '';
      // The indentation of pretty-printed HTML between blocks is no text.
      if (!pre && !raw.trim() && (out === '' || out.endsWith('\n'))) return;
      out += pre ? raw : raw.replace(/\s+/g, ' ');
      return;
    }
    if (!(node instanceof Element)) return;
    const tag = node.tagName;
    if (tag === 'BR') {
      out += '\n';
      return;
    }
    // A list item's own list is apart from it by a line, not a paragraph.
    const apart = PARAGRAPHS.has(tag) && !(node.parentElement?.tagName === 'LI') ? 2 : LINES.has(tag) ? 1 : 0;
    gap(apart);
    if (tag === 'LI') out += '• ';
    for (const child of node.childNodes) walk(child, pre || tag === 'PRE');
    if (tag === 'A') {
      const href = node.getAttribute('href') ?? '';
      const words = (node.textContent ?? '').trim();
      if (href && words !== href && words !== href.replace(/^(mailto|tel):/, '')) out += ` (${href})`;
    }
    if (tag === 'TD' || tag === 'TH') out += ' ';
    gap(apart);
  };
  walk(doc.body, false);
  return out
    .split('\n')
    .map((line) => line.replace(/^ +| +$/g, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** What a person typed as HTML: paragraphs at empty lines, `<br>` at line breaks; null when nothing is left. */
export function textAsHtml(text: string): string | null {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (paragraphs.length === 0) return null;
  return paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('');
}
