import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { richTextToPlain } from '../../platform/http/rich-text.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import { membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { insertNotification } from '../notifications/index.js';
import type { BoardScope } from './board-scope.js';
import type { CommentRow } from './comments-repo.js';

const EXCERPT = 300;

/**
 * Of the members a comment mentions, those who may read the card (DESIGN.md §6, as boards/access.ts and
 * cardVisibility decide it for a request): an org owner or admin; else the board's owner or one of its members,
 * and, on a board that shows non-admins only their cards, its owner or an assignee of this card. A mention of
 * anyone else is kept on the comment but notifies nobody: the notice would show them a card they cannot open.
 */
async function membersSeeingCard(tx: Tx, orgId: number, scope: BoardScope, cardId: number, ids: number[]) {
  const board = scope.access.board;
  const rows = await queryRows<{ id: number }>(
    tx,
    sql`select m.id from memberships m
        where m.organization_id = ${orgId} and m.id in ${ids}
          and (m.role in ('owner', 'admin')
            or ((m.id = ${board.ownerMembershipId}
                 or exists (select 1 from board_members bm where bm.organization_id = ${orgId}
                              and bm.board_id = ${board.id} and bm.membership_id = m.id))
                and (not ${board.restrictViewToAssignees} or m.id = ${board.ownerMembershipId}
                     or exists (select 1 from card_assignees ca where ca.organization_id = ${orgId}
                                  and ca.card_id = ${cardId} and ca.membership_id = m.id))))`,
  );
  return rows.map((r) => r.id);
}

function excerpt(comment: CommentRow) {
  const text = comment.contentFormat === 'html' ? richTextToPlain(comment.content) : comment.content.trim();
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT - 1)}…` : text;
}

/**
 * A notification for each member a comment mentions (`comment_mention`), the author excepted, in the comment's
 * transaction. One per member and comment (the dedupe key): an edit that adds a mention notifies the new member
 * only; one that keeps or removes mentions notifies nobody again.
 */
export async function notifyMentions(
  tx: Tx,
  ctx: TenantContext,
  scope: BoardScope,
  card: { id: number; documentId: string; title: string },
  comment: CommentRow,
  mentioned: string[],
) {
  if (mentioned.length === 0) return;
  const ids = await queryRows<{ id: number }>(
    tx,
    sql`select id from memberships where organization_id = ${ctx.orgId} and document_id in ${mentioned}
          and id <> ${ctx.membershipId}`,
  );
  if (ids.length === 0) return;
  const recipients = await membersSeeingCard(
    tx,
    ctx.orgId,
    scope,
    card.id,
    ids.map((r) => r.id),
  );
  if (recipients.length === 0) return;
  const author = (await membershipRefsByIds(tx, ctx.orgId, [ctx.membershipId])).get(ctx.membershipId);
  const who = author?.user.name ?? author?.user.username ?? 'A member';
  for (const membershipId of recipients) {
    await insertNotification(tx, ctx.orgId, {
      membershipId,
      type: 'comment_mention',
      title: `${who} mentioned you on "${card.title}"`,
      body: excerpt(comment),
      subject: {
        kind: 'card',
        documentId: card.documentId,
        label: card.title,
        boardDocumentId: scope.access.board.documentId,
        commentDocumentId: comment.documentId,
      },
      actorMembershipId: ctx.membershipId,
      dedupeKey: `comment-mention:${comment.documentId}`,
    });
  }
}
