import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
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
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { inList } from '../boards/table.js';

export const CONVERSION_EVENT_STATUSES = ['pending', 'sent', 'failed', 'skipped', 'test'] as const;

/** A Conversions API pixel fed by a board: each card meeting the trigger (won, or reaching a phase) is sent once. */
export const conversionPixels = pgTable(
  'conversion_pixels',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    pixelId: text('pixel_id').notNull(),
    /** Sealed (src/platform/secrets/encryption.ts); write-only. */
    accessTokenSealed: text('access_token_sealed').notNull(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    /** `won`, or `phase` with triggerPhaseId. */
    triggerType: text('trigger_type').notNull(),
    triggerPhaseId: bigint('trigger_phase_id', { mode: 'number' }),
    enabled: boolean('enabled').notNull().default(true),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('conversion_pixels_org_document_id_key').on(t.organizationId, t.documentId),
    index('conversion_pixels_org_board_idx').on(t.organizationId, t.boardId),
    check('conversion_pixels_trigger_check', inList('trigger_type', ['won', 'phase'])),
  ],
);

/** The event log: one row per card and trigger (the dedup key), plus the verify test events. */
export const conversionEvents = pgTable(
  'conversion_events',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    pixelId: bigint('pixel_id', { mode: 'number' }).notNull(),
    /** `<card documentId>:won` or `<card documentId>:phase:<phase documentId>`: the Conversions API event_id. */
    dedupId: text('dedup_id').notNull(),
    eventName: text('event_name').notNull(),
    cardDocumentId: text('card_document_id'),
    eventTime: timestamp('event_time', { withTimezone: true, mode: 'date' }).notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The event as sent (hashed user data only). */
    payload: jsonb('payload'),
    response: jsonb('response'),
    lastError: text('last_error'),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('conversion_events_org_pixel_dedup_key').on(t.organizationId, t.pixelId, t.dedupId),
    index('conversion_events_pending_idx').on(t.organizationId, t.id).where(sql`status = 'pending'`),
    foreignKey({
      name: 'conversion_events_pixel_fk',
      columns: [t.organizationId, t.pixelId],
      foreignColumns: [conversionPixels.organizationId, conversionPixels.id],
    }).onDelete('cascade'),
    check('conversion_events_status_check', inList('status', CONVERSION_EVENT_STATUSES)),
  ],
);
