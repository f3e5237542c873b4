import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import type { CompiledList, QueryModel } from '../../platform/http/list-query.js';
import { categoryModel } from '../product-categories/repo.js';
import { productCategories } from '../product-categories/table.js';
import { products } from './table.js';

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
  const [{ total }] = await tx.select({ total: count() }).from(products).where(where);
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
