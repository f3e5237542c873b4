import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { boards } from '../boards/table.js';
import { cards } from '../cards/table.js';
import { contactModel } from '../contacts/index.js';
import { contacts } from '../contacts/table.js';
import { organizations } from '../organizations/table.js';
import { pricedLineFields, sourceProductRelation } from '../products/index.js';
import { products } from '../products/table.js';
import { QUOTE_STATUSES, quoteCounters, quoteItems, quotes } from './table.js';

const cardLinkModel: QueryModel = {
  table: 'cards',
  // Only the identifier: filtering quotes by card titles would reveal cards of boards the caller cannot see.
  fields: { documentId: { column: 'document_id', type: 'string' } },
};

const quoteItemModel: QueryModel = {
  table: 'quote_items',
  fields: pricedLineFields,
  relations: sourceProductRelation,
};

export const quoteModel: QueryModel = {
  table: 'quotes',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    number: { column: 'number', type: 'number' },
    title: { column: 'title', type: 'string' },
    status: { column: 'status', type: 'string', values: QUOTE_STATUSES },
    validUntil: { column: 'valid_until', type: 'date' },
    currency: { column: 'currency', type: 'string' },
    notes: { column: 'notes', type: 'string', sortable: false },
    subtotal: { column: 'subtotal', type: 'number' },
    discount: { column: 'discount', type: 'number' },
    total: { column: 'total', type: 'number' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  relations: {
    card: {
      model: () => cardLinkModel,
      on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."card_id"`),
      foreignKey: 'card_id',
    },
    contact: {
      model: () => contactModel,
      on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."contact_id"`),
      foreignKey: 'contact_id',
    },
    items: {
      model: () => quoteItemModel,
      on: (outer, inner) => sql.raw(`"${inner}"."quote_id" = "${outer}"."id"`),
    },
  },
  // Items, card, contact and owner are always returned; `populate` naming them is accepted.
  populate: ['items', 'card', 'contact', 'owner'],
};

export type QuoteValues = Omit<
  typeof quotes.$inferInsert,
  'organizationId' | 'id' | 'documentId' | 'number' | 'createdAt' | 'updatedAt'
>;
export type ItemValues = Omit<
  typeof quoteItems.$inferInsert,
  'organizationId' | 'id' | 'documentId' | 'quoteId' | 'position'
>;

const quoteColumns = {
  id: quotes.id,
  documentId: quotes.documentId,
  number: quotes.number,
  title: quotes.title,
  status: quotes.status,
  validUntil: quotes.validUntil,
  currency: quotes.currency,
  notes: quotes.notes,
  cardId: quotes.cardId,
  contactId: quotes.contactId,
  ownerId: quotes.ownerId,
  subtotal: quotes.subtotal,
  discount: quotes.discount,
  total: quotes.total,
  createdAt: quotes.createdAt,
  updatedAt: quotes.updatedAt,
  cardDocumentId: cards.documentId,
  cardTitle: cards.title,
  cardValue: cards.value,
};

export interface QuoteRow {
  id: number;
  documentId: string;
  number: number;
  title: string | null;
  status: string;
  validUntil: string | null;
  currency: string;
  notes: string | null;
  cardId: number | null;
  contactId: number | null;
  ownerId: number | null;
  subtotal: number;
  discount: number;
  total: number;
  createdAt: Date;
  updatedAt: Date;
  cardDocumentId: string | null;
  cardTitle: string | null;
  cardValue: number | null;
}

function selectQuotes(tx: Tx) {
  return tx
    .select(quoteColumns)
    .from(quotes)
    .leftJoin(cards, and(eq(cards.organizationId, quotes.organizationId), eq(cards.id, quotes.cardId)));
}

/**
 * The organization's next quote number. The upsert locks the counter row until the transaction ends,
 * so concurrent creations queue here and each gets its own number; a rollback returns the number.
 */
export async function nextQuoteNumber(tx: Tx, orgId: number): Promise<number> {
  const [row] = await tx
    .insert(quoteCounters)
    .values({ organizationId: orgId, lastNumber: 1 })
    .onConflictDoUpdate({
      target: quoteCounters.organizationId,
      set: { lastNumber: sql`${quoteCounters.lastNumber} + 1` },
    })
    .returning({ number: quoteCounters.lastNumber });
  return row.number;
}

