import { type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { hasRole, requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipIdsByDocumentIds, membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { contactIdByDocumentId, contactRefsByIds } from '../contacts/index.js';
import * as messagesRepo from './messages-repo.js';
import { notifyLive } from './notify.js';
import * as repo from './repo.js';
import type {
  Conversation,
  ConversationListQuery,
  ConversationUpdate,
  Message,
  MessagesQuery,
} from './schema.js';
import { conversations } from './table.js';

export const WINDOW_MS = 24 * 3_600_000;

/** Every inbox operation needs the plan's inbox feature (403 naming it). */
export function requireInbox(ctx: TenantContext, write = false) {
  requireFeature(ctx, 'inbox');
  if (write) requireRole(ctx, 'member');
}

/**
 * Who sees which conversation (docs/inbox.md, "Visibility"): owners and admins see all; members and viewers
 * see the unassigned ones and their own. undefined: no narrowing.
 */
export function conversationVisibility(ctx: TenantContext): SQL | undefined {
  if (hasRole(ctx, 'admin')) return undefined;
  return sql`(${conversations.assigneeMembershipId} is null or ${conversations.assigneeMembershipId} = ${ctx.membershipId})`;
}

export function canSee(ctx: Pick<TenantContext, 'role' | 'membershipId'>, assignee: number | null) {
  return hasRole(ctx, 'admin') || assignee === null || assignee === ctx.membershipId;
}

export async function loadConversation(tx: Tx, ctx: TenantContext, id: number, lock = false) {
  const row = await repo.findConversation(tx, ctx.orgId, id, conversationVisibility(ctx), lock);
  if (!row) throw notFound('Conversation');
  return row;
}

export const windowExpiresAt = (row: Pick<repo.ConversationRow, 'lastIncomingAt'>) =>
  row.lastIncomingAt ? new Date(row.lastIncomingAt.getTime() + WINDOW_MS) : null;

/** The contacts, assignees and cards of some conversations, by the areas' own ref readers. */
async function refsOf(tx: Tx, orgId: number, rows: repo.ConversationRow[]): Promise<repo.ConversationRefs> {
  const [contacts, members, cards] = await Promise.all([
    contactRefsByIds(
      tx,
      orgId,
      rows.flatMap((r) => (r.contactId === null ? [] : [r.contactId])),
    ),
    membershipRefsByIds(tx, orgId, [
      ...new Set(rows.flatMap((r) => (r.assigneeMembershipId === null ? [] : [r.assigneeMembershipId]))),
    ]),
    repo.cardRefsByIds(
      tx,
      orgId,
      rows.flatMap((r) => (r.cardId === null ? [] : [r.cardId])),
    ),
  ]);
  return { contacts, members, cards };
}

export async function presentConversations(
  tx: Tx,
  orgId: number,
  rows: repo.ConversationRow[],
  /** What the list statement already brought (repo.listConversations); otherwise read here. */
  known?: repo.ConversationRefs,
): Promise<Conversation[]> {
  const { contacts, members, cards } = known ?? (await refsOf(tx, orgId, rows));
  return rows.map((r) => ({
    id: r.id,
    inboxId: r.inboxId,
    contact: r.contactId === null ? null : (contacts.get(r.contactId) ?? null),
    waId: r.waId,
    status: r.status,
    snoozedUntil: iso(r.snoozedUntil),
    assignee: r.assigneeMembershipId === null ? null : (members.get(r.assigneeMembershipId) ?? null),
    unreadCount: r.unreadCount,
    lastMessageAt: iso(r.lastMessageAt),
    lastIncomingAt: iso(r.lastIncomingAt),
    windowExpiresAt: iso(windowExpiresAt(r)),
    lastMessagePreview: r.lastMessagePreview,
    card: r.cardId === null ? null : (cards.get(r.cardId) ?? null),
    createdAt: isoRequired(r.createdAt),
    updatedAt: isoRequired(r.updatedAt),
  }));
}

export async function presentConversation(tx: Tx, orgId: number, row: repo.ConversationRow) {
  return (await presentConversations(tx, orgId, [row]))[0];
}

export async function presentMessages(
  tx: Tx,
  orgId: number,
  rows: messagesRepo.MessageRow[],
): Promise<Message[]> {
  const members = await membershipRefsByIds(tx, orgId, [
    ...new Set(rows.flatMap((r) => (r.senderMembershipId === null ? [] : [r.senderMembershipId]))),
  ]);
  return rows.map((r) => ({
    id: r.id,
    conversationId: r.conversationId,
    direction: r.direction,
    content: r.content,
    contentType: r.contentType,
    attachments: r.attachments.map((a) => ({
      mediaId: a.mediaId,
      filename: a.filename,
      mimeType: a.mimeType,
      size: a.size,
      caption: a.caption ?? null,
    })),
    template: r.template ?? null,
    status: r.status,
    error: r.error,
    sender: {
      type: r.direction === 'incoming' ? 'contact' : r.senderMembershipId === null ? 'system' : 'member',
      membership: r.senderMembershipId === null ? null : (members.get(r.senderMembershipId) ?? null),
    },
    createdAt: isoRequired(r.createdAt),
  }));
}

// ---- inboxes

async function inboxes(tx: Tx, orgId: number, id?: number) {
  await repo.ensureInboxes(tx, orgId);
  const rows = await repo.listInboxes(tx, orgId, id);
  const links = await repo.boardsOfChannels(
    tx,
    orgId,
    rows.map((r) => r.channel.id),
  );
  return rows.map(({ inbox, channel }) => ({
    id: inbox.id,
    name: channel.name,
    channel: {
      documentId: channel.documentId,
      name: channel.name,
      phoneNumberId: (channel.settings as { phoneNumberId?: string }).phoneNumberId ?? null,
    },
    boards: links
      .filter((l) => l.channelId === channel.id)
      .map((l) => ({ documentId: l.documentId, name: l.name })),
    createdAt: isoRequired(inbox.createdAt),
  }));
}

export async function listInboxes(ctx: TenantContext) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) => ({ data: await inboxes(tx, ctx.orgId) }));
}

