// The campaigns module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { scheduledCampaignsIn } from './repo.js';
export { trackingSigner } from './tracking.js';
