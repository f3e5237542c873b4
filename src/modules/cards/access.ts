import type { SQL } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import type { BoardAccess } from '../boards/access.js';
import * as repo from './repo.js';

/**
 * Card-level access on top of board access (DESIGN.md §6), shared by every area that reaches a card
 * through its board (cards, products on cards, quotes).
 */

/** Admins and the board's owner see and edit every card; others may be narrowed to their assignments. */
export const seesAllCards = (access: BoardAccess) => access.isAdmin || access.isOwner;

/** restrictViewToAssignees: the filter narrowing a non-admin to their cards, or undefined when unrestricted. */
export function cardVisibility(ctx: TenantContext, access: BoardAccess): SQL | undefined {
  return access.board.restrictViewToAssignees && !seesAllCards(access)
    ? repo.assignedTo(ctx.membershipId)
    : undefined;
}

/** restrictEditToAssignees: non-admins change only the cards they are assigned to (403 otherwise). */
export async function requireCardEdit(tx: Tx, ctx: TenantContext, access: BoardAccess, cardId: number) {
  if (!access.board.restrictEditToAssignees || seesAllCards(access)) return;
  const assignees = (await repo.assigneeIdsByCard(tx, ctx.orgId, [cardId])).get(cardId) ?? [];
  if (!assignees.includes(ctx.membershipId))
    throw new AppError('ForbiddenError', 'This board lets only the assignees of a card change it');
}
