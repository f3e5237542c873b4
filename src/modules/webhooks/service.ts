import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { notFound } from '../../platform/http/errors.js';
import type { ListQueryInput } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { logPage, tablePage } from '../../platform/http/table-pages.js';
import { requirePublicUrl } from '../../platform/outbound/save-check.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { requireFeatureAdmin, type TenantContext } from '../../platform/tenancy/context.js';
import { sealContext } from './delivery.js';
import * as repo from './repo.js';
import type { Subscription, SubscriptionCreateInput, SubscriptionUpdateInput } from './schema.js';
import { newWebhookSecret } from './signing.js';
import { webhookDeliveries as deliveries, webhookSubscriptions as subs } from './table.js';

/** Outbound webhooks belong to the events-and-automations area: its plan feature, and admins. */
const FEATURE = 'automations';

function toSubscription(row: repo.SubscriptionRow): Subscription {
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

export async function listSubscriptions(ctx: TenantContext, query: ListQueryInput) {
  requireFeatureAdmin(ctx, FEATURE);
  return tablePage(ctx, repo.subscriptionModel, subs, query, (_tx, r) => toSubscription(r));
}

async function findIn(tx: Tx, orgId: number, documentId: string) {
  const row = await repo.findSubscription(tx, orgId, documentId);
  if (!row) throw notFound('Webhook subscription');
  return row;
}

export async function getSubscription(ctx: TenantContext, documentId: string) {
  requireFeatureAdmin(ctx, FEATURE);
  return toSubscription(await ctx.transaction((tx) => findIn(tx, ctx.orgId, documentId)));
}

export async function createSubscription(deps: AppDeps, ctx: TenantContext, input: SubscriptionCreateInput) {
  requireFeatureAdmin(ctx, FEATURE);
  await requirePublicUrl(input.url, ['data', 'url'], deps.config.CRM_OUTBOUND_ALLOWLIST);
  const box = await secretBox(deps.config, deps.db);
  const secret = newWebhookSecret();
  const documentId = newDocumentId();
  return ctx.transaction(async (tx) => {
    const row = await repo.insertSubscription(tx, ctx.orgId, {
      documentId,
      url: input.url,
      events: [...new Set(input.events)],
      enabled: input.enabled ?? true,
      secretSealed: box.encrypt(secret, sealContext(ctx.orgId, documentId)),
    });
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
  requireFeatureAdmin(ctx, FEATURE);
  await requirePublicUrl(input.url, ['data', 'url'], deps.config.CRM_OUTBOUND_ALLOWLIST);
  return ctx.transaction(async (tx) => {
    const reenable = input.enabled === true ? { consecutiveFailures: 0, disabledReason: null } : {};
    const row = await repo.updateSubscription(tx, ctx.orgId, documentId, {
      ...input,
      ...(input.events ? { events: [...new Set(input.events)] } : {}),
      ...reenable,
    });
    if (!row) throw notFound('Webhook subscription');
    await audit(tx, ctx, 'webhook_subscription.updated', documentId);
    return toSubscription(row);
  });
}

export async function deleteSubscription(ctx: TenantContext, documentId: string) {
  requireFeatureAdmin(ctx, FEATURE);
  return ctx.transaction(async (tx) => {
    if (!(await repo.deleteSubscription(tx, ctx.orgId, documentId))) throw notFound('Webhook subscription');
    await audit(tx, ctx, 'webhook_subscription.deleted', documentId);
    return { documentId, deleted: true as const };
  });
}

export async function listDeliveries(
  ctx: TenantContext,
  documentId: string,
  query: { pagination?: ListQueryInput['pagination']; status?: string },
) {
  requireFeatureAdmin(ctx, FEATURE);
  return logPage(
    ctx,
    repo.subscriptionModel,
    deliveries,
    query,
    async (tx) => repo.deliveriesOf((await findIn(tx, ctx.orgId, documentId)).id),
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
