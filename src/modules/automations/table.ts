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

export const RUN_STATUSES = ['pending', 'succeeded', 'failed', 'skipped'] as const;

/** "When <event> (on <board>, if <conditions>), do <actions>" (docs/automations.md). */
export const automations = pgTable(
  'automations',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** Internal board id; null: any board (or a non-card event). */
    boardId: bigint('board_id', { mode: 'number' }),
    triggerEvent: text('trigger_event').notNull(),
    /** `[{ field, op, value }]` evaluated on the event's data. */
    conditions: jsonb('conditions').notNull().default([]),
    /** `[{ type, params }]`, as validated at save time (references kept as given: documentId or slug). */
    actions: jsonb('actions').notNull(),
    /** The admin who saved it: the actions run with this membership's current role and access. */
    actorMembershipId: bigint('actor_membership_id', { mode: 'number' }).notNull(),
    /** `whsec_…` signing its http_request actions (Standard Webhooks), sealed; shown once at creation. */
    secretSealed: text('secret_sealed').notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('automations_org_document_id_key').on(t.organizationId, t.documentId),
    index('automations_org_trigger_idx').on(t.organizationId, t.triggerEvent),
  ],
);

/**
 * One event for one automation: written by the event dispatcher (once: the key is automation + event), executed
 * by the runner in event order per record; each action's result is appended as it commits.
 */
export const automationRuns = pgTable(
  'automation_runs',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    automationId: bigint('automation_id', { mode: 'number' }).notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The record the event is about (`card:<documentId>`): runs of one subject go in order. */
    subject: text('subject').notNull(),
    event: jsonb('event').notNull(),
    depth: integer('depth').notNull().default(0),
    status: text('status').notNull().default('pending'),
    /** `[{ type, ok, message?, output? }]`, one per action done so far. */
    results: jsonb('results').notNull().default([]),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    message: text('message'),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('automation_runs_org_automation_event_key').on(t.organizationId, t.automationId, t.eventId),
    index('automation_runs_org_automation_idx').on(t.organizationId, t.automationId, t.id),
    index('automation_runs_pending_idx').on(t.organizationId, t.subject, t.id).where(sql`status = 'pending'`),
    foreignKey({
      name: 'automation_runs_automation_fk',
      columns: [t.organizationId, t.automationId],
      foreignColumns: [automations.organizationId, automations.id],
    }).onDelete('cascade'),
    check('automation_runs_status_check', inList('status', RUN_STATUSES)),
  ],
);
