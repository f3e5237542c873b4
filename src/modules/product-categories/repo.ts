import { and, count, eq } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { products } from '../products/table.js';
import type { CategoryInput } from './schema.js';
import { productCategories } from './table.js';

export const categoryModel: QueryModel = {
  table: 'product_categories',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
};

export type CategoryRow = typeof productCategories.$inferSelect;

const byDocumentId = (orgId: number, documentId: string) =>
  and(eq(productCategories.organizationId, orgId), eq(productCategories.documentId, documentId));

export async function insertCategory(tx: Tx, orgId: number, input: CategoryInput) {
  const [row] = await tx
    .insert(productCategories)
    .values({ organizationId: orgId, documentId: newDocumentId(), ...input })
    .returning();
  return row;
}

export async function findCategory(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx.select().from(productCategories).where(byDocumentId(orgId, documentId));
  return row;
}

export async function listCategories(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(productCategories.organizationId, orgId), q.where);
  const rows = await tx
    .select()
    .from(productCategories)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(productCategories).where(where));
  return { rows, total };
}

export async function updateCategory(tx: Tx, orgId: number, documentId: string, input: CategoryInput) {
  const [row] = await tx
    .update(productCategories)
    .set({ ...input, updatedAt: new Date() })
    .where(byDocumentId(orgId, documentId))
    .returning();
  return row;
}

/** Unlinks the category's products, then deletes it; answers whether it existed. */
export async function deleteCategory(tx: Tx, orgId: number, documentId: string) {
  const row = await findCategory(tx, orgId, documentId);
  if (!row) return false;
  await tx
    .update(products)
    .set({ categoryId: null, updatedAt: new Date() })
    .where(and(eq(products.organizationId, orgId), eq(products.categoryId, row.id)));
  await tx
    .delete(productCategories)
    .where(and(eq(productCategories.organizationId, orgId), eq(productCategories.id, row.id)));
  return true;
}
