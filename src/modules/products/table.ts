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
import { cards } from '../cards/table.js';
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
    // The list's default order `name ASC NULLS FIRST, id ASC` exactly (docs/performance.md); backwards, name:desc.
    index('products_org_name_idx').on(t.organizationId, t.name.asc().nullsFirst(), t.id.asc()),
    foreignKey({
      name: 'products_category_fk',
      columns: [t.organizationId, t.categoryId],
      foreignColumns: [productCategories.organizationId, productCategories.id],
    }),
    check('products_price_check', sql`price >= 0`),
    check('products_min_price_check', sql`min_price is null or min_price >= 0`),
  ],
);

/**
 * Products on a card (line items of boards with `enableProducts`). Like quote lines, a line copies the
 * product's name, SKU and unit when written; `product_id` has no foreign key, so deleting a product
 * leaves the line (and the card value) as it was.
 */
export const cardProducts = pgTable(
  'card_products',
  {
    ...tenantColumns(),
    cardId: bigint('card_id', { mode: 'number' }).notNull(),
    productId: bigint('product_id', { mode: 'number' }),
    name: text('name').notNull(),
    sku: text('sku').notNull(),
    unit: text('unit'),
    quantity: numeric('quantity', { precision: 14, scale: 3, mode: 'number' }).notNull(),
    unitPrice: money('unit_price').notNull(),
    /** Percentage 0..100 off the line. */
    discount: numeric('discount', { precision: 5, scale: 2, mode: 'number' }).notNull().default(0),
    total: money('total').notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('card_products_org_document_id_key').on(t.organizationId, t.documentId),
    index('card_products_org_card_idx').on(t.organizationId, t.cardId),
    index('card_products_org_product_idx').on(t.organizationId, t.productId),
    foreignKey({
      name: 'card_products_card_fk',
      columns: [t.organizationId, t.cardId],
      foreignColumns: [cards.organizationId, cards.id],
    }).onDelete('cascade'),
    check('card_products_quantity_check', sql`quantity > 0`),
    check('card_products_discount_check', sql`discount between 0 and 100`),
  ],
);
