// The boards module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").

export type { BoardAccess, BoardStructure, FieldStructure, PhaseStructure } from './access.js';
export {
  accessTo,
  assembleStructure,
  loadBoardForConfigure,
  loadBoardForRead,
  loadBoardForWrite,
  loadBoardStructure,
  publicBoardTransaction,
  requireWrite,
  unknownBoard,
} from './access.js';
export { presentField } from './present.js';
export type { BoardRow } from './repo.js';
export {
  findBoard,
  findBoardById,
  findBoardWithStructure,
  listConditions,
  listStructure,
  visibleTo,
} from './repo.js';
export { boardIdParams, fieldOutputShape } from './schema.js';
