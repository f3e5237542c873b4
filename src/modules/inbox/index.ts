// The inbox module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").

export type { WaValue } from './ingest.js';
export { ingestWhatsApp } from './ingest.js';
export { findInboxOr404 } from './service.js';
