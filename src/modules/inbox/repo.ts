import { and, asc, count, eq, gt, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import { preparedRows, queryRows, type Tx } from '../../platform/db/client.js';
import { sqlRowMapper } from '../../platform/db/rows.js';
import { foldedPattern } from '../../platform/db/search-fold.js';
import type { MembershipRef } from '../../platform/http/schemas.js';
import { boards } from '../boards/table.js';
import { cards } from '../cards/table.js';
import { boardChatChannels, chatChannels } from '../channels/table.js';
import type { ContactRef } from '../contacts/index.js';
import { contacts } from '../contacts/table.js';
import { LIVE_CHANNEL, type LiveNotice } from './notify.js';
import { chatInboxes, conversations } from './table.js';

export type InboxRow = typeof chatInboxes.$inferSelect;
export type ConversationRow = typeof conversations.$inferSelect;

/** Every WhatsApp channel has its inbox: made here, idempotently (one statement, no race). */
export async function ensureInboxes(tx: Tx, orgId: number) {
  await tx.execute(sql`insert into chat_inboxes (organization_id, channel_id)
    select organization_id, id from chat_channels where organization_id = ${orgId} and type = 'whatsapp'
    on conflict (organization_id, channel_id) do nothing`);
}

/** The channel's inbox, made on first use: one statement (an insert that yields to an existing row). */
export async function inboxOfChannel(tx: Tx, orgId: number, channelId: number): Promise<number> {
  const [row] = await queryRows<{ id: number }>(
    tx,
    sql`with made as (
          insert into chat_inboxes (organization_id, channel_id) values (${orgId}, ${channelId})
          on conflict (organization_id, channel_id) do nothing returning id)
        select id from made
        union all
        select id from chat_inboxes where organization_id = ${orgId} and channel_id = ${channelId}
        limit 1`,
  );
  if (row) return row.id;
  // Made by a concurrent transaction after this statement's snapshot: committed now (the insert waited for it).
  const [again] = await tx
    .select({ id: chatInboxes.id })
    .from(chatInboxes)
    .where(and(eq(chatInboxes.organizationId, orgId), eq(chatInboxes.channelId, channelId)));
  return again.id;
}

const inboxSelect = {
  inbox: chatInboxes,
  channel: {
    id: chatChannels.id,
    documentId: chatChannels.documentId,
    name: chatChannels.name,
    settings: chatChannels.settings,
  },
};

export async function listInboxes(tx: Tx, orgId: number, id?: number) {
  return tx
    .select(inboxSelect)
    .from(chatInboxes)
    .innerJoin(
      chatChannels,
      and(
        eq(chatChannels.organizationId, chatInboxes.organizationId),
        eq(chatChannels.id, chatInboxes.channelId),
      ),
    )
    .where(and(eq(chatInboxes.organizationId, orgId), id === undefined ? undefined : eq(chatInboxes.id, id)))
    .orderBy(asc(chatInboxes.id));
}

/** Boards linked to channels (GET|PUT /boards/{id}/chat-channels), oldest link target first. */
export async function boardsOfChannels(tx: Tx, orgId: number, channelIds: number[]) {
  if (channelIds.length === 0) return [];
  return tx
    .select({
      channelId: boardChatChannels.channelId,
      id: boards.id,
      documentId: boards.documentId,
      name: boards.name,
      boardType: boards.boardType,
    })
    .from(boardChatChannels)
    .innerJoin(
      boards,
      and(
        eq(boards.organizationId, boardChatChannels.organizationId),
        eq(boards.id, boardChatChannels.boardId),
      ),
    )
    .where(and(eq(boardChatChannels.organizationId, orgId), inArray(boardChatChannels.channelId, channelIds)))
    .orderBy(asc(boards.id));
}

// ---- conversations

export interface ConversationFilter {
  visibility: SQL | undefined;
  status?: string;
  assignee?: number | null;
  inboxId?: number;
  unread?: boolean;
  q?: string;
  contactId?: number;
}

function conversationWhere(orgId: number, f: ConversationFilter): SQL {
  const parts: (SQL | undefined)[] = [eq(conversations.organizationId, orgId), f.visibility];
  if (f.status) parts.push(eq(conversations.status, f.status as ConversationRow['status']));
  if (f.assignee === null) parts.push(isNull(conversations.assigneeMembershipId));
  else if (f.assignee !== undefined) parts.push(eq(conversations.assigneeMembershipId, f.assignee));
  if (f.inboxId !== undefined) parts.push(eq(conversations.inboxId, f.inboxId));
  if (f.unread === true) parts.push(gt(conversations.unreadCount, 0));
  if (f.unread === false) parts.push(eq(conversations.unreadCount, 0));
  if (f.contactId !== undefined) parts.push(eq(conversations.contactId, f.contactId));
  if (f.q) {
    // Accent- and case-blind, like the contacts' `q` (platform/db/search-fold.ts): "joao" finds "João".
    const like = foldedPattern('$containsi', f.q);
    parts.push(
      or(
        sql`crm_fold(${conversations.lastMessagePreview}) like ${like}`,
        sql`${conversations.waId} like ${like}`,
        sql`exists (select 1 from contacts c where c.organization_id = ${conversations.organizationId}
              and c.id = ${conversations.contactId} and c.search_text like ${like})`,
      ),
    );
  }
  return and(...parts)!;
}

/** The refs' JSON in the response's shapes, for the conversation columns named (qualified SQL). */
const refSql = (org: string, contact: string, member: string, card: string) => ({
  contact: sql.raw(`(select json_build_object('documentId', c.document_id, 'name', c.name, 'email', c.email,
      'phone', c.phone) from contacts c where c.organization_id = ${org} and c.id = ${contact})`),
  assignee: sql.raw(`(select json_build_object('documentId', m.document_id, 'user', json_build_object(
      'username', u.username, 'email', u.email, 'blocked', u.blocked, 'name', u.name))
    from memberships m join users u on u.id = m.user_id where m.organization_id = ${org} and m.id = ${member})`),
  card: sql.raw(`(select json_build_object('documentId', k.document_id, 'title', k.title, 'board',
      json_build_object('documentId', b.document_id, 'name', b.name))
    from cards k join boards b on b.organization_id = k.organization_id and b.id = k.board_id
    where k.organization_id = ${org} and k.id = ${card})`),
});

/**
 * A page of conversations with its total and the contacts, assignees and cards it points at, in one statement:
 * the page (the list index's ordered walk) in a CTE, the total an uncorrelated subquery of the same conditions
 * (run once), the refs probed for the page's rows only (not for the rows an offset skips).
 */
export async function listConversations(
  tx: Tx,
  orgId: number,
  f: ConversationFilter,
  window: { offset: number; limit: number },
) {
  const where = conversationWhere(orgId, f);
  const refs = refSql('p.organization_id', 'p.contact_id', 'p.assignee_membership_id', 'p.card_id');
  // Fixed-shape SQL rather than the select builder (this is the inbox's busiest read: building the builder's
  // CTE twice cost a third of a millisecond of the event loop per request), prepared under a name derived from
  // its text (which never holds a value), so PostgreSQL parses it once per connection and then reuses its plan:
  // planning it costs about as much as running it.
  const page = await preparedRows<PageRow>(
    tx,
    sql`with p as (
          select ${PAGE_COLUMNS}, (select count(*) from conversations where ${where})::int as total
          from conversations where ${where}
          order by last_message_at desc nulls last, id desc
          offset ${window.offset} limit ${window.limit})
        select ${PAGE_COLUMNS}, total,
          ${refs.contact} as contact_ref, ${refs.assignee} as assignee_ref, ${refs.card} as card_ref
        from p order by p.last_message_at desc nulls last, p.id desc`,
  );
  if (page.length === 0) {
    const [{ total }] = await tx.select({ total: count() }).from(conversations).where(where);
    return { rows: [], total, refs: emptyRefs() };
  }
  const out = emptyRefs();
  const rows = page.map((x) => {
    const row = conversationRow.map(x);
    if (row.contactId !== null && x.contact_ref) out.contacts.set(row.contactId, x.contact_ref);
    if (row.assigneeMembershipId !== null && x.assignee_ref)
      out.members.set(row.assigneeMembershipId, x.assignee_ref);
    if (row.cardId !== null && x.card_ref) out.cards.set(row.cardId, x.card_ref);
    return row;
  });
  return { rows, total: Number(page[0].total), refs: out };
}

/**
 * The page's columns, named (never `*`: a prepared statement's result type is fixed, and a column added while
 * processes run would fail it on every connection that prepared it), and their decoding.
 */
const conversationRow = sqlRowMapper(conversations);
const PAGE_COLUMNS = sql.raw(conversationRow.columnNames.join(', '));

type PageRow = Record<string, unknown> & {
  total: number;
  contact_ref: ContactRef | null;
  assignee_ref: MembershipRef | null;
  card_ref: CardRef | null;
};

/** A conversation's card as the inbox shows it (cardRefsByIds, the page statement). */
type CardRef = { documentId: string; title: string; board: { documentId: string; name: string } };

const emptyRefs = (): ConversationRefs => ({ contacts: new Map(), members: new Map(), cards: new Map() });

export interface ConversationRefs {
  contacts: Map<number, ContactRef>;
  members: Map<number, MembershipRef>;
  cards: Map<number, CardRef>;
}

export async function findConversation(
  tx: Tx,
  orgId: number,
  id: number,
  visibility: SQL | undefined,
  lock = false,
) {
  const q = tx
    .select()
    .from(conversations)
    .where(and(eq(conversations.organizationId, orgId), eq(conversations.id, id), visibility));
  const [row] = lock ? await q.for('update') : await q;
  return row as ConversationRow | undefined;
}

export async function conversationCounts(tx: Tx, orgId: number, visibility: SQL | undefined, me: number) {
  const [row] = await queryRows<Record<string, number>>(
    tx,
    sql`select count(*)::int as "all",
          count(*) filter (where assignee_membership_id = ${me})::int as mine,
          count(*) filter (where assignee_membership_id is null)::int as unassigned,
          count(*) filter (where status = 'open')::int as open,
          count(*) filter (where status = 'pending')::int as pending,
          count(*) filter (where status = 'resolved')::int as resolved,
          count(*) filter (where status = 'snoozed')::int as snoozed
        from conversations where organization_id = ${orgId} ${visibility ? sql`and ${visibility}` : sql``}`,
  );
  return row;
}

export async function unreadByInbox(tx: Tx, orgId: number, visibility: SQL | undefined) {
  return queryRows<{ inboxId: number; conversations: number; messages: number }>(
    tx,
    sql`select inbox_id as "inboxId", count(*)::int as conversations, coalesce(sum(unread_count), 0)::int as messages
        from conversations where organization_id = ${orgId} and unread_count > 0
        ${visibility ? sql`and ${visibility}` : sql``}
        group by inbox_id order by inbox_id`,
  );
}

export async function insertConversation(
  tx: Tx,
  orgId: number,
  values: { inboxId: number; waId: string; contactId: number | null },
) {
  const [row] = await tx
    .insert(conversations)
    .values({ organizationId: orgId, ...values })
    .onConflictDoNothing()
    .returning();
  return row as ConversationRow | undefined;
}

export async function conversationByWaId(tx: Tx, orgId: number, inboxId: number, waId: string) {
  const [row] = await tx
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.organizationId, orgId),
        eq(conversations.inboxId, inboxId),
        eq(conversations.waId, waId),
      ),
    )
    .for('update');
  return row as ConversationRow;
}

