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

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** An endpoint that receives the organization's events, signed with its secret (Standard Webhooks). */
export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    ...tenantColumns(),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** `whsec_…`, sealed with the instance key (src/platform/secrets/encryption.ts); shown once at creation. */
    secretSealed: text('secret_sealed').notNull(),
    /** Failed attempts in a row; at the limit the subscription is disabled until it is enabled again. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    disabledReason: text('disabled_reason'),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('webhook_subscriptions_org_document_id_key').on(t.organizationId, t.documentId),
  ],
);

/** One event for one subscription: attempted in event order per record, retried with backoff. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    subscriptionId: bigint('subscription_id', { mode: 'number' }).notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The event's record (`card:<documentId>`, …): one record's deliveries go one after another, in order. */
    subject: text('subject').notNull().default(''),
    /** The exact body sent (and signed) on every attempt. */
    payload: jsonb('payload').notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('webhook_deliveries_org_subscription_event_key').on(
      t.organizationId,
      t.subscriptionId,
      t.eventId,
    ),
    index('webhook_deliveries_org_pending_idx')
      .on(t.organizationId, t.subscriptionId, t.id)
      .where(sql`status = 'pending'`),
    foreignKey({
      name: 'webhook_deliveries_subscription_fk',
      columns: [t.organizationId, t.subscriptionId],
      foreignColumns: [webhookSubscriptions.organizationId, webhookSubscriptions.id],
    }).onDelete('cascade'),
    check('webhook_deliveries_status_check', inList('status', DELIVERY_STATUSES)),
  ],
);
