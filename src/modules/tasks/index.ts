// The tasks module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { taskModel, visibleTo } from './repo.js';
export { taskInput } from './schema.js';
export { createTask } from './service.js';
