import { bigint, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** Deletions and other notable changes, written in the same transaction as the change (DESIGN.md §4). */
export const auditLog = pgTable(
  'audit_log',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    actorUserId: bigint('actor_user_id', { mode: 'number' }),
    action: text('action').notNull(),
    entityDocumentId: text('entity_document_id'),
    data: jsonb('data'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('audit_log_org_created_idx').on(t.organizationId, t.createdAt),
  ],
);
