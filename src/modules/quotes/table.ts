import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  date,
  foreignKey,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';

export const QUOTE_STATUSES = ['draft', 'sent', 'accepted', 'rejected', 'expired'] as const;

const money = (name: string) => numeric(name, { precision: 14, scale: 2, mode: 'number' });

/**
 * The last quote number of each organization. The next number is taken with one
 * `INSERT … ON CONFLICT DO UPDATE … RETURNING`, which locks the row until the transaction ends:
 * concurrent quotes get distinct, gap-free numbers (a rolled-back quote gives its number back).
 */
export const quoteCounters = pgTable('quote_counters', {
  organizationId: bigint('organization_id', { mode: 'number' }).primaryKey(),
  lastNumber: integer('last_number').notNull(),
});

export const quotes = pgTable(
  'quotes',
  {
    ...tenantColumns(),
    number: integer('number').notNull(),
    title: text('title'),
    status: text('status').notNull().default('draft'),
    validUntil: date('valid_until', { mode: 'string' }),
    currency: text('currency').notNull().default('USD'),
    notes: text('notes'),
    // Links carry no foreign key (cards and contacts are deleted by their own areas); a link to a
    // record that is gone reads back as null.
    cardId: bigint('card_id', { mode: 'number' }),
    contactId: bigint('contact_id', { mode: 'number' }),
    /** The membership that created the quote; no foreign key, like every MembershipRef. */
    ownerId: bigint('owner_id', { mode: 'number' }),
    subtotal: money('subtotal').notNull().default(0),
    discount: money('discount').notNull().default(0),
    total: money('total').notNull().default(0),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('quotes_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('quotes_org_number_key').on(t.organizationId, t.number),
    index('quotes_org_card_idx').on(t.organizationId, t.cardId),
    index('quotes_org_contact_idx').on(t.organizationId, t.contactId),
    // `sort=createdAt:desc` exactly (`created_at DESC NULLS LAST, id DESC`); backwards, createdAt:asc.
    index('quotes_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsLast(),
      t.id.desc().nullsFirst(),
    ),
    // The list's default order `number DESC NULLS LAST, id DESC` exactly (the unique key has no id).
    index('quotes_org_number_idx').on(
      t.organizationId,
      t.number.desc().nullsLast(),
      t.id.desc().nullsFirst(),
    ),
    check('quotes_status_check', sql.raw(`status in (${QUOTE_STATUSES.map((s) => `'${s}'`).join(', ')})`)),
  ],
);

/**
 * Quote lines. Name and SKU are copied from the product when the line is written: a quote is a
 * document, and renaming or deleting a product later must not rewrite what was offered.
 */
export const quoteItems = pgTable(
  'quote_items',
  {
    ...tenantColumns(),
    quoteId: bigint('quote_id', { mode: 'number' }).notNull(),
    position: integer('position').notNull(),
    /** products.id; no foreign key: a deleted product leaves the line (with its copied name/SKU). */
    productId: bigint('product_id', { mode: 'number' }),
    name: text('name').notNull(),
    sku: text('sku').notNull(),
    unit: text('unit'),
    quantity: numeric('quantity', { precision: 14, scale: 3, mode: 'number' }).notNull(),
    unitPrice: money('unit_price').notNull(),
    /** Percentage 0..100 off the line. */
    discount: numeric('discount', { precision: 5, scale: 2, mode: 'number' }).notNull().default(0),
    total: money('total').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('quote_items_org_document_id_key').on(t.organizationId, t.documentId),
    index('quote_items_org_quote_idx').on(t.organizationId, t.quoteId, t.position),
    index('quote_items_org_product_idx').on(t.organizationId, t.productId),
    foreignKey({
      name: 'quote_items_quote_fk',
      columns: [t.organizationId, t.quoteId],
      foreignColumns: [quotes.organizationId, quotes.id],
    }).onDelete('cascade'),
    check('quote_items_quantity_check', sql`quantity > 0`),
    check('quote_items_discount_check', sql`discount between 0 and 100`),
  ],
);