/**
 * The conversations of several senders of one inbox, locked (FOR UPDATE) for the rest of the transaction:
 * the missing ones are inserted (locked by the insert), the others read FOR UPDATE. Both in ascending wa_id
 * order, so concurrent payloads lock in the same order (no deadlock); a sender another transaction is adding
 * waits for it. Two statements whatever the number of senders.
 */
export async function lockConversations(tx: Tx, orgId: number, inboxId: number, waIds: string[]) {
  const sorted = [...new Set(waIds)].sort();
  const made = await queryRows<{ id: number; wa_id: string }>(
    tx,
    sql`insert into conversations (organization_id, inbox_id, wa_id)
        select ${orgId}, ${inboxId}, w from jsonb_array_elements_text(${JSON.stringify(sorted)}::jsonb) w order by w
        on conflict do nothing returning id, wa_id`,
  );
  const madeIds = new Set(made.map((r) => r.wa_id));
  const rows = await tx
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.organizationId, orgId),
        eq(conversations.inboxId, inboxId),
        sql`${conversations.waId} = any(select jsonb_array_elements_text(${JSON.stringify(sorted)}::jsonb))`,
      ),
    )
    .orderBy(asc(conversations.waId))
    .for('update');
  return { rows: rows as ConversationRow[], made: madeIds };
}

