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
import { tenantColumns } from '../../platform/db/columns.js';
import { memberships } from '../organizations/table.js';

/** What a notification is about; `label` is the subject's name when it was made (a card's title, a task's name). */
export interface NotificationSubject {
  kind: string;
  documentId: string;
  label?: string;
  /** A card's board and, for a mention, the comment. */
  boardDocumentId?: string;
  commentDocumentId?: string;
}

/** In-app notifications of one member: task reminders and mentions in comments. */
export const notifications = pgTable(
  'notifications',
  {
    ...tenantColumns(),
    membershipId: bigint('membership_id', { mode: 'number' }).notNull(),
    type: text('type').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull().default(''),
    /** What it is about: `{ kind: 'task' | 'card', documentId, label?, … }` (NotificationSubject). */
    subject: jsonb('subject').$type<NotificationSubject>().notNull(),
    /**
     * Who caused it (a comment's author), when someone did; no foreign key, so that the notification outlives the
     * membership (the reference then reads as null).
     */
    actorMembershipId: bigint('actor_membership_id', { mode: 'number' }),
    /** A retried job must not notify twice: one notification per member and key. */
    dedupeKey: text('dedupe_key').notNull(),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('notifications_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('notifications_org_member_dedupe_key').on(t.organizationId, t.membershipId, t.dedupeKey),
    index('notifications_org_member_created_idx').on(t.organizationId, t.membershipId, t.createdAt),
    // Every member's notification of one key: a mention's, rewritten or deleted with its comment.
    index('notifications_org_dedupe_idx').on(t.organizationId, t.dedupeKey),
    foreignKey({
      name: 'notifications_membership_fk',
      columns: [t.organizationId, t.membershipId],
      foreignColumns: [memberships.organizationId, memberships.id],
    }).onDelete('cascade'),
  ],
);