export async function insertQuote(tx: Tx, orgId: number, num: number, values: QuoteValues) {
  const [row] = await tx
    .insert(quotes)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId(), number: num })
    .returning({ id: quotes.id, documentId: quotes.documentId });
  return row;
}

/** `lock`: the quote row stays locked until the transaction ends (read-modify-write of items, totals). */
export async function findQuote(
  tx: Tx,
  orgId: number,
  documentId: string,
  lock = false,
): Promise<QuoteRow | undefined> {
  const query = selectQuotes(tx).where(
    and(eq(quotes.organizationId, orgId), eq(quotes.documentId, documentId)),
  );
  const [row] = lock ? await query.for('update', { of: quotes }) : await query;
  return row;
}

export async function listQuotes(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(quotes.organizationId, orgId), q.where);
  const rows = await selectQuotes(tx).where(where).orderBy(q.orderBy).offset(q.offset).limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(quotes).where(where));
  return { rows: rows as QuoteRow[], total };
}

export async function updateQuote(tx: Tx, orgId: number, id: number, values: Partial<QuoteValues>) {
  await tx
    .update(quotes)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(quotes.organizationId, orgId), eq(quotes.id, id)));
}

export async function deleteQuote(tx: Tx, orgId: number, id: number) {
  await tx.delete(quotes).where(and(eq(quotes.organizationId, orgId), eq(quotes.id, id)));
}

export async function replaceItems(tx: Tx, orgId: number, quoteId: number, items: ItemValues[]) {
  await tx
    .delete(quoteItems)
    .where(and(eq(quoteItems.organizationId, orgId), eq(quoteItems.quoteId, quoteId)));
  if (items.length === 0) return;
  await tx.insert(quoteItems).values(
    items.map((item, position) => ({
      ...item,
      organizationId: orgId,
      documentId: newDocumentId(),
      quoteId,
      position,
    })),
  );
}

export async function itemsOf(tx: Tx, orgId: number, quoteIds: number[]) {
  if (quoteIds.length === 0) return [];
  return tx
    .select({
      quoteId: quoteItems.quoteId,
      documentId: quoteItems.documentId,
      productDocumentId: products.documentId,
      name: quoteItems.name,
      sku: quoteItems.sku,
      unit: quoteItems.unit,
      quantity: quoteItems.quantity,
      unitPrice: quoteItems.unitPrice,
      discount: quoteItems.discount,
      total: quoteItems.total,
    })
    .from(quoteItems)
    .leftJoin(
      products,
      and(eq(products.organizationId, quoteItems.organizationId), eq(products.id, quoteItems.productId)),
    )
    .where(and(eq(quoteItems.organizationId, orgId), inArray(quoteItems.quoteId, quoteIds)))
    .orderBy(asc(quoteItems.quoteId), asc(quoteItems.position));
}

/** A card named by documentId with its board's documentId and currency (access is checked by the caller). */
export async function findCardLink(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select({
      id: cards.id,
      boardDocumentId: boards.documentId,
      currency: boards.currency,
    })
    .from(cards)
    .innerJoin(boards, and(eq(boards.organizationId, cards.organizationId), eq(boards.id, cards.boardId)))
    .where(and(eq(cards.organizationId, orgId), eq(cards.documentId, documentId)));
  return row;
}

/** What a quote document shows about its contact. */
export async function contactDetails(tx: Tx, orgId: number, id: number) {
  const [row] = await tx
    .select({
      documentId: contacts.documentId,
      name: contacts.name,
      email: contacts.email,
      phone: contacts.phone,
      address: contacts.address,
      city: contacts.city,
      state: contacts.state,
      country: contacts.country,
      postalCode: contacts.postalCode,
    })
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), eq(contacts.id, id)));
  return row;
}

export async function organizationName(tx: Tx, orgId: number) {
  const [row] = await tx
    .select({ name: organizations.name, slug: organizations.slug })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return row;
}
