import { and, eq, not, or, type SQL } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { hasRole, type TenantContext } from '../../platform/tenancy/context.js';
import { type BoardAccess, visibleTo as boardVisibleTo } from '../boards/index.js';
import { boards } from '../boards/table.js';
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

/**
 * Board visibility and `cardVisibility` as one condition on a `cards` row joined to its `boards` row, for
 * reads across boards (tasks on cards); undefined for admins, who see every card.
 */
export function visibleCardsAcrossBoards(ctx: TenantContext): SQL | undefined {
  if (hasRole(ctx, 'admin')) return undefined;
  return cardVisibleToMember(ctx.membershipId);
}

/** The same for any member who is not an org owner or admin (a membership id, or an SQL expression of one). */
function cardVisibleToMember(member: number | SQL): SQL {
  return and(
    boardVisibleTo(member),
    or(not(boards.restrictViewToAssignees), eq(boards.ownerMembershipId, member), repo.assignedTo(member)),
  )!;
}

/**
 * Of these members (others than the caller: a comment's mentions), those who may read the card, by the rules a
 * request of theirs would meet: an org owner or admin, else `cardVisibleToMember`.
 */
export const membersWhoSeeCard = (tx: Tx, ctx: TenantContext, cardId: number, ids: number[]) =>
  repo.membershipsSeeingCard(tx, ctx.orgId, cardId, ids, cardVisibleToMember);

/** restrictEditToAssignees: non-admins change only the cards they are assigned to (403 otherwise). */
export async function requireCardEdit(tx: Tx, ctx: TenantContext, access: BoardAccess, cardId: number) {
  if (!access.board.restrictEditToAssignees || seesAllCards(access)) return;
  const assignees = (await repo.assigneeIdsByCard(tx, ctx.orgId, [cardId])).get(cardId) ?? [];
  if (!assignees.includes(ctx.membershipId))
    throw new AppError('ForbiddenError', 'This board lets only the assignees of a card change it');
}
