import type { Board, Card, Ref } from '../api';
import { canWrite, getSession } from '../session';

/** Organization owners and admins: they create boards and share filters with the whole organization. */
export const isOrgAdmin = () => ['owner', 'admin'].includes(getSession()?.org?.role ?? '');

/** Whether a member (a board's owner or editor, a comment's author, a meeting's organizer) is the signed-in person. */
export function isMe(r: Ref | null | undefined): boolean {
  const email = getSession()?.user.email.toLowerCase();
  return !!email && r?.user?.email.toLowerCase() === email;
}

/**
 * Whether the signed-in person may change a board's structure (phases, fields, tags, people): an admin, or a
 * member who owns the board — the service's rule (boards/access.ts canConfigure); the service still decides.
 */
export function canConfigure(b: Board): boolean {
  const s = getSession();
  if (!s?.org || s.org.role === 'viewer') return false;
  return isOrgAdmin() || isMe(b.owner);
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
  if (isMe(b.owner)) return true;
  if (!b.editors?.some(isMe)) return false;
  const restricted = (b.boardSettings as { restrictEditToAssignees?: boolean }).restrictEditToAssignees;
  return !restricted || !card || card.assignees.some(isMe);
}

/**
 * Whether the signed-in person may change or cancel a meeting: its organizer only, while it is scheduled (it lives
 * in the organizer's calendar) — the service's rule (agenda/meetings.ts); the card drawer and the agenda ask here.
 */
export const canChangeMeeting = (m: { status: string; organizer: Ref | null }) =>
  m.status !== 'cancelled' && canWrite() && isMe(m.organizer);

/** A card's comment as the rules below read it. */
interface CommentRef {
  type: 'user' | 'system';
  author: Ref | null;
}
/**
 * Who may change a card's comment — the service's rule (cards/comments.ts loadOwnComment): its author edits it;
 * its author or an organization admin deletes it; the history (system comments) never changes.
 */
export const canEditComment = (c: CommentRef) => c.type === 'user' && canWrite() && isMe(c.author);
export const canDeleteComment = (c: CommentRef) =>
  c.type === 'user' && canWrite() && (isMe(c.author) || isOrgAdmin());
