import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/**
 * The outbox (DESIGN.md §11, "Events"): one row per domain change, written by the change's own transaction, so
 * an event exists exactly when its change committed. The dispatcher fans undispatched rows out to their
 * consumers (webhook deliveries, automation runs: src/platform/events/dispatch.ts) in id order, then marks them dispatched.
 */
export const domainEvents = pgTable(
  'domain_events',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    /** The public id of the event (webhook-id): stable across retries. */
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    /** `card:<documentId>`, `contact:<documentId>`, …: events of one subject are delivered in order. */
    subject: text('subject').notNull(),
    data: jsonb('data').notNull(),
    /** How deep in a chain of automations the change was made (0: not by an automation); the loop guard's input. */
    depth: integer('depth').notNull().default(0),
    dispatched: boolean('dispatched').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('domain_events_org_pending_idx').on(t.organizationId, t.id).where(sql`not dispatched`),
  ],
);
