// The quotes module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { quoteRenderInput } from './pdf.js';
export { organizationName } from './repo.js';
export { loadQuote } from './service.js';