/**
 * Several conversations' new state and the live notices of the change (LIVE_CHANNEL, sent at commit in the
 * list's order) in one statement; the rows are locked by the caller.
 */
export async function updateConversations(
  tx: Tx,
  orgId: number,
  notices: LiveNotice[],
  updates: Pick<
    ConversationRow,
    | 'id'
    | 'contactId'
    | 'cardId'
    | 'status'
    | 'snoozedUntil'
    | 'unreadCount'
    | 'lastMessageAt'
    | 'lastIncomingAt'
    | 'lastMessagePreview'
  >[],
) {
  if (updates.length === 0 && notices.length === 0) return;
  const payloads = JSON.stringify(notices.map((n) => JSON.stringify(n)));
  await tx.execute(sql`with u as (
      update conversations c set
        contact_id = v."contactId", card_id = v."cardId", status = v.status, snoozed_until = v."snoozedUntil",
        unread_count = v."unreadCount", last_message_at = v."lastMessageAt", last_incoming_at = v."lastIncomingAt",
        last_message_preview = v."lastMessagePreview", updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) as v(
        "id" bigint, "contactId" bigint, "cardId" bigint, "status" text, "snoozedUntil" timestamptz,
        "unreadCount" integer, "lastMessageAt" timestamptz, "lastIncomingAt" timestamptz, "lastMessagePreview" text)
      where c.organization_id = ${orgId} and c.id = v."id"
      returning 1),
    n as (
      select pg_notify(${LIVE_CHANNEL}, p) from jsonb_array_elements_text(${payloads}::jsonb) with ordinality as t(p, i)
      order by i)
    select (select count(*) from u) as updated, (select count(*) from n) as notified`);
}

