// The cards module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { cardVisibility, requireCardEdit, visibleCardsAcrossBoards } from './access.js';
export { insertComments } from './comments-repo.js';
export { deleteBoardCounts } from './counts.js';
export { validateFieldValue } from './field-values.js';
export { removeStoredFiles, removingFiles, storagePath } from './files.js';
export type { PreparedCard } from './insert.js';
export type { LeadBoard } from './lead-cards.js';
export { checkLeadCard, insertLeadCards, openLeadBoard } from './lead-cards.js';
export { cardModelFor } from './query-model.js';
export { deleteBoardFiles, findCard, updateCard as updateCardRow } from './repo.js';
export { deleteBoardRollups } from './report-rollups.js';
export { createChatCard, createChatCards, getCard, moveCard, updateCard } from './service.js';
