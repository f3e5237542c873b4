import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { inList } from '../boards/table.js';
import { cards } from '../cards/table.js';
import { memberships } from '../organizations/table.js';

export const TASK_TYPES = ['reminder', 'follow-up', 'action', 'other'] as const;
export const TASK_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export const TASK_RECURRENCES = ['none', 'daily', 'weekly', 'monthly'] as const;

export const tasks = pgTable(
  'tasks',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    description: text('description'),
    dueDate: timestamp('due_date', { withTimezone: true, mode: 'date' }),
    type: text('type').notNull().default('reminder'),
    taskStatus: text('task_status').notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    cardId: bigint('card_id', { mode: 'number' }),
    priority: text('priority').notNull().default('medium'),
    recurrence: text('recurrence').notNull().default('none'),
    recurrenceInterval: integer('recurrence_interval').notNull().default(1),
    /** The first task of a recurring series (null on the first one itself). */
    recurrenceParentId: bigint('recurrence_parent_id', { mode: 'number' }),
    occurrenceNumber: integer('occurrence_number').notNull().default(1),
    /** The pg-boss job that will send the due-date reminder. */
    reminderJobId: text('reminder_job_id'),
    createdByMembershipId: bigint('created_by_membership_id', { mode: 'number' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('tasks_org_document_id_key').on(t.organizationId, t.documentId),
    // One next occurrence per series step, whatever the concurrency (docs/jobs-mail-tasks.md).
    uniqueIndex('tasks_org_recurrence_occurrence_key').on(
      t.organizationId,
      t.recurrenceParentId,
      t.occurrenceNumber,
    ),
    index('tasks_org_due_idx').on(t.organizationId, t.dueDate),
    index('tasks_org_card_idx').on(t.organizationId, t.cardId),
    // The list's default order, exactly (`created_at DESC NULLS LAST, id DESC`: docs/performance.md): a page is an
    // index walk that stops when full; scanned backwards it serves `createdAt:asc` (ASC NULLS FIRST, id ASC) too.
    index('tasks_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsLast(),
      t.id.desc().nullsFirst(),
    ),
    foreignKey({
      name: 'tasks_card_fk',
      columns: [t.organizationId, t.cardId],
      foreignColumns: [cards.organizationId, cards.id],
    }).onDelete('cascade'),
    check('tasks_type_check', inList('type', TASK_TYPES)),
    check('tasks_priority_check', inList('priority', TASK_PRIORITIES)),
    check('tasks_recurrence_check', inList('recurrence', TASK_RECURRENCES)),
    check('tasks_recurrence_interval_check', sql`recurrence_interval between 1 and 365`),
  ],
);

export const taskAssignees = pgTable(
  'task_assignees',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    taskId: bigint('task_id', { mode: 'number' }).notNull(),
    membershipId: bigint('membership_id', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.taskId, t.membershipId] }),
    index('task_assignees_org_membership_idx').on(t.organizationId, t.membershipId, t.taskId),
    foreignKey({
      name: 'task_assignees_task_fk',
      columns: [t.organizationId, t.taskId],
      foreignColumns: [tasks.organizationId, tasks.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'task_assignees_membership_fk',
      columns: [t.organizationId, t.membershipId],
      foreignColumns: [memberships.organizationId, memberships.id],
    }).onDelete('cascade'),
  ],
);
