/**
 * A comment written in HTML (through the API: `contentFormat: 'html'`, sanitised by the service) as the text a person
 * reads and edits: paragraphs, line breaks and list items as lines, a link's address after its words when they
 * differ. Parsed by the browser's DOMParser into an inert document (no script runs, nothing loads) and walked for
 * its text: the page never inserts the HTML itself.
 */
const BLOCKS = new Set([
  'P',
  'DIV',
  'LI',
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
  'TR',
]);

export function htmlAsText(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  let out = '';
  const newline = () => {
    if (out !== '' && !out.endsWith('\n')) out += '\n';
  };
  const walk = (node: Node, pre: boolean) => {
    if (node.nodeType === Node.TEXT_NODE) {
      out += pre ? (node.textContent ?? '') : (node.textContent ?? '').replace(/\s+/g, ' ');
      return;
    }
    if (!(node instanceof Element)) return;
    const tag = node.tagName;
    if (tag === 'BR') {
      out += '\n';
      return;
    }
    const block = BLOCKS.has(tag);
    if (block) newline();
    if (tag === 'LI') out += '• ';
    for (const child of node.childNodes) walk(child, pre || tag === 'PRE');
    if (tag === 'A') {
      const href = node.getAttribute('href') ?? '';
      const words = (node.textContent ?? '').trim();
      if (href && words !== href && words !== href.replace(/^mailto:|^tel:/, '')) out += ` (${href})`;
    }
    if (tag === 'TD' || tag === 'TH') out += ' ';
    if (block) newline();
  };
  walk(doc.body, false);
  return out
    .split('\n')
    .map((line) => line.replace(/^ +| +$/g, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