export async function getInbox(ctx: TenantContext, id: number) {
  requireInbox(ctx);
  const [found] = await ctx.transaction((tx) => inboxes(tx, ctx.orgId, id));
  if (!found) throw notFound('Inbox');
  return found;
}

/** The inbox ↔ board links: the boards its channel is linked to; the first one receives new cards. */
export async function inboxBoardLinks(ctx: TenantContext, id: number) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) => {
    const [row] = await repo.listInboxes(tx, ctx.orgId, id);
    if (!row) throw notFound('Inbox');
    const links = await repo.boardsOfChannels(tx, ctx.orgId, [row.channel.id]);
    return {
      data: links.map((l, i) => ({
        inboxId: id,
        board: { documentId: l.documentId, name: l.name, boardType: l.boardType },
        createsCards: i === 0,
      })),
    };
  });
}

export async function findInboxOr404(tx: Tx, orgId: number, id: number) {
  await repo.ensureInboxes(tx, orgId);
  const [row] = await repo.listInboxes(tx, orgId, id);
  if (!row) throw notFound('Inbox');
  return row;
}

// ---- conversations

async function assigneeFilter(tx: Tx, ctx: TenantContext, ref: string | undefined) {
  if (ref === undefined) return undefined;
  if (ref === 'none') return null;
  if (ref === 'me') return ctx.membershipId;
  const { ids } = await membershipIdsByDocumentIds(tx, ctx.orgId, [ref]);
  // An unknown member matches nothing (a filter, not a write).
  return ids.get(ref) ?? -1;
}

export async function listConversations(ctx: TenantContext, q: ConversationListQuery) {
  requireInbox(ctx);
  const page = q.pagination?.page ?? q.page ?? 1;
  const pageSize = q.pagination?.pageSize ?? q.pageSize ?? 25;
  return ctx.transaction(async (tx) => {
    const { rows, total, refs } = await repo.listConversations(
      tx,
      ctx.orgId,
      {
        visibility: conversationVisibility(ctx),
        status: q.status === 'all' ? undefined : q.status,
        assignee: await assigneeFilter(tx, ctx, q.assignee),
        inboxId: q.inboxId,
        unread: q.unread === undefined ? undefined : q.unread === 'true',
        q: q.q,
      },
      { offset: (page - 1) * pageSize, limit: pageSize },
    );
    return {
      data: await presentConversations(tx, ctx.orgId, rows, refs),
      meta: { pagination: { page, pageSize, pageCount: Math.ceil(total / pageSize), total } },
    };
  });
}

export async function getConversation(ctx: TenantContext, id: number) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) =>
    presentConversation(tx, ctx.orgId, await loadConversation(tx, ctx, id)),
  );
}

