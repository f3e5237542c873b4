import { and, eq, sql } from 'drizzle-orm';
import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import type { ListQueryInput, QueryModel } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { logPage, tablePage } from '../../platform/http/table-pages.js';
import { requirePublicUrl } from '../../platform/outbound/save-check.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { sealContext } from './delivery.js';
import type { Subscription, SubscriptionCreateInput, SubscriptionUpdateInput } from './schema.js';
import { newWebhookSecret } from './signing.js';
import { webhookDeliveries as deliveries, webhookSubscriptions as subs } from './table.js';

/** Outbound webhooks belong to the events-and-automations area: its plan feature, and admins. */
function requireAdmin(ctx: TenantContext) {
  requireFeature(ctx, 'automations');
  requireRole(ctx, 'admin');
}

const notFound = () => new AppError('NotFoundError', 'Webhook subscription not found');

const model: QueryModel = {
  table: 'webhook_subscriptions',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    url: { column: 'url', type: 'string' },
    enabled: { column: 'enabled', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  privateFields: ['secretSealed'],
};

type Row = typeof subs.$inferSelect;

function toSubscription(row: Row): Subscription {
  return {
    documentId: row.documentId,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    consecutiveFailures: row.consecutiveFailures,
    disabledReason: row.disabledReason,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

const byDocumentId = (orgId: number, documentId: string) =>
  and(eq(subs.organizationId, orgId), eq(subs.documentId, documentId));

export async function listSubscriptions(ctx: TenantContext, query: ListQueryInput) {
  requireAdmin(ctx);
  return tablePage(ctx, model, subs, query, (_tx, r) => toSubscription(r));
}

async function findIn(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx.select().from(subs).where(byDocumentId(orgId, documentId));
  if (!row) throw notFound();
  return row;
}

export async function getSubscription(ctx: TenantContext, documentId: string) {
  requireAdmin(ctx);
  return toSubscription(await ctx.transaction((tx) => findIn(tx, ctx.orgId, documentId)));
}

export async function createSubscription(deps: AppDeps, ctx: TenantContext, input: SubscriptionCreateInput) {
  requireAdmin(ctx);
  await requirePublicUrl(input.url, ['data', 'url'], deps.config.CRM_OUTBOUND_ALLOWLIST);
  const box = await secretBox(deps.config, deps.db);
  const secret = newWebhookSecret();
  const documentId = newDocumentId();
  return ctx.transaction(async (tx) => {
    const [row] = await tx
      .insert(subs)
      .values({
        organizationId: ctx.orgId,
        documentId,
        url: input.url,
        events: [...new Set(input.events)],
        enabled: input.enabled ?? true,
        secretSealed: box.encrypt(secret, sealContext(ctx.orgId, documentId)),
      })
      .returning();
    await audit(tx, ctx, 'webhook_subscription.created', documentId);
    return { ...toSubscription(row), secret };
  });
}

export async function updateSubscription(
  deps: Pick<AppDeps, 'config'>,
  ctx: TenantContext,
  documentId: string,
  input: SubscriptionUpdateInput,
) {
  requireAdmin(ctx);
  await requirePublicUrl(input.url, ['data', 'url'], deps.config.CRM_OUTBOUND_ALLOWLIST);
  return ctx.transaction(async (tx) => {
    const reenable = input.enabled === true ? { consecutiveFailures: 0, disabledReason: null } : {};
    const [row] = await tx
      .update(subs)
      .set({
        ...input,
        ...(input.events ? { events: [...new Set(input.events)] } : {}),
        ...reenable,
        updatedAt: sql`now()`,
      })
      .where(byDocumentId(ctx.orgId, documentId))
      .returning();
    if (!row) throw notFound();
    await audit(tx, ctx, 'webhook_subscription.updated', documentId);
    return toSubscription(row);
  });
}

export async function deleteSubscription(ctx: TenantContext, documentId: string) {
  requireAdmin(ctx);
  return ctx.transaction(async (tx) => {
    const [row] = await tx.delete(subs).where(byDocumentId(ctx.orgId, documentId)).returning({ id: subs.id });
    if (!row) throw notFound();
    await audit(tx, ctx, 'webhook_subscription.deleted', documentId);
    return { documentId, deleted: true as const };
  });
}

export async function listDeliveries(
  ctx: TenantContext,
  documentId: string,
  query: { pagination?: ListQueryInput['pagination']; status?: string },
) {
  requireAdmin(ctx);
  return logPage(
    ctx,
    model,
    deliveries,
    query,
    async (tx) => eq(deliveries.subscriptionId, (await findIn(tx, ctx.orgId, documentId)).id),
    (d) => ({
      id: d.id,
      eventId: d.eventId,
      eventType: d.eventType,
      status: d.status as 'pending' | 'delivered' | 'failed',
      attempts: d.attempts,
      nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
      lastStatusCode: d.lastStatusCode,
      lastError: d.lastError,
      deliveredAt: iso(d.deliveredAt),
      createdAt: isoRequired(d.createdAt),
      payload: d.payload,
    }),
  );
}
