// The segments module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { findSegment } from './repo.js';
export { segmentAudiencePredicate } from './service.js';
