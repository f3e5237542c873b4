import { publicBaseUrl } from '../../config.js';
import type { Tx } from '../../platform/db/client.js';
import type { AppDeps } from '../../platform/deps.js';
import { htmlToText } from '../../platform/http/rich-text.js';
import { enqueueMail, oneLine } from '../../platform/mail/mailer.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import { membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { insertNotification, setBodyByKey } from '../notifications/index.js';
import { mentionMailRecipients } from '../users/index.js';
import { membersWhoSeeCard } from './access.js';
import type { BoardScope } from './board-scope.js';
import type { CommentRow } from './comments-repo.js';

/**
 * A comment's mentions as notifications (docs/jobs-mail-tasks.md, "Notifications"): `comment_mention` for each
 * mentioned member who may read the card, with an excerpt of the comment kept in step with it — an edit rewrites
 * the excerpt, and a deleted comment (itself, or with its card or board) takes its notifications with it
 * (MENTION_NOTICES_SQL), so no copy of a comment's text outlives it.
 */

const EXCERPT = 300;

/** One notification per member and comment: an edit that adds a mention notifies only the added member. */
const keyOf = (comment: Pick<CommentRow, 'documentId'>) => `comment-mention:${comment.documentId}`;

/** The comment as one line of plain text, cut at EXCERPT characters (whole code points). */
const excerpt = (comment: Pick<CommentRow, 'content' | 'contentFormat'>) =>
  oneLine(
    (comment.contentFormat === 'html' ? htmlToText(comment.content) : comment.content).replace(/\s+/g, ' '),
    EXCERPT,
  );

/** What a mention's e-mail needs: the queue, and the address people reach the web app at. */
export type MentionDeps = Pick<AppDeps, 'jobs' | 'config'>;

/**
 * The e-mail of a new mention, in Portuguese then English (as the password reset's): who, on which card, and the
 * card's link in the web app. Not the comment's text: a deleted comment takes every copy of its text with it,
 * and a queued or sent e-mail could not follow.
 */
function mentionMail(
  deps: MentionDeps,
  to: { email: string; name: string },
  who: string,
  card: { documentId: string; title: string },
  boardDocumentId: string,
) {
  const link = `${publicBaseUrl(deps.config)}/app/boards/${boardDocumentId}/cards/${card.documentId}`;
  // Titles and names are typed by people (a public form's visitor among them): one line each, never lines of their own.
  const title = oneLine(card.title, 120);
  const author = oneLine(who, 120);
  const name = oneLine(to.name, 120);
  return {
    to: to.email,
    subject: `${author} mencionou você em "${title}" / mentioned you on "${title}"`,
    text:
      `Olá, ${name}.\n\n${author} mencionou você num comentário do card "${title}".\n` +
      `Para ler e responder, abra: ${link}\n\n---\n\n` +
      `Hello ${name},\n\n${author} mentioned you in a comment on the card "${title}".\n` +
      `To read it and reply, open: ${link}\n`,
  };
}

/**
 * Notifies the members a comment mentions (internal membership ids), the author excepted, who may read the card;
 * a mention of anyone else stays on the comment but notifies nobody (the notice would name a card they cannot
 * open). Each new notification is also e-mailed (not to a blocked user, nor one who turned mention e-mails off:
 * `mentionEmails` of PUT /users/me), queued in the comment's transaction with
 * a Message-ID of its own: a rolled-back comment sends nothing, a retried delivery the same message.
 */
export async function notifyMentions(
  deps: MentionDeps,
  tx: Tx,
  ctx: TenantContext,
  scope: BoardScope,
  card: { id: number; documentId: string; title: string },
  comment: CommentRow,
  mentioned: number[],
) {
  const others = mentioned.filter((id) => id !== ctx.membershipId);
  const recipients = await membersWhoSeeCard(tx, ctx, card.id, others);
  if (recipients.length === 0) return;
  const author = (await membershipRefsByIds(tx, ctx.orgId, [ctx.membershipId])).get(ctx.membershipId);
  const mailTo = await mentionMailRecipients(tx, ctx.orgId, recipients);
  const who = author?.user.name ?? author?.user.username ?? 'A member';
  for (const membershipId of recipients) {
    const created = await insertNotification(tx, ctx.orgId, {
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
      dedupeKey: keyOf(comment),
    });
    const to = mailTo.get(membershipId);
    if (!created || !to) continue;
    await enqueueMail(
      deps.jobs,
      {
        ...mentionMail(deps, to, who, card, scope.access.board.documentId),
        messageId: `<comment-mention-${created.documentId}@crm.localhost>`,
      },
      { tx, orgId: ctx.orgId },
    );
  }
}

/** An edited comment's text, in the notifications it made. */
export const refreshMentionExcerpts = (tx: Tx, orgId: number, comment: CommentRow) =>
  setBodyByKey(tx, orgId, keyOf(comment), excerpt(comment));

/**
 * A deleted comment's notifications go with it, whatever deletes it (the comment route, its card's or board's
 * deletion, the organization's): a row trigger on comments that mention someone.
 */
export const MENTION_NOTICES_SQL = [
  `CREATE OR REPLACE FUNCTION crm_comment_mention_notices_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM notifications
    WHERE organization_id = OLD.organization_id AND dedupe_key = 'comment-mention:' || OLD.document_id;
  RETURN NULL;
END $$`,
  `DROP TRIGGER IF EXISTS comments_mention_notices_delete ON comments`,
  `CREATE TRIGGER comments_mention_notices_delete AFTER DELETE ON comments
    FOR EACH ROW WHEN (cardinality(OLD.mentions) > 0) EXECUTE FUNCTION crm_comment_mention_notices_delete()`,
];
