import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import { type Db, preparedRows, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { boards } from '../boards/table.js';
import { leadDeliveries, leadFormRoutes, leadIntegrationPages, leadIntegrations } from './table.js';

export type IntegrationRow = typeof leadIntegrations.$inferSelect;
export type PageRow = typeof leadIntegrationPages.$inferSelect;
export type RouteRow = typeof leadFormRoutes.$inferSelect;
export type DeliveryRow = typeof leadDeliveries.$inferSelect;

export const integrationModel: QueryModel = {
  table: 'lead_integrations',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    status: { column: 'status', type: 'string', values: ['connected', 'expired', 'revoked'] },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  privateFields: ['credentials'],
};

export const routeModel: QueryModel = {
  table: 'lead_form_routes',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    leadFormId: { column: 'form_id', type: 'string' },
    pageId: { column: 'page_id', type: 'string' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
};

// ---- integrations

export async function findIntegration(tx: Tx, orgId: number, documentId: string, lock = false) {
  const q = tx
    .select()
    .from(leadIntegrations)
    .where(and(eq(leadIntegrations.organizationId, orgId), eq(leadIntegrations.documentId, documentId)));
  const [row] = lock ? await q.for('update') : await q;
  return row as IntegrationRow | undefined;
}

export async function findIntegrationById(tx: Tx, orgId: number, id: number) {
  const [row] = await tx
    .select()
    .from(leadIntegrations)
    .where(and(eq(leadIntegrations.organizationId, orgId), eq(leadIntegrations.id, id)));
  return row as IntegrationRow | undefined;
}

export async function findIntegrationByProviderUser(tx: Tx, orgId: number, providerUserId: string) {
  const [row] = await tx
    .select()
    .from(leadIntegrations)
    .where(
      and(eq(leadIntegrations.organizationId, orgId), eq(leadIntegrations.providerUserId, providerUserId)),
    )
    .for('update');
  return row as IntegrationRow | undefined;
}

export async function listIntegrations(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(leadIntegrations.organizationId, orgId), q.where);
  const rows = await tx
    .select()
    .from(leadIntegrations)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(leadIntegrations).where(where));
  return { rows, total };
}

export async function insertIntegration(
  tx: Tx,
  orgId: number,
  values: Omit<typeof leadIntegrations.$inferInsert, 'organizationId'> & { documentId: string },
) {
  const [row] = await tx
    .insert(leadIntegrations)
    .values({ ...values, organizationId: orgId })
    .returning();
  return row;
}

export async function updateIntegration(tx: Tx, orgId: number, id: number, values: Partial<IntegrationRow>) {
  const [row] = await tx
    .update(leadIntegrations)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(leadIntegrations.organizationId, orgId), eq(leadIntegrations.id, id)))
    .returning();
  return row;
}

export async function deleteIntegration(tx: Tx, orgId: number, id: number) {
  await tx
    .delete(leadIntegrations)
    .where(and(eq(leadIntegrations.organizationId, orgId), eq(leadIntegrations.id, id)));
}

// ---- pages

export async function pagesOf(tx: Tx, orgId: number, integrationIds: number[]) {
  if (integrationIds.length === 0) return [];
  return tx
    .select()
    .from(leadIntegrationPages)
    .where(
      and(
        eq(leadIntegrationPages.organizationId, orgId),
        inArray(leadIntegrationPages.integrationId, integrationIds),
      ),
    )
    .orderBy(leadIntegrationPages.name, leadIntegrationPages.pageId);
}

/** The integration's pages become exactly `pages` (a reconnect may add or drop some). */
export async function replacePages(
  tx: Tx,
  orgId: number,
  integrationId: number,
  pages: { pageId: string; name: string; credentials: string }[],
) {
  await tx
    .delete(leadIntegrationPages)
    .where(
      and(
        eq(leadIntegrationPages.organizationId, orgId),
        eq(leadIntegrationPages.integrationId, integrationId),
      ),
    );
  if (pages.length)
    await tx
      .insert(leadIntegrationPages)
      .values(pages.map((p) => ({ ...p, organizationId: orgId, integrationId })));
}

// ---- routes

export async function findRoute(tx: Tx, orgId: number, documentId: string, lock = false) {
  const q = tx
    .select()
    .from(leadFormRoutes)
    .where(and(eq(leadFormRoutes.organizationId, orgId), eq(leadFormRoutes.documentId, documentId)));
  const [row] = lock ? await q.for('update') : await q;
  return row as RouteRow | undefined;
}

export async function listRoutes(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(leadFormRoutes.organizationId, orgId), q.where);
  const rows = await tx
    .select()
    .from(leadFormRoutes)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(leadFormRoutes).where(where));
  return { rows, total };
}

export async function insertRoute(
  tx: Tx,
  orgId: number,
  values: Omit<typeof leadFormRoutes.$inferInsert, 'organizationId' | 'documentId'>,
) {
  const [row] = await tx
    .insert(leadFormRoutes)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .returning();
  return row;
}

