import { bigint, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The outbox (DESIGN.md §11, "Events"): one row per domain change, written by the change's own transaction, so
 * an event exists exactly when its change committed. A row is never updated: which events wait for the dispatcher
 * is the narrow domain_events_pending below (docs/decisions.md, "The outbox's pending events, a table of their own").
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
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.id] })],
);

/**
 * The events not yet dispatched, one narrow row each, written with the event (src/platform/events/outbox.ts) and
 * deleted by the dispatcher in the transaction that fans the event out to its consumers
 * (src/platform/events/dispatch.ts). Marking a 1 KB event row dispatched rewrote the whole row and its index entry;
 * deleting a 40-byte row here costs a fraction of that, and the events' own rows stay as written. The service
 * vacuums it itself (a bookkeeping table of the events registration).
 */
export const domainEventsPending = pgTable(
  'domain_events_pending',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    /** domain_events.id of the waiting event. */
    id: bigint('id', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.id] })],
);
