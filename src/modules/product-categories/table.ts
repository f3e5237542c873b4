import { pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';

export const productCategories = pgTable(
  'product_categories',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('product_categories_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('product_categories_org_name_key').on(t.organizationId, t.name),
  ],
);