export async function updateConversation(
  tx: Tx,
  orgId: number,
  id: number,
  values: Partial<ConversationRow>,
) {
  const [row] = await tx
    .update(conversations)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(conversations.organizationId, orgId), eq(conversations.id, id)))
    .returning();
  return row;
}

export async function cardRefsByIds(tx: Tx, orgId: number, ids: number[]) {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map<number, CardRef>();
  const rows = await tx
    .select({
      id: cards.id,
      documentId: cards.documentId,
      title: cards.title,
      boardDocumentId: boards.documentId,
      boardName: boards.name,
    })
    .from(cards)
    .innerJoin(boards, and(eq(boards.organizationId, cards.organizationId), eq(boards.id, cards.boardId)))
    .where(and(eq(cards.organizationId, orgId), inArray(cards.id, unique)));
  return new Map(
    rows.map((r) => [
      r.id,
      {
        documentId: r.documentId,
        title: r.title,
        board: { documentId: r.boardDocumentId, name: r.boardName },
      },
    ]),
  );
}

export async function findCardByDocumentId(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select({ id: cards.id, boardId: cards.boardId, contactId: cards.contactId })
    .from(cards)
    .where(and(eq(cards.organizationId, orgId), eq(cards.documentId, documentId)));
  return row;
}

/** Cards linked to conversations, optionally of one board or of one contact's conversations. */
export async function chatCards(
  tx: Tx,
  orgId: number,
  f: { boardId?: number; contactId?: number; visibility: SQL | undefined },
) {
  return queryRows<{ cardId: number; boardId: number; contactId: number | null; conversationIds: number[] }>(
    tx,
    sql`select k.id as "cardId", k.board_id as "boardId", k.contact_id as "contactId",
          array_agg(conversations.id order by conversations.id) as "conversationIds"
        from conversations
        join cards k on k.organization_id = conversations.organization_id and k.id = conversations.card_id
        where conversations.organization_id = ${orgId}
          ${f.boardId !== undefined ? sql`and k.board_id = ${f.boardId}` : sql``}
          ${f.contactId !== undefined ? sql`and conversations.contact_id = ${f.contactId}` : sql``}
          ${f.visibility ? sql`and ${f.visibility}` : sql``}
        group by k.id, k.board_id, k.contact_id
        order by k.id desc limit 500`,
  );
}

