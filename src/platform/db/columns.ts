import { bigint, text, timestamp } from 'drizzle-orm/pg-core';

/** Columns every tenant table starts with (DESIGN.md §4): the tenant, the internal id, the public id. */
export const tenantColumns = () => ({
  organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
  id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
  documentId: text('document_id').notNull(),
});

export const timestamps = () => ({
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
