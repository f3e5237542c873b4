import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  foreignKey,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { boards, inList } from '../boards/table.js';
import { chatInboxes } from '../inbox/table.js';
import { memberships } from '../organizations/table.js';

export const DISTRIBUTION_STRATEGIES = ['round_robin', 'weighted', 'least_open'] as const;

/**
 * Who gets the next unassigned card of a board, or the next new conversation of an inbox (DESIGN.md §11,
 * "Distribution"). A queue targets exactly one of the two; one queue per board, one per inbox.
 */
export const distributionQueues = pgTable(
  'distribution_queues',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    boardId: bigint('board_id', { mode: 'number' }),
    /** chat_inboxes.id: its new inbound conversations are assigned (docs/distribution.md, "Inboxes"). */
    inboxId: bigint('inbox_id', { mode: 'number' }),
    strategy: text('strategy').notNull(),
    active: boolean('active').notNull().default(true),
    /** round_robin: the membership that got the last card; the next one after it gets the next. */
    lastMembershipId: bigint('last_membership_id', { mode: 'number' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('distribution_queues_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('distribution_queues_org_board_key').on(t.organizationId, t.boardId),
    uniqueIndex('distribution_queues_org_inbox_key').on(t.organizationId, t.inboxId),
    foreignKey({
      name: 'distribution_queues_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'distribution_queues_inbox_fk',
      columns: [t.organizationId, t.inboxId],
      foreignColumns: [chatInboxes.organizationId, chatInboxes.id],
    }).onDelete('cascade'),
    check('distribution_queues_target_check', sql`(board_id is null) <> (inbox_id is null)`),
    check('distribution_queues_strategy_check', inList('strategy', DISTRIBUTION_STRATEGIES)),
  ],
);

export const distributionQueueMembers = pgTable(
  'distribution_queue_members',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    queueId: bigint('queue_id', { mode: 'number' }).notNull(),
    membershipId: bigint('membership_id', { mode: 'number' }).notNull(),
    weight: integer('weight').notNull().default(1),
    active: boolean('active').notNull().default(true),
    /** weighted: the smooth weighted round-robin's running weight (nginx's algorithm). */
    currentWeight: integer('current_weight').notNull().default(0),
    assignedCount: integer('assigned_count').notNull().default(0),
    lastAssignedAt: timestamp('last_assigned_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.queueId, t.membershipId] }),
    foreignKey({
      name: 'distribution_queue_members_queue_fk',
      columns: [t.organizationId, t.queueId],
      foreignColumns: [distributionQueues.organizationId, distributionQueues.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'distribution_queue_members_membership_fk',
      columns: [t.organizationId, t.membershipId],
      foreignColumns: [memberships.organizationId, memberships.id],
    }).onDelete('cascade'),
    check('distribution_queue_members_weight_check', sql`weight between 1 and 100`),
  ],
);
