// The pdf-templates module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").

export type { PdfLayout, PlaceholderValues } from './layout.js';
export { builtInQuoteLayout } from './layout.js';
export type { Formats, RenderInput } from './render.js';
export { formatsFor, renderPdf } from './render.js';
export { findDefaultTemplate, findTemplate } from './repo.js';
export { pdfResponse } from './schema.js';
