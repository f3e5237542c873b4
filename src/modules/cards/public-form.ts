import type { Database } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { publicBoardTransaction } from '../boards/index.js';
import { structureOf } from './board-scope.js';
import { createCardIn } from './prepare.js';
import type { Tracking } from './table.js';

/** The board's public entry form: a card from outside, no member acting, its fields limited to the entry phase. */
export async function submitPublicForm(
  db: Database,
  boardId: string,
  fields: Record<string, unknown>,
  tracking: Tracking,
) {
  return publicBoardTransaction(db, boardId, async (tx, orgId, board) => {
    const structure = await structureOf(tx, orgId, board);
    if (!structure.entryPhase) throw new AppError('NotFoundError', 'This board has no entry form');
    const row = await createCardIn(
      tx,
      { orgId, membershipId: null, ctx: null },
      structure,
      { fields },
      { source: 'form', tracking, fieldOptions: { phaseIds: new Set([structure.entryPhase.id]) } },
    );
    return { documentId: row.documentId, createdAt: isoRequired(row.createdAt) };
  });
}
