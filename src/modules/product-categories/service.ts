import { audit } from '../../platform/audit/audit.js';
import { notFound, onUnique } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import * as repo from './repo.js';
import type { Category, CategoryInput } from './schema.js';

export function toCategory(row: repo.CategoryRow): Category {
  return {
    documentId: row.documentId,
    name: row.name,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

export async function listCategories(ctx: TenantContext, query: ListQueryInput) {
  const q = compileListQuery(repo.categoryModel, query, 'name:asc');
  const { rows, total } = await ctx.transaction((tx) => repo.listCategories(tx, ctx.orgId, q));
  return listPage(rows.map(toCategory), total, q);
}

export async function getCategory(ctx: TenantContext, documentId: string) {
  const row = await ctx.transaction((tx) => repo.findCategory(tx, ctx.orgId, documentId));
  if (!row) throw notFound('Product category');
  return toCategory(row);
}

export async function createCategory(ctx: TenantContext, input: CategoryInput) {
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await repo.insertCategory(tx, ctx.orgId, input).catch(onUnique('name'));
    await audit(tx, ctx, 'product_category.created', row.documentId);
    return toCategory(row);
  });
}

export async function updateCategory(ctx: TenantContext, documentId: string, input: CategoryInput) {
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await repo.updateCategory(tx, ctx.orgId, documentId, input).catch(onUnique('name'));
    if (!row) throw notFound('Product category');
    await audit(tx, ctx, 'product_category.updated', documentId);
    return toCategory(row);
  });
}

export async function deleteCategory(ctx: TenantContext, documentId: string) {
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    if (!(await repo.deleteCategory(tx, ctx.orgId, documentId))) throw notFound('Product category');
    await audit(tx, ctx, 'product_category.deleted', documentId);
    return { documentId, deleted: true as const };
  });
}
