import {
  bigint,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { boards } from '../boards/table.js';

/**
 * Messaging channels (WhatsApp number, e-mail sender, SMS sender). `credentials` is the sealed JSON of the
 * provider secrets (platform/secrets/encryption.ts, bound to the organization and the channel): write-only
 * through the API, never selected into a response.
 */
export const chatChannels = pgTable(
  'chat_channels',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    type: text('type', { enum: ['whatsapp', 'email', 'sms'] }).notNull(),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    credentials: text('credentials'),
    /**
     * The channel's send clock for campaign throttling, shared by every worker process: a dispatcher books
     * `n / ratePerSecond` seconds from here (one UPDATE) and sends its batch when its slot starts.
     */
    sendWindowAt: timestamp('send_window_at', { withTimezone: true, mode: 'date' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('chat_channels_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('chat_channels_org_name_key').on(t.organizationId, t.name),
    index('chat_channels_org_type_idx').on(t.organizationId, t.type),
  ],
);

/**
 * WhatsApp's per-recipient pace (docs/messaging.md, "WhatsApp limits"): the earliest time the next message from this
 * channel (one business number) may leave for one person. `recipient` is a SHA-256 of the number, not the number:
 * rows are pruned by the maintenance a minute after they pass. Every sender (campaigns, automations, the inbox)
 * books or takes its slot here in one statement, so every worker process shares it.
 */
export const channelRecipientClocks = pgTable(
  'channel_recipient_clocks',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    channelId: bigint('channel_id', { mode: 'number' }).notNull(),
    recipient: text('recipient').notNull(),
    nextAt: timestamp('next_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.channelId, t.recipient] }),
    foreignKey({
      name: 'channel_recipient_clocks_channel_fk',
      columns: [t.organizationId, t.channelId],
      foreignColumns: [chatChannels.organizationId, chatChannels.id],
    }).onDelete('cascade'),
  ],
);

/** Channels linked to a board (GET|PUT /boards/{boardId}/chat-channels). */
export const boardChatChannels = pgTable(
  'board_chat_channels',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    channelId: bigint('channel_id', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.boardId, t.channelId] }),
    index('board_chat_channels_org_channel_idx').on(t.organizationId, t.channelId),
    foreignKey({
      name: 'board_chat_channels_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'board_chat_channels_channel_fk',
      columns: [t.organizationId, t.channelId],
      foreignColumns: [chatChannels.organizationId, chatChannels.id],
    }).onDelete('cascade'),
  ],
);
