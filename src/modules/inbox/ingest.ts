import { sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { recordEvent } from '../../platform/events/outbox.js';
import { normalizePhone } from '../../platform/phones.js';
import { findBoardById } from '../boards/repo.js';
import { createChatCard } from '../cards/service.js';
import { insertActivities, insertContacts } from '../contacts/repo.js';
import { toContacts } from '../contacts/service.js';
import { nextConversationAssignee } from '../distribution/assign.js';
import { notifyLive } from './notify.js';
import * as repo from './repo.js';
import type { StoredAttachment } from './table.js';

/**
 * Inbound WhatsApp traffic (POST /webhooks/whatsapp/{channelId}, after the signature check), processed inside
 * the webhook's transaction: acknowledged only once stored (docs/inbox.md, "Ordering and idempotency").
 * - idempotent: a message is stored once per provider id (unique index); a redelivery changes nothing;
 * - ordered per conversation: the conversation row is locked while its messages are stored, so their ids
 *   follow the provider's order within a payload and the order of acceptance across payloads;
 * - deadlock-free under bursts: a payload's conversations are all locked first, sorted by sender, then the
 *   other locks in a fixed order (contacts' phones, the board's distribution queue, the inbox's), so two
 *   transactions never wait on each other in a cycle.
 */

interface WaMedia {
  id?: string;
  mime_type?: string;
  filename?: string;
  caption?: string;
}

export interface WaMessage {
  from?: string;
  id?: string;
  timestamp?: string;
  type?: string;
  text?: { body?: string };
  image?: WaMedia;
  audio?: WaMedia;
  video?: WaMedia;
  document?: WaMedia;
  sticker?: WaMedia;
  button?: { text?: string; payload?: string };
  interactive?: { button_reply?: { title?: string }; list_reply?: { title?: string } };
  location?: { latitude?: number; longitude?: number; name?: string };
}

export interface WaStatus {
  id?: string;
  status?: string;
  errors?: { title?: string; message?: string; code?: number }[];
}

export interface WaValue {
  contacts?: { wa_id?: string; profile?: { name?: string } }[];
  messages?: WaMessage[];
  statuses?: WaStatus[];
}

interface Channel {
  organizationId: number;
  id: number;
}

type Parsed = Pick<repo.MessageRow, 'content' | 'contentType'> & { attachments: StoredAttachment[] };

/** What the inbox keeps of a provider message; null: a kind it does not store (reactions, system notices). */
export function parseMessage(m: WaMessage): Parsed | null {
  const media = (type: 'image' | 'audio' | 'video' | 'document', x: WaMedia | undefined): Parsed => ({
    content: x?.caption ?? '',
    contentType: type,
    attachments: [
      {
        mediaId: x?.id ?? null,
        filename: x?.filename ?? null,
        mimeType: x?.mime_type ?? null,
        size: null,
        caption: x?.caption ?? null,
      },
    ],
  });
  const text = (content: string | undefined): Parsed | null =>
    content === undefined ? null : { content, contentType: 'text', attachments: [] };
  switch (m.type) {
    case 'text':
      return text(m.text?.body);
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
      return media(m.type, m[m.type]);
    case 'sticker':
      return media('image', m.sticker);
    // A template's quick-reply button, an interactive reply: what the person tapped.
    case 'button':
      return text(m.button?.text ?? m.button?.payload);
    case 'interactive':
      return text(m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title);
    case 'location':
      return text(
        `Location: ${m.location?.name ? `${m.location.name} ` : ''}(${m.location?.latitude}, ${m.location?.longitude})`,
      );
    default:
      return null;
  }
}

const preview = (p: Parsed) => (p.content ? p.content.slice(0, 200) : `[${p.contentType}]`);

/** The contact of a new conversation: matched by phone, else created (serialized per phone number). */
async function contactFor(tx: Tx, orgId: number, waId: string, name: string | undefined) {
  const parsed = normalizePhone(`+${waId}`);
  const phone = parsed.ok ? parsed.phone : null;
  if (phone) {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`contact-phone:${orgId}:${phone}`}, 0))`,
    );
    const found = await repo.contactByPhone(tx, orgId, phone);
    if (found) return found;
  }
  const [row] = await insertContacts(tx, orgId, [{ name: name?.trim() || `+${waId}`, phone }]);
  await insertActivities(tx, orgId, [
    {
      contactId: row.id,
      activityType: 'contact_created',
      description: `Contact ${row.name} created from a WhatsApp conversation`,
      actorId: null,
    },
  ]);
  const [contact] = await toContacts(tx, orgId, [row]);
  await recordEvent(tx, orgId, 'contact.created', `contact:${row.documentId}`, { contact });
  return row;
}

/** The card of a new conversation, on the first board linked to the channel (none linked: no card). */
export async function cardForConversation(
  tx: Tx,
  orgId: number,
  channelId: number,
  contact: { documentId: string; name: string } | null,
  waId: string,
) {
  const [link] = await repo.boardsOfChannels(tx, orgId, [channelId]);
  if (!link) return null;
  const board = await findBoardById(tx, orgId, link.id);
  if (!board) return null;
  const card = await createChatCard(
    tx,
    orgId,
    board,
    { title: contact?.name ?? `+${waId}`, contact: contact?.documentId ?? null },
    null,
  );
  return card.id;
}

/**
 * The conversations of a payload's senders, in sender order: made (then completed below) or locked. Every
 * conversation lock of the payload is taken here, before any other lock (a contact's phone, a board's or an
 * inbox's distribution queue): two payloads therefore never wait on each other in a cycle.
 */
async function lockConversations(tx: Tx, orgId: number, inboxId: number, senders: string[]) {
  const out = new Map<string, { row: repo.ConversationRow; made: boolean }>();
  for (const waId of senders) {
    const inserted = await repo.insertConversation(tx, orgId, { inboxId, waId, contactId: null });
    // Someone else's (or an earlier) conversation: wait for its lock, which orders this message after theirs.
    out.set(
      waId,
      inserted
        ? { row: inserted, made: true }
        : { row: await repo.conversationByWaId(tx, orgId, inboxId, waId), made: false },
    );
  }
  return out;
}

/** New conversations get their contact (all of them first: the phone locks in order), then their card. */
async function completeConversations(
  tx: Tx,
  channel: Channel,
  inboxId: number,
  made: { waId: string; row: repo.ConversationRow }[],
  names: Map<string, string>,
) {
  const orgId = channel.organizationId;
  const contacts = [];
  for (const c of made) contacts.push(await contactFor(tx, orgId, c.waId, names.get(c.waId)));
  for (const [i, c] of made.entries()) {
    const contact = contacts[i];
    const cardId = await cardForConversation(tx, orgId, channel.id, contact, c.waId);
    c.row = await repo.updateConversation(tx, orgId, c.row.id, { contactId: contact.id, cardId });
    await recordEvent(tx, orgId, 'conversation.created', `conversation:${c.row.id}`, {
      conversation: { id: c.row.id, inboxId, waId: c.waId, contact: contact.documentId },
    });
  }
}

/**
 * New conversations go to the inbox's distribution queue, if it has one (docs/distribution.md, "Inboxes"). Locks
 * are taken in one order by every payload — its conversations (by sender), their contacts' phones (by sender),
 * the board's queue (cards), the inbox's queue (here) — so two payloads never wait on each other in a cycle.
 */
async function distribute(tx: Tx, orgId: number, inboxId: number, made: number[]) {
  for (const id of made) {
    const assignee = await nextConversationAssignee(tx, orgId, inboxId);
    if (assignee === undefined) return;
    await repo.updateConversation(tx, orgId, id, { assigneeMembershipId: assignee });
    await notifyLive(tx, { orgId, type: 'conversation.updated', conversationId: id, assignee });
  }
}

const at = (timestamp: string | undefined) => {
  const d = new Date(Number(timestamp) * 1000);
  return Number.isNaN(d.getTime()) ? new Date() : d;
};

const later = (a: Date | null, b: Date) => (a && a > b ? a : b);

export async function ingestWhatsApp(tx: Tx, channel: Channel, values: WaValue[]) {
  const orgId = channel.organizationId;
  const inboxId = await repo.inboxOfChannel(tx, orgId, channel.id);
  let stored = 0;
  let matched = 0;
  const names = new Map<string, string>();
  for (const v of values)
    for (const c of v.contacts ?? []) if (c.wa_id && c.profile?.name) names.set(c.wa_id, c.profile.name);
  const messages = values
    .flatMap((v) => v.messages ?? [])
    .filter((m) => typeof m.from === 'string' && /^\d{4,20}$/.test(m.from) && typeof m.id === 'string')
    .map((m, i) => ({ m, i }))
    .sort((a, b) => (a.m.from! < b.m.from! ? -1 : a.m.from! > b.m.from! ? 1 : a.i - b.i))
    .flatMap(({ m }) => {
      const parsed = parseMessage(m);
      return parsed ? [{ m, parsed }] : [];
    });
  const convs = await lockConversations(tx, orgId, inboxId, [...new Set(messages.map(({ m }) => m.from!))]);
  const fresh = [...convs].flatMap(([waId, c]) => (c.made ? [{ waId, row: c.row }] : []));
  await completeConversations(tx, channel, inboxId, fresh, names);
  for (const c of fresh) convs.set(c.waId, { row: c.row, made: true });
  for (const { m, parsed } of messages) {
    const conv = convs.get(m.from!)!.row;
    const when = at(m.timestamp);
    const row = await repo.insertMessage(tx, orgId, {
      conversationId: conv.id,
      direction: 'incoming',
      ...parsed,
      status: 'delivered',
      providerMessageId: m.id!,
      createdAt: when,
    });
    if (!row) continue; // a redelivery: stored before
    stored++;
    await repo.updateConversation(tx, orgId, conv.id, {
      unreadCount: conv.unreadCount + 1,
      lastMessageAt: later(conv.lastMessageAt, when),
      lastIncomingAt: later(conv.lastIncomingAt, when),
      lastMessagePreview: preview(parsed),
      // A contact writing again reopens a resolved or snoozed conversation.
      ...(conv.status === 'resolved' || conv.status === 'snoozed'
        ? { status: 'open', snoozedUntil: null }
        : {}),
    });
    conv.unreadCount += 1;
    conv.lastMessageAt = later(conv.lastMessageAt, when);
    conv.lastIncomingAt = later(conv.lastIncomingAt, when);
    await recordEvent(tx, orgId, 'message.received', `conversation:${conv.id}`, {
      conversationId: conv.id,
      messageId: row.id,
      contentType: row.contentType,
      content: row.content,
    });
    await notifyLive(tx, {
      orgId,
      type: 'message.created',
      conversationId: conv.id,
      messageId: row.id,
      assignee: conv.assigneeMembershipId,
    });
  }
  await distribute(
    tx,
    orgId,
    inboxId,
    fresh.map((c) => c.row.id),
  );
  for (const s of values.flatMap((v) => v.statuses ?? [])) {
    if (!s.id || !['sent', 'delivered', 'read', 'failed'].includes(s.status ?? '')) continue;
    const e = s.errors?.[0];
    const error =
      s.status === 'failed'
        ? `whatsapp provider: ${e?.title ?? e?.message ?? 'failed'}${e?.code ? ` (${e.code})` : ''}`
        : null;
    const row = await repo.applyStatus(tx, orgId, s.id, s.status as 'sent', error);
    if (!row) continue;
    matched++;
    const [conv] = await repo.conversationsByIds(tx, orgId, [row.conversationId]);
    await notifyLive(tx, {
      orgId,
      type: 'conversation.updated',
      conversationId: row.conversationId,
      messageId: row.id,
      assignee: conv?.assigneeMembershipId ?? null,
    });
  }
  return { stored, matched };
}
