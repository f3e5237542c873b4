import { sql } from 'drizzle-orm';
import {
  bigint,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';
import { chatChannels } from '../channels/table.js';

/**
 * The inbox (DESIGN.md §11, "Inbox"; docs/inbox.md). Inbox, conversation and message ids are numeric and public
 * (spec tool rule 3): they are the identity columns themselves, never documentIds.
 */

/** One inbox per WhatsApp channel, made when first needed (listing inboxes, an inbound webhook). */
export const chatInboxes = pgTable(
  'chat_inboxes',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    channelId: bigint('channel_id', { mode: 'number' }).notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('chat_inboxes_org_channel_key').on(t.organizationId, t.channelId),
    foreignKey({
      name: 'chat_inboxes_channel_fk',
      columns: [t.organizationId, t.channelId],
      foreignColumns: [chatChannels.organizationId, chatChannels.id],
    }).onDelete('cascade'),
  ],
);

export const CONVERSATION_STATUSES = ['open', 'pending', 'resolved', 'snoozed'] as const;

/**
 * One conversation per (inbox, WhatsApp user id): a returning contact reopens it. Its row is the lock that
 * orders the messages of the conversation (ingest.ts).
 */
export const conversations = pgTable(
  'conversations',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    inboxId: bigint('inbox_id', { mode: 'number' }).notNull(),
    /** The WhatsApp user id (digits of the number, as the provider sends `wa_id`). */
    waId: text('wa_id').notNull(),
    /** contacts.id; no foreign key: a deleted contact reads back as none (like cards). */
    contactId: bigint('contact_id', { mode: 'number' }),
    status: text('status', { enum: CONVERSATION_STATUSES }).notNull().default('open'),
    snoozedUntil: timestamp('snoozed_until', { withTimezone: true, mode: 'date' }),
    assigneeMembershipId: bigint('assignee_membership_id', { mode: 'number' }),
    unreadCount: integer('unread_count').notNull().default(0),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, mode: 'date' }),
    /** The 24-hour customer-service window runs from here (docs/inbox.md, "The window"). */
    lastIncomingAt: timestamp('last_incoming_at', { withTimezone: true, mode: 'date' }),
    lastMessagePreview: text('last_message_preview'),
    /** cards.id of the conversation's card (creationSource chat_inbound, or linked). */
    cardId: bigint('card_id', { mode: 'number' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('conversations_org_inbox_wa_key').on(t.organizationId, t.inboxId, t.waId),
    index('conversations_org_last_message_idx').on(
      t.organizationId,
      t.lastMessageAt.desc().nullsLast(),
      t.id.desc(),
    ),
    index('conversations_org_contact_idx').on(t.organizationId, t.contactId),
    index('conversations_org_assignee_idx').on(t.organizationId, t.assigneeMembershipId),
    index('conversations_org_card_idx').on(t.organizationId, t.cardId),
    // The sweep that reopens conversations whose snooze has passed (snooze-sweep.ts), across organizations.
    index('conversations_snoozed_idx').on(t.snoozedUntil).where(sql`status = 'snoozed'`),
    index('conversations_org_unread_idx').on(t.organizationId, t.inboxId).where(sql`unread_count > 0`),
    foreignKey({
      name: 'conversations_inbox_fk',
      columns: [t.organizationId, t.inboxId],
      foreignColumns: [chatInboxes.organizationId, chatInboxes.id],
    }).onDelete('cascade'),
  ],
);

export const MESSAGE_DIRECTIONS = ['incoming', 'outgoing'] as const;
export const CONTENT_TYPES = ['text', 'template', 'image', 'audio', 'video', 'document'] as const;
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed'] as const;

export interface StoredAttachment {
  /** Inbound: the provider's media id (downloaded through the provider on demand); outbound: the uploaded id. */
  mediaId: string | null;
  filename: string | null;
  mimeType: string | null;
  size: number | null;
  caption?: string | null;
}

export const chatMessages = pgTable(
  'chat_messages',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    conversationId: bigint('conversation_id', { mode: 'number' }).notNull(),
    direction: text('direction', { enum: MESSAGE_DIRECTIONS }).notNull(),
    content: text('content').notNull().default(''),
    contentType: text('content_type', { enum: CONTENT_TYPES }).notNull(),
    attachments: jsonb('attachments').$type<StoredAttachment[]>().notNull().default([]),
    /** Outgoing templates: `{ name, language, category, processed_params }` as sent. */
    template: jsonb('template').$type<Record<string, unknown>>(),
    status: text('status', { enum: MESSAGE_STATUSES }).notNull(),
    error: text('error'),
    senderMembershipId: bigint('sender_membership_id', { mode: 'number' }),
    /** The provider's message id (`wamid.…`): an inbound message is stored once, whatever the retries. */
    providerMessageId: text('provider_message_id'),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('chat_messages_org_provider_id_key')
      .on(t.organizationId, t.providerMessageId)
      .where(sql`provider_message_id is not null`),
    index('chat_messages_org_conversation_idx').on(t.organizationId, t.conversationId, t.id.desc()),
    // The sends a crash left between their ledger row and the provider's answer (queued-sweep.ts): few, so small.
    index('chat_messages_queued_idx').on(t.createdAt).where(sql`status = 'queued'`),
    foreignKey({
      name: 'chat_messages_conversation_fk',
      columns: [t.organizationId, t.conversationId],
      foreignColumns: [conversations.organizationId, conversations.id],
    }).onDelete('cascade'),
  ],
);