export async function conversationsMeta(ctx: TenantContext) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) => {
    const c = await repo.conversationCounts(tx, ctx.orgId, conversationVisibility(ctx), ctx.membershipId);
    return {
      all: c.all,
      mine: c.mine,
      unassigned: c.unassigned,
      byStatus: { open: c.open, pending: c.pending, resolved: c.resolved, snoozed: c.snoozed },
    };
  });
}

export async function unreadCounts(ctx: TenantContext) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) => {
    const byInbox = await repo.unreadByInbox(tx, ctx.orgId, conversationVisibility(ctx));
    return {
      conversations: byInbox.reduce((n, r) => n + r.conversations, 0),
      messages: byInbox.reduce((n, r) => n + r.messages, 0),
      byInbox,
    };
  });
}

export async function listContactConversations(ctx: TenantContext, contactDocumentId: string) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) => {
    const contactId = await contactIdByDocumentId(tx, ctx.orgId, contactDocumentId);
    if (contactId === undefined) throw notFound('Contact');
    const { rows, refs } = await repo.listConversations(
      tx,
      ctx.orgId,
      { visibility: conversationVisibility(ctx), contactId },
      { offset: 0, limit: 100 },
    );
    return { data: await presentConversations(tx, ctx.orgId, rows, refs) };
  });
}

export async function listMessages(ctx: TenantContext, id: number, q: MessagesQuery) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) => {
    await loadConversation(tx, ctx, id);
    const { rows, hasMore } = await messagesRepo.messagePage(tx, ctx.orgId, id, {
      ...q,
      limit: q.limit ?? 20,
    });
    return { data: await presentMessages(tx, ctx.orgId, rows), meta: { hasMore } };
  });
}

/** Writes one conversation under its row lock, then announces it (conversation.updated). */
export async function changeConversation(
  ctx: TenantContext,
  id: number,
  change: (tx: Tx, row: repo.ConversationRow) => Promise<Partial<repo.ConversationRow>>,
) {
  requireInbox(ctx, true);
  return ctx.transaction(async (tx) => {
    const row = await loadConversation(tx, ctx, id, true);
    const patch = await change(tx, row);
    const next = await repo.updateConversation(tx, ctx.orgId, row.id, patch);
    // Both the old and the new assignee's readers learn of the change (one may lose sight of it).
    await notifyLive(tx, {
      orgId: ctx.orgId,
      type: 'conversation.updated',
      conversationId: id,
      assignee: next.assigneeMembershipId,
    });
    if (row.assigneeMembershipId !== next.assigneeMembershipId)
      await notifyLive(tx, {
        orgId: ctx.orgId,
        type: 'conversation.updated',
        conversationId: id,
        assignee: row.assigneeMembershipId,
      });
    return presentConversation(tx, ctx.orgId, next);
  });
}

export async function updateConversation(ctx: TenantContext, id: number, input: ConversationUpdate) {
  return changeConversation(ctx, id, async (tx) => {
    const patch: Partial<repo.ConversationRow> = {};
    if (input.status !== undefined) {
      patch.status = input.status;
      if (input.status !== 'snoozed') patch.snoozedUntil = null;
    }
    if (input.snoozedUntil !== undefined) {
      if (input.snoozedUntil !== null && (input.status ?? 'snoozed') !== 'snoozed')
        throw new AppError('BadRequestError', 'snoozedUntil goes with status snoozed');
      patch.snoozedUntil = input.snoozedUntil === null ? null : new Date(input.snoozedUntil);
      if (input.snoozedUntil !== null) patch.status = 'snoozed';
    }
    if (input.assignee !== undefined) {
      if (input.assignee === null) patch.assigneeMembershipId = null;
      else {
        const { ids } = await membershipIdsByDocumentIds(tx, ctx.orgId, [input.assignee]);
        const m = ids.get(input.assignee);
        if (m === undefined)
          throw new AppError('ValidationError', `No member ${input.assignee} in this organization`, {
            errors: [
              { path: ['assignee'], message: 'unknown membership documentId', name: 'ValidationError' },
            ],
          });
        patch.assigneeMembershipId = m;
      }
    }
    return patch;
  });
}

export const markSeen = (ctx: TenantContext, id: number) =>
  changeConversation(ctx, id, async () => ({ unreadCount: 0 }));

export const markUnread = (ctx: TenantContext, id: number) =>
  changeConversation(ctx, id, async (_tx, row) => ({ unreadCount: Math.max(1, row.unreadCount) }));
