import { sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { recordEvents } from '../../platform/events/outbox.js';
import { normalizePhone } from '../../platform/phones.js';
import { webhookErrorText } from '../../platform/providers/whatsapp/errors.js';
import { findBoardById } from '../boards/index.js';
import { createChatCards } from '../cards/index.js';
import {
  type ContactRow,
  contactCreatedEvents,
  insertActivities,
  insertContacts,
} from '../contacts/index.js';
import { nextConversationAssignee } from '../distribution/index.js';
import * as messagesRepo from './messages-repo.js';
import { type LiveNotice, notifyLive } from './notify.js';
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
  errors?: { title?: string; message?: string; code?: number; error_data?: { details?: string } }[];
}

export interface WaValue {
  contacts?: { wa_id?: string; profile?: { name?: string } }[];
  messages?: WaMessage[];
  statuses?: WaStatus[];
}

interface Channel {
  organizationId: number;
  id: number;
  /** The channel's inbox when the caller read it with the channel (made here otherwise). */
  inboxId?: number | null;
}

type Parsed = Pick<messagesRepo.MessageRow, 'content' | 'contentType'> & { attachments: StoredAttachment[] };

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

/**
 * The contacts of new conversations: matched by phone, else created — serialized per phone number (advisory
 * locks taken in phone order) — with their activity and contact.created events. A fixed number of statements
 * whatever the number of senders.
 */
