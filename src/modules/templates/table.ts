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
import { chatChannels } from '../channels/table.js';

/** WhatsApp message templates of a channel: submitted to and synced from the provider (its id in external_id). */
export const whatsappTemplates = pgTable(
  'whatsapp_templates',
  {
    ...tenantColumns(),
    channelId: bigint('channel_id', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    language: text('language').notNull(),
    category: text('category').notNull(),
    status: text('status').notNull(),
    components: jsonb('components').$type<Record<string, unknown>[]>().notNull().default([]),
    externalId: text('external_id'),
    syncedAt: timestamp('synced_at', { withTimezone: true, mode: 'date' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('whatsapp_templates_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('whatsapp_templates_org_channel_name_language_key').on(
      t.organizationId,
      t.channelId,
      t.name,
      t.language,
    ),
    index('whatsapp_templates_org_channel_idx').on(t.organizationId, t.channelId),
    foreignKey({
      name: 'whatsapp_templates_channel_fk',
      columns: [t.organizationId, t.channelId],
      foreignColumns: [chatChannels.organizationId, chatChannels.id],
    }).onDelete('cascade'),
  ],
);
