// The distribution module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { nextAssignee, nextConversationAssignee, nextFromQueue } from './assign.js';
export { findQueue, membersOf } from './repo.js';
