// The notifications module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { insertNotification, setBodyByKey } from './repo.js';
