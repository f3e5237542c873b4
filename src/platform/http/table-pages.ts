import { and, count, desc, eq, type InferSelectModel, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Tx } from '../db/client.js';
import type { TenantContext } from '../tenancy/context.js';
import {
  type CompiledList,
  compileListQuery,
  countIf,
  type ListQueryInput,
  listPage,
  type Paginated,
  type QueryModel,
} from './list-query.js';

/**
 * The two list shapes the configuration areas repeat (automations, webhook subscriptions, conversion pixels):
 * a page of the organization's configuration rows under the list-query compiler, and a page of one row's log
 * (automation runs, webhook deliveries, conversion events), newest first, optionally by status. The caller checks
 * feature and role first; both run in one tenant transaction.
 */

type TenantTable = PgTable & { organizationId: PgColumn };
type LogTable = TenantTable & { id: PgColumn; status: PgColumn };

async function page<T extends TenantTable>(
  tx: Tx,
  table: T,
  where: SQL | undefined,
  orderBy: SQL,
  q: CompiledList,
): Promise<{ rows: InferSelectModel<T>[]; total: number | undefined }> {
  const from = table as PgTable;
  const rows = await tx.select().from(from).where(where).orderBy(orderBy).offset(q.offset).limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(from).where(where));
  return { rows: rows as InferSelectModel<T>[], total };
}

/** GET /<area>: the organization's rows of `table`, filtered, sorted and paged as `query` says. */
export function tablePage<T extends TenantTable, R>(
  ctx: TenantContext,
  model: QueryModel,
  table: T,
  query: ListQueryInput,
  present: (tx: Tx, row: InferSelectModel<T>) => R | Promise<R>,
): Promise<Paginated<R>> {
  const q = compileListQuery(model, query);
  return ctx.transaction(async (tx) => {
    const { rows, total } = await page(
      tx,
      table,
      and(eq(table.organizationId, ctx.orgId), q.where),
      q.orderBy,
      q,
    );
    const items: R[] = [];
    for (const r of rows) items.push(await present(tx, r));
    return listPage(items, total, q);
  });
}

/**
 * GET /<area>/{id}/<log>: the log rows of one configuration row, newest first; `owner` loads that row (its 404
 * when missing) and names the log's column pointing at it.
 */
export function logPage<T extends LogTable, R>(
  ctx: TenantContext,
  model: QueryModel,
  table: T,
  query: { pagination?: ListQueryInput['pagination']; status?: string },
  owner: (tx: Tx) => Promise<SQL>,
  present: (row: InferSelectModel<T>) => R,
): Promise<Paginated<R>> {
  const q = compileListQuery(model, { pagination: query.pagination });
  return ctx.transaction(async (tx) => {
    const where = and(
      eq(table.organizationId, ctx.orgId),
      await owner(tx),
      query.status ? eq(table.status, query.status) : undefined,
    );
    const { rows, total } = await page(tx, table, where, desc(table.id), q);
    return listPage(rows.map(present), total, q);
  });
}
