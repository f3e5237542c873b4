import type { SQL } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { notFound } from '../../platform/http/errors.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import * as boardsRepo from '../boards/index.js';
import {
  accessTo,
  assembleStructure,
  type BoardAccess,
  type BoardStructure,
  requireWrite,
} from '../boards/index.js';
import { cardVisibility } from './access.js';
import * as repo from './repo.js';

/** The board a card request works on (cards, comments, report): its access, structure and the viewer's card sight. */

export interface BoardScope {
  access: BoardAccess;
  structure: BoardStructure;
  /** Non-admins on a board restricted to assignees see only their cards (DESIGN.md §6). */
  visibility: SQL | undefined;
  assigneeOnly: number | null;
}

export async function openBoard(
  tx: Tx,
  ctx: TenantContext,
  boardId: string,
  write: boolean,
): Promise<BoardScope> {
  // The board and its structure in one statement, then the same checks as loadBoardForRead / ForWrite.
  const found = await boardsRepo.findBoardWithStructure(tx, ctx.orgId, boardId);
  const read = await accessTo(tx, ctx, found?.board);
  const access = write ? requireWrite(ctx, read) : read;
  const { rows } = found!;
  const structure: BoardStructure = {
    ...assembleStructure(access.board, rows.phases, rows.fields, rows.tags),
    conditions: rows.conditions,
    queued: found!.queued,
  };
  const visibility = cardVisibility(ctx, access);
  return { access, structure, visibility, assigneeOnly: visibility ? ctx.membershipId : null };
}

/** The board's structure around a board row already read (loadBoardStructure would read the board again). */
export async function structureOf(
  tx: Tx,
  orgId: number,
  board: boardsRepo.BoardRow,
): Promise<BoardStructure> {
  const rows = await boardsRepo.listStructure(tx, orgId, [board.id]);
  return { ...assembleStructure(board, rows.phases, rows.fields, rows.tags), conditions: rows.conditions };
}

/** The field conditions: those read with the structure (same statement), else read now. */
export const conditionsOf = async (tx: Tx, orgId: number, structure: BoardStructure) =>
  structure.conditions ?? boardsRepo.listConditions(tx, orgId, structure.board.id);

export async function loadCard(
  tx: Tx,
  ctx: TenantContext,
  scope: BoardScope,
  documentId: string,
  forUpdate = false,
) {
  const row = await repo.findCard(
    tx,
    ctx.orgId,
    scope.access.board.id,
    documentId,
    scope.visibility,
    forUpdate,
  );
  if (!row) throw notFound('Card');
  return row;
}
