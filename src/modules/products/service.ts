import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { AppError, onUnique, validationError } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, paginated } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import * as repo from './repo.js';
import type { Product, ProductInput, ProductUpdate } from './schema.js';

const notFound = () => new AppError('NotFoundError', 'Product not found');

export function toProduct(row: repo.ProductRow): Product {
  return {
    documentId: row.documentId,
    name: row.name,
    sku: row.sku,
    price: row.price,
    minPrice: row.minPrice,
    description: row.description,
    unit: row.unit,
    active: row.active,
    category:
      row.categoryDocumentId && row.categoryName
        ? { documentId: row.categoryDocumentId, name: row.categoryName }
        : null,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

export async function listProducts(ctx: TenantContext, query: ListQueryInput) {
  const q = compileListQuery(repo.productModel, query, 'name:asc');
  const { rows, total } = await ctx.transaction((tx) => repo.listProducts(tx, ctx.orgId, q));
  return paginated(rows.map(toProduct), total, q.page, q.pageSize);
}

export async function getProduct(ctx: TenantContext, documentId: string) {
  const row = await ctx.transaction((tx) => repo.findProduct(tx, ctx.orgId, documentId));
  if (!row) throw notFound();
  return toProduct(row);
}

export async function createProduct(ctx: TenantContext, input: ProductInput) {
  requireRole(ctx, 'admin');
  checkMinPrice(input.price, input.minPrice ?? null);
  return ctx.transaction(async (tx) => {
    const { category, ...values } = input;
    const row = await repo
      .insertProduct(tx, ctx.orgId, { ...values, categoryId: await categoryId(tx, ctx, category) })
      .catch(onWriteError);
    await audit(tx, ctx, 'product.created', row.documentId);
    return toProduct(row);
  });
}

export async function updateProduct(ctx: TenantContext, documentId: string, input: ProductUpdate) {
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const current = await repo.findProduct(tx, ctx.orgId, documentId);
    if (!current) throw notFound();
    checkMinPrice(
      input.price ?? current.price,
      input.minPrice === undefined ? current.minPrice : input.minPrice,
    );
    const { category, ...values } = input;
    const patch =
      category === undefined ? values : { ...values, categoryId: await categoryId(tx, ctx, category) };
    await repo.updateProduct(tx, ctx.orgId, current.id, patch).catch(onWriteError);
    await audit(tx, ctx, 'product.updated', documentId, { fields: Object.keys(input) });
    return toProduct((await repo.findProduct(tx, ctx.orgId, documentId))!);
  });
}

export async function deleteProduct(ctx: TenantContext, documentId: string) {
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await repo.findProduct(tx, ctx.orgId, documentId);
    if (!row) throw notFound();
    await repo.deleteProduct(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'product.deleted', documentId, { sku: row.sku, name: row.name });
    return { documentId, deleted: true as const };
  });
}

function checkMinPrice(price: number, minPrice: number | null) {
  if (minPrice !== null && minPrice > price) {
    throw validationError('minPrice cannot exceed price', [
      { path: ['minPrice'], message: `must be at most the price (${price})` },
    ]);
  }
}

async function categoryId(tx: Tx, ctx: TenantContext, documentId: string | null | undefined) {
  if (documentId == null) return null;
  const id = await repo.categoryIdByDocumentId(tx, ctx.orgId, documentId);
  if (id === undefined) throw categoryNotFound();
  return id;
}

const categoryNotFound = () =>
  new AppError('NotFoundError', 'Product category not found', {
    errors: [{ path: ['category'], message: 'no such product category' }],
  });

/** A duplicate SKU is a 400 naming the key; a category deleted meanwhile (23503) is a 404. */
function onWriteError(err: unknown): never {
  const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as any)?.cause?.code;
  if (code === '23503') throw categoryNotFound();
  return onUnique('sku')(err);
}