export async function updateRoute(tx: Tx, orgId: number, id: number, values: Partial<RouteRow>) {
  const [row] = await tx
    .update(leadFormRoutes)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(leadFormRoutes.organizationId, orgId), eq(leadFormRoutes.id, id)))
    .returning();
  return row;
}

export async function deleteRoute(tx: Tx, orgId: number, id: number) {
  await tx
    .delete(leadFormRoutes)
    .where(and(eq(leadFormRoutes.organizationId, orgId), eq(leadFormRoutes.id, id)));
}

export async function countRoutesOfIntegration(tx: Tx, orgId: number, integrationId: number) {
  const [{ n }] = await tx
    .select({ n: count() })
    .from(leadFormRoutes)
    .where(and(eq(leadFormRoutes.organizationId, orgId), eq(leadFormRoutes.integrationId, integrationId)));
  return n;
}

/** documentIds of the routes' integrations and boards, for presenting. */
export async function routeRefs(tx: Tx, orgId: number, routes: RouteRow[]) {
  const integrationIds = [...new Set(routes.map((r) => r.integrationId))];
  const boardIds = [...new Set(routes.map((r) => r.boardId))];
  const [ints, bs] = await Promise.all([
    integrationIds.length
      ? tx
          .select({ id: leadIntegrations.id, documentId: leadIntegrations.documentId })
          .from(leadIntegrations)
          .where(
            and(eq(leadIntegrations.organizationId, orgId), inArray(leadIntegrations.id, integrationIds)),
          )
      : [],
    boardIds.length
      ? tx
          .select({ id: boards.id, documentId: boards.documentId })
          .from(boards)
          .where(and(eq(boards.organizationId, orgId), inArray(boards.id, boardIds)))
      : [],
  ]);
  return {
    integrations: new Map(ints.map((r) => [r.id, r.documentId])),
    boards: new Map(bs.map((r) => [r.id, r.documentId])),
  };
}

/**
 * Routes of every organization for a page's form (the public webhook does not know the tenant yet): organization
 * and route ids only, through the page/form index; the rest is read in each organization's RLS transaction.
 */
export async function routesForForm(system: Db, pageId: string, formId: string) {
  const rows = await preparedRows<{ organization_id: number; id: number }>(
    system,
    sql`select organization_id, id from lead_form_routes where page_id = ${pageId} and form_id = ${formId}`,
  );
  return rows.map((r) => ({ organizationId: Number(r.organization_id), id: Number(r.id) }));
}

/** Whether any route of any organization still needs the page's leadgen subscription. */
export async function pageStillRouted(system: Db, pageId: string) {
  const [row] = await system
    .select({ id: leadFormRoutes.id })
    .from(leadFormRoutes)
    .where(eq(leadFormRoutes.pageId, pageId))
    .limit(1);
  return row !== undefined;
}

// ---- deliveries

/**
 * A webhook's leads for one organization: a delivery each, in one statement, only where the route still routes
 * the lead's page and form under the organization's RLS; none for a leadgen id the organization already has (the
 * unique (organization, leadgen id): a lead is processed once however often the provider repeats it). The new
 * deliveries' ids.
 */
export async function insertDeliveries(
  tx: Tx,
  orgId: number,
  items: { routeId: number; leadgenId: string; pageId: string; formId: string; adId: string | null }[],
) {
  if (items.length === 0) return [];
  const values = items.map((i) => ({
    route_id: i.routeId,
    document_id: newDocumentId(),
    leadgen_id: i.leadgenId,
    page_id: i.pageId,
    form_id: i.formId,
    ad_id: i.adId,
  }));
  const rows = await preparedRows<{ id: number }>(
    tx,
    sql`insert into lead_deliveries (organization_id, document_id, route_id, leadgen_id, page_id, form_id, ad_id)
      select r.organization_id, v.document_id, r.id, v.leadgen_id, r.page_id, r.form_id, v.ad_id
      from jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
        as v(route_id bigint, document_id text, leadgen_id text, page_id text, form_id text, ad_id text)
      join lead_form_routes r on r.organization_id = ${orgId} and r.id = v.route_id
        and r.page_id = v.page_id and r.form_id = v.form_id
      on conflict do nothing
      returning id`,
  );
  return rows.map((r) => Number(r.id));
}

export interface JobDelivery {
  delivery: DeliveryRow;
  route: RouteRow;
  integration: IntegrationRow | null;
  page: PageRow | null;
}

/**
 * What a batch of lead jobs needs, in one statement: each delivery with its route, the route's integration and the
 * integration's page of the route (a delivery or route gone: absent from the map).
 */
