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
