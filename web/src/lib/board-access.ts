import type { Board, Card, Ref } from '../api';
import { getSession } from '../session';

/** Organization owners and admins: they create boards and share filters with the whole organization. */
export const isOrgAdmin = () => ['owner', 'admin'].includes(getSession()?.org?.role ?? '');

/**
 * Whether the signed-in person may change a board's structure (phases, fields, tags, people): an admin, or a
 * member who owns the board — the service's rule (boards/access.ts canConfigure); the service still decides.
 */
export function canConfigure(b: Board): boolean {
  const s = getSession();
  if (!s?.org || s.org.role === 'viewer') return false;
  return isOrgAdmin() || (!!b.owner?.user && b.owner.user.email === s.user.email);
}

/**
 * Whether the signed-in person may change a board's cards: an admin, or a member who owns or edits the board; on a
 * board that keeps editing to assignees, an editor only the cards assigned to them — the service's rule
 * (boards/access.ts canWrite, cards/access.ts requireCardEdit); the service still decides.
 */
export function canEditCards(b: Board, card?: Pick<Card, 'assignees'>): boolean {
  const s = getSession();
  if (!s?.org || s.org.role === 'viewer') return false;
  if (isOrgAdmin()) return true;
  const me = (r: Ref | null | undefined) => !!r?.user && r.user.email === s.user.email;
  if (me(b.owner)) return true;
  if (!b.editors?.some(me)) return false;
  const restricted = (b.boardSettings as { restrictEditToAssignees?: boolean }).restrictEditToAssignees;
  return !restricted || !card || card.assignees.some(me);
}
