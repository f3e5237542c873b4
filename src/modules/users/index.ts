// The users module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { findUserByEmail, mentionMailRecipients } from './repo.js';
export { issueToken, register } from './service.js';
