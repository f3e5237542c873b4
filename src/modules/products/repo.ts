import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import {
  type CompiledList,
  countIf,
  type FieldDef,
  type QueryModel,
  type RelationDef,
} from '../../platform/http/list-query.js';
import { categoryModel } from '../product-categories/index.js';
import { productCategories } from '../product-categories/table.js';
import { cardProducts, products } from './table.js';

export const productModel: QueryModel = {
  table: 'products',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    sku: { column: 'sku', type: 'string' },
    price: { column: 'price', type: 'number' },
    minPrice: { column: 'min_price', type: 'number' },
    description: { column: 'description', type: 'string', sortable: false },
    unit: { column: 'unit', type: 'string' },
    active: { column: 'active', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  relations: {
    category: {
      model: () => categoryModel,
      on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."category_id"`),
      foreignKey: 'category_id',
    },
  },
  // The category is always returned; `populate=category` is accepted for Strapi clients.
  populate: ['category'],
};

export type ProductValues = Omit<typeof products.$inferInsert, 'organizationId' | 'id' | 'documentId'>;

const columns = {
  id: products.id,
  documentId: products.documentId,
  name: products.name,
  sku: products.sku,
  price: products.price,
  minPrice: products.minPrice,
  description: products.description,
  unit: products.unit,
  active: products.active,
  categoryId: products.categoryId,
  categoryDocumentId: productCategories.documentId,
  categoryName: productCategories.name,
  createdAt: products.createdAt,
  updatedAt: products.updatedAt,
};
export interface ProductRow {
  id: number;
  documentId: string;
  name: string;
  sku: string;
  price: number;
  minPrice: number | null;
  description: string | null;
  unit: string | null;
  active: boolean;
  categoryId: number | null;
  categoryDocumentId: string | null;
  categoryName: string | null;
  createdAt: Date;
  updatedAt: Date;
}

function selectProducts(tx: Tx) {
  // The join is tenant-led like every key: the category must belong to the product's organization.
  return tx
    .select(columns)
    .from(products)
    .leftJoin(
      productCategories,
      and(
        eq(productCategories.organizationId, products.organizationId),
        eq(productCategories.id, products.categoryId),
      ),
    );
}

export async function insertProduct(tx: Tx, orgId: number, values: ProductValues) {
  const [row] = await tx
    .insert(products)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .returning({ documentId: products.documentId });
  return (await findProduct(tx, orgId, row.documentId))!;
}

export async function findProduct(
  tx: Tx,
  orgId: number,
  documentId: string,
): Promise<ProductRow | undefined> {
  const [row] = await selectProducts(tx).where(
    and(eq(products.organizationId, orgId), eq(products.documentId, documentId)),
  );
  return row;
}

/** Products named by documentId, for quote and card lines; the caller reports the missing ones. */
export async function findProductsByDocumentIds(tx: Tx, orgId: number, documentIds: string[]) {
  if (documentIds.length === 0) return new Map<string, ProductRow>();
  const rows = await selectProducts(tx).where(
    and(eq(products.organizationId, orgId), inArray(products.documentId, [...new Set(documentIds)])),
  );
  return new Map(rows.map((r) => [r.documentId, r]));
}

/** documentIds of products by internal id (lines show which product they came from). */
export async function productDocumentIds(tx: Tx, orgId: number, ids: number[]) {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map<number, string>();
  const rows = await tx
    .select({ id: products.id, documentId: products.documentId })
    .from(products)
    .where(and(eq(products.organizationId, orgId), inArray(products.id, unique)));
  return new Map(rows.map((r) => [r.id, r.documentId]));
}

export async function listProducts(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(products.organizationId, orgId), q.where);
  const rows = await selectProducts(tx).where(where).orderBy(q.orderBy).offset(q.offset).limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(products).where(where));
  return { rows, total };
}

export async function updateProduct(tx: Tx, orgId: number, id: number, values: Partial<ProductValues>) {
  await tx
    .update(products)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(products.organizationId, orgId), eq(products.id, id)));
}

export async function deleteProduct(tx: Tx, orgId: number, id: number) {
  await tx.delete(products).where(and(eq(products.organizationId, orgId), eq(products.id, id)));
}

export async function categoryIdByDocumentId(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select({ id: productCategories.id })
    .from(productCategories)
    .where(and(eq(productCategories.organizationId, orgId), eq(productCategories.documentId, documentId)));
  return row?.id;
}

// ---- lines on cards

/** The list-query fields of a priced line (card product lines, quote items; same columns in both tables). */
export const pricedLineFields: Record<string, FieldDef> = {
  name: { column: 'name', type: 'string' },
  sku: { column: 'sku', type: 'string' },
  quantity: { column: 'quantity', type: 'number' },
  unitPrice: { column: 'unit_price', type: 'number' },
  discount: { column: 'discount', type: 'number' },
  total: { column: 'total', type: 'number' },
};

/** A priced line's source product, for filters like `filters[product][sku]`. */
export const sourceProductRelation: Record<string, RelationDef> = {
  product: {
    model: () => productModel,
    on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."product_id"`),
    foreignKey: 'product_id',
  },
};

export const cardLineModel: QueryModel = {
  table: 'card_products',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    ...pricedLineFields,
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  relations: sourceProductRelation,
};

export type CardLineValues = Pick<
  typeof cardProducts.$inferInsert,
  'productId' | 'name' | 'sku' | 'unit' | 'quantity' | 'unitPrice' | 'discount' | 'total'
>;

const lineColumns = {
  id: cardProducts.id,
  documentId: cardProducts.documentId,
  productId: cardProducts.productId,
  productDocumentId: products.documentId,
  name: cardProducts.name,
  sku: cardProducts.sku,
  unit: cardProducts.unit,
  quantity: cardProducts.quantity,
  unitPrice: cardProducts.unitPrice,
  discount: cardProducts.discount,
  total: cardProducts.total,
  createdAt: cardProducts.createdAt,
  updatedAt: cardProducts.updatedAt,
};

function selectLines(tx: Tx) {
  return tx
    .select(lineColumns)
    .from(cardProducts)
    .leftJoin(
      products,
      and(eq(products.organizationId, cardProducts.organizationId), eq(products.id, cardProducts.productId)),
    );
}
export type CardLineRow = Awaited<ReturnType<ReturnType<typeof selectLines>['execute']>>[number];

const lineOfCard = (orgId: number, cardId: number) =>
  and(eq(cardProducts.organizationId, orgId), eq(cardProducts.cardId, cardId));

export async function insertCardLine(tx: Tx, orgId: number, cardId: number, values: CardLineValues) {
  const [row] = await tx
    .insert(cardProducts)
    .values({ ...values, organizationId: orgId, cardId, documentId: newDocumentId() })
    .returning({ documentId: cardProducts.documentId });
  return (await findCardLine(tx, orgId, cardId, row.documentId))!;
}

export async function findCardLine(tx: Tx, orgId: number, cardId: number, documentId: string) {
  const [row] = await selectLines(tx).where(
    and(lineOfCard(orgId, cardId), eq(cardProducts.documentId, documentId)),
  );
  return row;
}

export async function listCardLines(tx: Tx, orgId: number, cardId: number, q: CompiledList) {
  const where = and(lineOfCard(orgId, cardId), q.where);
  const rows = await selectLines(tx).where(where).orderBy(q.orderBy).offset(q.offset).limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(cardProducts).where(where));
  return { rows, total };
}

export async function updateCardLine(tx: Tx, orgId: number, id: number, values: CardLineValues) {
  await tx
    .update(cardProducts)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(cardProducts.organizationId, orgId), eq(cardProducts.id, id)));
}

export async function deleteCardLine(tx: Tx, orgId: number, id: number) {
  await tx.delete(cardProducts).where(and(eq(cardProducts.organizationId, orgId), eq(cardProducts.id, id)));
}

/** Totals over every line of a card; line grosses are rounded like the lines themselves (half-up). */
export async function cardLineTotals(tx: Tx, orgId: number, cardId: number) {
  const [row] = await tx
    .select({
      subtotal: sql<string>`coalesce(sum(round(${cardProducts.quantity} * ${cardProducts.unitPrice}, 2)), 0)`,
      total: sql<string>`coalesce(sum(${cardProducts.total}), 0)`,
    })
    .from(cardProducts)
    .where(lineOfCard(orgId, cardId));
  const subtotal = Number(row.subtotal);
  const total = Number(row.total);
  return { subtotal, discount: Math.round((subtotal - total) * 100) / 100, total };
}
