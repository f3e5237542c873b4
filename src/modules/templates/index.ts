// The templates module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").

export type { TemplateRow } from './repo.js';
export { findTemplate, templatesByIds } from './repo.js';
