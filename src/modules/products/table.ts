import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  foreignKey,
  index,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { productCategories } from '../product-categories/table.js';

const money = (name: string) => numeric(name, { precision: 14, scale: 2, mode: 'number' });

export const products = pgTable(
  'products',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    sku: text('sku').notNull(),
    price: money('price').notNull(),
    minPrice: money('min_price'),
    description: text('description'),
    unit: text('unit'),
    active: boolean('active').notNull().default(true),
    // A plain (NO ACTION) foreign key: deleting a category first unlinks its products in the same
    // transaction (a composite ON DELETE SET NULL would null organization_id too).
    categoryId: bigint('category_id', { mode: 'number' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('products_org_document_id_key').on(t.organizationId, t.documentId),
    // SKUs are codes people type: `ab-1` and `AB-1` are the same SKU.
    uniqueIndex('products_org_sku_key').on(t.organizationId, sql`lower(${t.sku})`),
    index('products_org_category_idx').on(t.organizationId, t.categoryId),
    index('products_org_name_idx').on(t.organizationId, t.name),
    foreignKey({
      name: 'products_category_fk',
      columns: [t.organizationId, t.categoryId],
      foreignColumns: [productCategories.organizationId, productCategories.id],
    }),
    check('products_price_check', sql`price >= 0`),
    check('products_min_price_check', sql`min_price is null or min_price >= 0`),
  ],
);
