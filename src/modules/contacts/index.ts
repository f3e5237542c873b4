// The contacts module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { parseCnpj, parseCpf } from './documents.js';
export { matchOrMakeContacts, type OutsidePerson } from './match-or-make.js';
export { contactModel } from './query-model.js';
export type { ContactRef, ContactRow } from './repo.js';
export {
  clearTeamFromContacts,
  contactIdByDocumentId,
  contactRefsByIds,
  findContact,
  insertActivities,
  insertContacts,
  listContacts,
} from './repo.js';
export { contact, contactRef } from './schema.js';
export { contactCreatedEvents, recordContactActivity, toContacts } from './service.js';
