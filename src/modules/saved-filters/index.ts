// The saved-filters module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").

export { withSavedFilter } from './apply.js';
export { savedFilterParam } from './schema.js';