async function contactsFor(tx: Tx, orgId: number, senders: { waId: string; name: string | undefined }[]) {
  const phoneOf = new Map<string, string | null>();
  for (const s of senders) {
    const parsed = normalizePhone(`+${s.waId}`);
    phoneOf.set(s.waId, parsed.ok ? parsed.phone : null);
  }
  const phones = [...new Set([...phoneOf.values()].filter((p): p is string => p !== null))].sort();
  if (phones.length > 0) {
    const keys = JSON.stringify(phones.map((p) => `contact-phone:${orgId}:${p}`));
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(k, 0))
          from jsonb_array_elements_text(${keys}::jsonb) with ordinality as t(k, i) order by i`,
    );
  }
  const found = await repo.contactsByPhones(tx, orgId, phones);
  const out = new Map<string, ContactRow>();
  // Senders without a contact yet; two senders of one phone (e.g. a wa_id with and without a trunk digit) share one.
  const toMake: { waId: string; name: string; phone: string | null }[] = [];
  for (const s of senders) {
    const phone = phoneOf.get(s.waId) ?? null;
    const hit = phone ? found.get(phone) : undefined;
    if (hit) out.set(s.waId, hit);
    else if (!phone || !toMake.some((m) => m.phone === phone))
      toMake.push({ waId: s.waId, name: s.name?.trim() || `+${s.waId}`, phone });
  }
  const made = await insertContacts(
    tx,
    orgId,
    toMake.map((m) => ({ name: m.name, phone: m.phone })),
  );
  if (made.length === 0) return out;
  const byPhone = new Map<string, ContactRow>();
  made.forEach((row, i) => {
    out.set(toMake[i].waId, row);
    if (toMake[i].phone) byPhone.set(toMake[i].phone!, row);
  });
  for (const s of senders) {
    const phone = phoneOf.get(s.waId);
    if (!out.has(s.waId) && phone && byPhone.has(phone)) out.set(s.waId, byPhone.get(phone)!);
  }
  await insertActivities(
    tx,
    orgId,
    made.map((row) => ({
      contactId: row.id,
      activityType: 'contact_created',
      description: `Contact ${row.name} created from a WhatsApp conversation`,
      actorId: null,
    })),
  );
  await recordEvents(tx, orgId, await contactCreatedEvents(tx, orgId, made));
  return out;
}

/** The card of a new conversation, on the first board linked to the channel (none linked: no card). */
export async function cardForConversation(
  tx: Tx,
  orgId: number,
  channelId: number,
  contact: { documentId: string; name: string } | null,
  waId: string,
) {
  const [cardId] = await cardsForConversations(tx, orgId, channelId, [{ contact, waId }]);
  return cardId;
}

/** The cards of several new conversations (the board is read once); null each when no board is linked. */
async function cardsForConversations(
  tx: Tx,
  orgId: number,
  channelId: number,
  convs: { contact: { documentId: string; name: string } | null; waId: string }[],
): Promise<(number | null)[]> {
  if (convs.length === 0) return [];
  const [link] = await repo.boardsOfChannels(tx, orgId, [channelId]);
  const board = link ? await findBoardById(tx, orgId, link.id) : undefined;
  if (!board) return convs.map(() => null);
  const cards = await createChatCards(
    tx,
    orgId,
    board,
    convs.map((c) => ({ title: c.contact?.name ?? `+${c.waId}`, contact: c.contact?.documentId ?? null })),
    null,
  );
  return cards.map((c) => c.id);
}

/**
 * New conversations go to the inbox's distribution queue, if it has one (docs/distribution.md, "Inboxes"). Locks
 * are taken in one order by every payload — its conversations (by sender), their contacts' phones (by phone),
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

/** A provider message the inbox keeps, with its place in the payload. */
interface Incoming {
  m: WaMessage;
  i: number;
  parsed: Parsed;
}

type Conversation = repo.ConversationRow;

/**
 * One payload's messages in a fixed number of statements whatever their number (docs/inbox.md, "Figures"):
 * the inbox, the senders' conversations locked in wa_id order (two), for new conversations their contacts
 * (four or five) and cards (the board read once, then each card), the messages (one insert, ids in the
 * provider's order per sender), the events (one insert), the conversations' new state and the live notices (one
 * statement); then the inbox's distribution queue for new conversations.
 */
export async function ingestWhatsApp(tx: Tx, channel: Channel, values: WaValue[]) {
  const orgId = channel.organizationId;
  let stored = 0;
  const messages = storableMessages(values);
  if (messages.length > 0) {
    const inboxId = channel.inboxId ?? (await repo.inboxOfChannel(tx, orgId, channel.id));
    const { convs, fresh } = await openConversations(tx, channel, inboxId, messages, senderNames(values));
    stored = await storeMessages(tx, orgId, messages, convs, fresh);
    await distribute(
      tx,
      orgId,
      inboxId,
      fresh.map((c) => c.id),
    );
  }
  const matched = await applyStatuses(
    tx,
    orgId,
    values.flatMap((v) => v.statuses ?? []),
  );
  return { stored, matched };
}

/** The senders' profile names by wa_id (a new conversation's contact is named after them). */
function senderNames(values: WaValue[]) {
  const names = new Map<string, string>();
  for (const v of values)
    for (const c of v.contacts ?? []) if (c.wa_id && c.profile?.name) names.set(c.wa_id, c.profile.name);
  return names;
}

/** The payload's messages the inbox keeps, once each, by sender and then in the provider's order. */
function storableMessages(values: WaValue[]): Incoming[] {
  const seen = new Set<string>();
  return values
    .flatMap((v) => v.messages ?? [])
    .filter((m) => typeof m.from === 'string' && /^\d{4,20}$/.test(m.from) && typeof m.id === 'string')
    .map((m, i) => ({ m, i, parsed: parseMessage(m) }))
    .filter((x): x is Incoming => {
      // A kind the inbox does not keep, or the same id twice in one payload: skipped.
      if (!x.parsed || seen.has(x.m.id!)) return false;
      seen.add(x.m.id!);
      return true;
    })
    .sort((a, b) => (a.m.from! < b.m.from! ? -1 : a.m.from! > b.m.from! ? 1 : a.i - b.i));
}

/**
 * The senders' conversations, locked (made when new); a new one gets its contact (matched or made) and card,
 * and its conversation.created event. `convs` are copies the messages then update; `fresh` the new ones.
 */
async function openConversations(
  tx: Tx,
  channel: Channel,
  inboxId: number,
  messages: Incoming[],
  names: Map<string, string>,
) {
  const orgId = channel.organizationId;
  const locked = await repo.lockConversations(
    tx,
    orgId,
    inboxId,
    messages.map((x) => x.m.from!),
  );
  const convs = new Map<string, Conversation>(locked.rows.map((c) => [c.waId, { ...c }]));
  const fresh = locked.rows.filter((c) => locked.made.has(c.waId));
  if (fresh.length === 0) return { convs, fresh };
  const contacts = await contactsFor(
    tx,
    orgId,
    fresh.map((c) => ({ waId: c.waId, name: names.get(c.waId) })),
  );
  const cardIds = await cardsForConversations(
    tx,
    orgId,
    channel.id,
    fresh.map((c) => ({ contact: contacts.get(c.waId) ?? null, waId: c.waId })),
  );
  fresh.forEach((c, i) => {
    const conv = convs.get(c.waId)!;
    conv.contactId = contacts.get(c.waId)?.id ?? null;
    conv.cardId = cardIds[i];
  });
  await recordEvents(
    tx,
    orgId,
    fresh.map((c) => ({
      type: 'conversation.created' as const,
      subject: `conversation:${c.id}`,
      data: {
        conversation: {
          id: c.id,
          inboxId,
          waId: c.waId,
          contact: contacts.get(c.waId)?.documentId ?? null,
        },
      },
    })),
  );
  return { convs, fresh };
}

/**
 * The messages inserted (a redelivery is not stored again), their conversations' new state with the live notices,
 * and their message.received events. Answers how many were stored.
 */
async function storeMessages(
  tx: Tx,
  orgId: number,
  messages: Incoming[],
  convs: Map<string, Conversation>,
  fresh: Conversation[],
) {
  const rows = await messagesRepo.insertMessages(
    tx,
    orgId,
    messages.map(({ m, parsed }) => ({
      conversationId: convs.get(m.from!)!.id,
      direction: 'incoming' as const,
      ...parsed,
      status: 'delivered' as const,
      providerMessageId: m.id!,
      createdAt: at(m.timestamp),
    })),
  );
  // Rows come back in insertion order; redeliveries (stored before) are absent.
  const byProviderId = new Map(rows.map((r) => [r.providerMessageId, r]));
  const changed = new Set<string>(fresh.map((c) => c.waId));
  const events: Parameters<typeof recordEvents>[2] = [];
  const notices: LiveNotice[] = [];
  let stored = 0;
  for (const { m, parsed } of messages) {
    const row = byProviderId.get(m.id!);
    if (!row) continue;
    stored++;
    const conv = convs.get(m.from!)!;
    receive(conv, row.createdAt, parsed);
    changed.add(conv.waId);
    events.push({
      type: 'message.received',
      subject: `conversation:${conv.id}`,
      data: {
        conversationId: conv.id,
        messageId: row.id,
        contentType: row.contentType,
        content: row.content,
      },
    });
    notices.push({
      orgId,
      type: 'message.created',
      conversationId: conv.id,
      messageId: row.id,
      assignee: conv.assigneeMembershipId,
    });
  }
  await repo.updateConversations(
    tx,
    orgId,
    notices,
    [...changed].map((waId) => {
      const c = convs.get(waId)!;
      return {
        id: c.id,
        contactId: c.contactId,
        cardId: c.cardId,
        status: c.status,
        snoozedUntil: c.snoozedUntil,
        unreadCount: c.unreadCount,
        lastMessageAt: c.lastMessageAt,
        lastIncomingAt: c.lastIncomingAt,
        lastMessagePreview: c.lastMessagePreview,
      };
    }),
  );
  await recordEvents(tx, orgId, events);
  return stored;
}

/** A conversation's state after one more incoming message. */
function receive(conv: Conversation, when: Date, parsed: Parsed) {
  conv.unreadCount += 1;
  conv.lastMessageAt = later(conv.lastMessageAt, when);
  conv.lastIncomingAt = later(conv.lastIncomingAt, when);
  conv.lastMessagePreview = preview(parsed);
  // A contact writing again reopens a resolved or snoozed conversation.
  if (conv.status === 'resolved' || conv.status === 'snoozed') {
    conv.status = 'open';
    conv.snoozedUntil = null;
  }
}

/** Delivery statuses of messages sent from here (sent, delivered, read, failed); answers how many matched one. */
async function applyStatuses(tx: Tx, orgId: number, statuses: WaStatus[]) {
  let matched = 0;
  for (const s of statuses) {
    if (!s.id || !['sent', 'delivered', 'read', 'failed'].includes(s.status ?? '')) continue;
    const error = s.status === 'failed' ? webhookErrorText(s.errors?.[0]) : null;
    const row = await messagesRepo.applyStatus(tx, orgId, s.id, s.status as 'sent', error);
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
  return matched;
}