export async function deliveriesForJobs(tx: Tx, orgId: number, ids: number[]) {
  if (ids.length === 0) return new Map<number, JobDelivery>();
  const rows = await tx
    .select({
      delivery: leadDeliveries,
      route: leadFormRoutes,
      integration: leadIntegrations,
      page: leadIntegrationPages,
    })
    .from(leadDeliveries)
    .innerJoin(
      leadFormRoutes,
      and(
        eq(leadFormRoutes.organizationId, leadDeliveries.organizationId),
        eq(leadFormRoutes.id, leadDeliveries.routeId),
      ),
    )
    .leftJoin(
      leadIntegrations,
      and(
        eq(leadIntegrations.organizationId, leadFormRoutes.organizationId),
        eq(leadIntegrations.id, leadFormRoutes.integrationId),
      ),
    )
    .leftJoin(
      leadIntegrationPages,
      and(
        eq(leadIntegrationPages.organizationId, leadIntegrations.organizationId),
        eq(leadIntegrationPages.integrationId, leadIntegrations.id),
        eq(leadIntegrationPages.pageId, leadFormRoutes.pageId),
      ),
    )
    .where(and(eq(leadDeliveries.organizationId, orgId), inArray(leadDeliveries.id, ids)));
  return new Map((rows as JobDelivery[]).map((r) => [r.delivery.id, r]));
}

/**
 * The deliveries locked for the card transaction, in id order (two transactions over the same leads queue up
 * instead of deadlocking): a lead whose job runs twice (a worker killed after committing) finds it succeeded.
 */
export async function lockDeliveries(tx: Tx, orgId: number, ids: number[]) {
  if (ids.length === 0) return new Map<number, DeliveryRow>();
  const rows = await tx
    .select()
    .from(leadDeliveries)
    .where(and(eq(leadDeliveries.organizationId, orgId), inArray(leadDeliveries.id, ids)))
    .orderBy(asc(leadDeliveries.id))
    .for('update');
  return new Map(rows.map((r) => [r.id, r as DeliveryRow]));
}

/**
 * Leads made cards: their deliveries succeeded with the card and contact, in one statement (the card transaction's
 * last: `processed_at` is the clock then, just before the commit, not the transaction's start).
 */
export async function markDeliveriesSucceeded(
  tx: Tx,
  orgId: number,
  made: { id: number; cardId: number; cardDocumentId: string; contactDocumentId: string }[],
) {
  if (made.length === 0) return;
  const values = made.map((m) => ({
    id: m.id,
    card_id: m.cardId,
    card_document_id: m.cardDocumentId,
    contact_document_id: m.contactDocumentId,
  }));
  await preparedRows(
    tx,
    sql`update lead_deliveries d set status = 'succeeded', attempts = d.attempts + 1, last_error = null,
        card_id = v.card_id, card_document_id = v.card_document_id, contact_document_id = v.contact_document_id,
        processed_at = clock_timestamp(), updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
        as v(id bigint, card_id bigint, card_document_id text, contact_document_id text)
      where d.organization_id = ${orgId} and d.id = v.id`,
  );
}

export async function findDelivery(tx: Tx, orgId: number, routeId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(leadDeliveries)
    .where(
      and(
        eq(leadDeliveries.organizationId, orgId),
        eq(leadDeliveries.routeId, routeId),
        eq(leadDeliveries.documentId, documentId),
      ),
    )
    .for('update');
  return row as DeliveryRow | undefined;
}

/**
 * Failed deliveries, one statement: each one's attempt counted with its reason, `failed` (processed) when it will
 * not be retried, else `retrying`.
 */
export async function markDeliveriesFailed(
  tx: Tx,
  orgId: number,
  failed: { id: number; final: boolean; reason: string }[],
) {
  if (failed.length === 0) return;
  await tx.execute(
    sql`update lead_deliveries d set status = case when v.final then 'failed' else 'retrying' end,
        attempts = d.attempts + 1, last_error = v.reason,
        processed_at = case when v.final then now() end, updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(failed)}::jsonb) as v(id bigint, final boolean, reason text)
      where d.organization_id = ${orgId} and d.id = v.id`,
  );
}

export async function updateDelivery(tx: Tx, orgId: number, id: number, values: Partial<DeliveryRow>) {
  await tx
    .update(leadDeliveries)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(leadDeliveries.organizationId, orgId), eq(leadDeliveries.id, id)));
}

export async function listDeliveries(
  tx: Tx,
  orgId: number,
  routeId: number,
  status: DeliveryRow['status'] | undefined,
  w: { offset: number; pageSize: number; withCount: boolean },
) {
  const where = and(
    eq(leadDeliveries.organizationId, orgId),
    eq(leadDeliveries.routeId, routeId),
    status ? eq(leadDeliveries.status, status) : undefined,
  );
  const rows = await tx
    .select()
    .from(leadDeliveries)
    .where(where)
    .orderBy(desc(leadDeliveries.id))
    .offset(w.offset)
    .limit(w.pageSize);
  const total = w.withCount
    ? (await tx.select({ total: count() }).from(leadDeliveries).where(where))[0].total
    : 0;
  return { rows, total };
}
