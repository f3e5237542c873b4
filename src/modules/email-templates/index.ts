// The email-templates module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").

export type { RenderContext } from './render.js';
export { renderEmail, renderString } from './render.js';
export type { EmailTemplateRow } from './repo.js';
export { findTemplate, findTemplateById } from './repo.js';