/** Contacts with a phone, searched like the contact list's `q`, with their conversations. */
export async function chatContacts(tx: Tx, orgId: number, q: string | undefined, limit: number) {
  const like = q ? foldedPattern('$containsi', q) : undefined;
  const rows = await tx
    .select({
      id: contacts.id,
      documentId: contacts.documentId,
      name: contacts.name,
      phone: contacts.phone,
      email: contacts.email,
    })
    .from(contacts)
    .where(
      and(
        eq(contacts.organizationId, orgId),
        sql`${contacts.phone} is not null`,
        like ? sql`${contacts.searchText} like ${like}` : undefined,
      ),
    )
    .orderBy(asc(contacts.name), asc(contacts.id))
    .limit(limit);
  const convs =
    rows.length === 0
      ? []
      : await tx
          .select({
            id: conversations.id,
            inboxId: conversations.inboxId,
            contactId: conversations.contactId,
          })
          .from(conversations)
          .where(
            and(
              eq(conversations.organizationId, orgId),
              inArray(
                conversations.contactId,
                rows.map((r) => r.id),
              ),
            ),
          )
          .orderBy(asc(conversations.id));
  return rows.map(({ id, ...r }) => ({
    ...r,
    phone: r.phone as string,
    conversations: convs.filter((c) => c.contactId === id).map((c) => ({ id: c.id, inboxId: c.inboxId })),
  }));
}

/** A contact matched by phone (E.164), the oldest first. */
/** The oldest contact of each phone (contacts matched by phone, e.g. a new conversation's number). */
export async function contactsByPhones(tx: Tx, orgId: number, phones: string[]) {
  if (phones.length === 0) return new Map<string, typeof contacts.$inferSelect>();
  const rows = await tx
    .selectDistinctOn([contacts.phone])
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), inArray(contacts.phone, phones)))
    .orderBy(asc(contacts.phone), asc(contacts.id));
  return new Map(rows.map((r) => [r.phone as string, r]));
}

export async function contactByPhone(tx: Tx, orgId: number, phone: string) {
  const [row] = await tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), eq(contacts.phone, phone)))
    .orderBy(asc(contacts.id))
    .limit(1);
  return row;
}

// ---- conversations by id, and those changed since (the live stream's replay)

export async function conversationsByIds(tx: Tx, orgId: number, ids: number[]) {
  if (ids.length === 0) return [];
  return tx
    .select()
    .from(conversations)
    .where(and(eq(conversations.organizationId, orgId), inArray(conversations.id, ids)));
}

/** Conversations of the organization changed (or messaged) from `since` on, oldest first (a stream's replay). */
export async function conversationsChangedSince(tx: Tx, orgId: number, since: Date, limit: number) {
  const at = since.toISOString();
  return tx
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.organizationId, orgId),
        or(sql`${conversations.updatedAt} >= ${at}`, sql`${conversations.lastMessageAt} >= ${at}`),
      ),
    )
    .orderBy(asc(conversations.updatedAt), asc(conversations.id))
    .limit(limit);
}
