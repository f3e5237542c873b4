// The teams module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { teamModel } from './query-model.js';
export { teamIdByDocumentId, teamRefsByIds } from './repo.js';
