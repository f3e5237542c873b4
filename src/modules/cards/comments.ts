import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { AppError, notFound, validationError } from '../../platform/http/errors.js';
import { type PageWindow, windowPage } from '../../platform/http/list-query.js';
import { sanitizeRichText } from '../../platform/http/rich-text.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { hasRole, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipIdsByDocumentIds, membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { loadCard, openBoard } from './board-scope.js';
import * as commentsRepo from './comments-repo.js';
import { type MentionDeps, notifyMentions, refreshMentionExcerpts } from './mention-notices.js';

/** A card's comments: members' comments (plain or sanitised HTML, with mentions) and the card's history entries. */

export interface CommentInput {
  content: string;
  contentFormat: 'plain' | 'html';
  mentions: string[];
}

async function presentComments(tx: Tx, orgId: number, rows: commentsRepo.CommentRow[]) {
  const refs = await membershipRefsByIds(tx, orgId, [
    ...new Set(rows.flatMap((r) => (r.authorMembershipId === null ? [] : [r.authorMembershipId]))),
  ]);
  return rows.map((r) => ({
    documentId: r.documentId,
    content: r.content,
    contentFormat: r.contentFormat as 'plain' | 'html',
    type: r.type as 'user' | 'system',
    activityType: r.activityType,
    mentions: r.mentions,
    author: r.authorMembershipId === null ? null : (refs.get(r.authorMembershipId) ?? null),
    metadata: r.metadata,
    createdAt: isoRequired(r.createdAt),
    updatedAt: isoRequired(r.updatedAt),
  }));
}

/** The mentioned members, each once: their documentIds as stored, and their internal ids (to notify them). */
async function checkMentions(tx: Tx, orgId: number, mentions: string[]) {
  const unique = [...new Set(mentions)];
  const { ids, missing } = await membershipIdsByDocumentIds(tx, orgId, unique);
  if (missing.length) {
    throw validationError(
      'Unknown mentioned member',
      missing.map((m) => ({
        path: ['mentions', mentions.indexOf(m)],
        message: `no member ${m}`,
        name: 'ValidationError',
      })),
    );
  }
  return { documentIds: unique, ids: unique.map((d) => ids.get(d)!) };
}

export async function listComments(ctx: TenantContext, boardId: string, cardId: string, w: PageWindow) {
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, false);
    const card = await loadCard(tx, ctx, scope, cardId);
    const { rows, total } = await commentsRepo.listComments(tx, ctx.orgId, card.id, w.offset, w.pageSize);
    return windowPage(await presentComments(tx, ctx.orgId, rows), total, w);
  });
}

/** Commenting needs the member role and sight of the card (not board editing rights). */
export async function addComment(
  deps: MentionDeps,
  ctx: TenantContext,
  boardId: string,
  cardId: string,
  input: CommentInput,
) {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, false);
    const card = await loadCard(tx, ctx, scope, cardId);
    const mentions = await checkMentions(tx, ctx.orgId, input.mentions);
    const [row] = await commentsRepo.insertComments(tx, ctx.orgId, [
      {
        cardId: card.id,
        content: commentContent(input.content, input.contentFormat),
        contentFormat: input.contentFormat,
        type: 'user',
        activityType: null,
        mentions: mentions.documentIds,
        authorMembershipId: ctx.membershipId,
        metadata: {},
      },
    ]);
    await notifyMentions(deps, tx, ctx, scope, card, row, mentions.ids);
    return (await presentComments(tx, ctx.orgId, [row]))[0];
  });
}

/** HTML comments are stored sanitised; plain ones are text, escaped by whoever renders them. */
function commentContent(content: string, format: 'plain' | 'html'): string {
  if (format === 'plain') return content;
  const clean = sanitizeRichText(content).trim();
  if (!clean)
    throw validationError('The comment has no content left once unsafe HTML is removed', [
      { path: ['content'], message: 'holds no allowed HTML content' },
    ]);
  return clean;
}

/** System comments are history: nobody edits them. A user comment: its author, or an admin to delete. */
async function loadOwnComment(
  tx: Tx,
  ctx: TenantContext,
  boardId: string,
  cardId: string,
  id: string,
  op: 'edit' | 'delete',
) {
  const scope = await openBoard(tx, ctx, boardId, false);
  const card = await loadCard(tx, ctx, scope, cardId);
  const row = await commentsRepo.findComment(tx, ctx.orgId, card.id, id);
  if (!row) throw notFound('Comment');
  if (row.type === 'system')
    throw new AppError('ForbiddenError', 'System comments are card history and cannot change');
  const mine = row.authorMembershipId === ctx.membershipId;
  if (!mine && !(op === 'delete' && hasRole(ctx, 'admin')))
    throw new AppError(
      'ForbiddenError',
      `Only the author may ${op} this comment${op === 'delete' ? ' (or an admin)' : ''}`,
    );
  return { row, scope, card };
}

export async function updateComment(
  deps: MentionDeps,
  ctx: TenantContext,
  boardId: string,
  cardId: string,
  id: string,
  input: Partial<CommentInput>,
) {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const { row, scope, card } = await loadOwnComment(tx, ctx, boardId, cardId, id, 'edit');
    const mentions = input.mentions ? await checkMentions(tx, ctx.orgId, input.mentions) : undefined;
    // Switching a plain comment to html re-checks its stored text as HTML.
    const rewrite = input.content !== undefined || input.contentFormat === 'html';
    const content = rewrite
      ? commentContent(
          input.content ?? row.content,
          input.contentFormat ?? (row.contentFormat as 'plain' | 'html'),
        )
      : undefined;
    const updated = await commentsRepo.updateComment(tx, ctx.orgId, row.id, {
      ...(content !== undefined ? { content } : {}),
      ...(input.contentFormat !== undefined ? { contentFormat: input.contentFormat } : {}),
      ...(mentions ? { mentions: mentions.documentIds } : {}),
    });
    if (content !== undefined && updated.content !== row.content)
      await refreshMentionExcerpts(tx, ctx.orgId, updated);
    if (mentions) await notifyMentions(deps, tx, ctx, scope, card, updated, mentions.ids);
    return (await presentComments(tx, ctx.orgId, [updated]))[0];
  });
}

export async function deleteComment(ctx: TenantContext, boardId: string, cardId: string, id: string) {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const { row } = await loadOwnComment(tx, ctx, boardId, cardId, id, 'delete');
    await commentsRepo.deleteComment(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'comment.deleted', row.documentId, {
      card: cardId,
      content: row.content.slice(0, 500),
    });
    return { documentId: row.documentId, deleted: true as const };
  });
}
