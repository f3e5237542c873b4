import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Database } from '../../platform/db/client.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { type PaginationInput, pageWindow, windowPage } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import type { Jobs, QueueDef } from '../../platform/jobs/jobs.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import type { LeadAdsKit } from './kit.js';
import { type LeadJob, processLeadBatch } from './process.js';
import * as repo from './repo.js';
import { requireLeadAds, routeOr404 } from './service.js';

/**
 * Leads: the public webhook (handshake, signed leadgen changes → one delivery per organization routing the
 * form, its job enqueued in the same transaction), the lead queue whose batches process.ts makes cards of, and the
 * route's deliveries (list, redeliver).
 */

/**
 * The lead queue of the configured app: a lead is fetched with tokens and the `appsecret_proof` of the app that
 * received it, so only processes configured with that app (CRM_LEAD_ADS_APP_ID) may take its jobs. A process
 * with another app, or none, neither works nor steals them.
 */
export const leadQueue = (
  config: Pick<
    Config,
    'CRM_LEAD_ADS_APP_ID' | 'CRM_LEAD_ADS_RETRY_LIMIT' | 'CRM_LEAD_ADS_RETRY_DELAY_SECONDS'
  >,
): QueueDef => ({
  name: `lead-ads-lead-${(config.CRM_LEAD_ADS_APP_ID ?? 'none').replace(/[^\w-]/g, '_')}`,
  retryLimit: config.CRM_LEAD_ADS_RETRY_LIMIT,
  retryDelay: config.CRM_LEAD_ADS_RETRY_DELAY_SECONDS,
  retryBackoff: true,
  // A batch's leads are fetched side by side and made cards in one transaction (process.ts); two batches at a
  // time per process, so one waits on the provider while the other writes. Under a burst a batch takes what
  // queued up meanwhile.
  concurrency: 2,
  batchSize: 25,
});

// ---- webhook

/** GET /webhooks/lead-ads: answers hub.challenge when the verify token is CRM_LEAD_ADS_VERIFY_TOKEN. */
export function handshake(
  config: Pick<Config, 'CRM_LEAD_ADS_VERIFY_TOKEN'>,
  mode: string | undefined,
  token: string | undefined,
  challenge: string | undefined,
) {
  const expected = config.CRM_LEAD_ADS_VERIFY_TOKEN;
  const ok =
    mode === 'subscribe' &&
    expected !== undefined &&
    token !== undefined &&
    token.length === expected.length &&
    timingSafeEqual(Buffer.from(token), Buffer.from(expected));
  if (!ok || challenge === undefined) throw new AppError('ForbiddenError', 'Verification failed');
  return challenge;
}

function checkSignature(secret: string | undefined, raw: Buffer, header: string | undefined) {
  const given = /^sha256=([0-9a-f]{64})$/i.exec(header ?? '')?.[1];
  const expected = secret ? createHmac('sha256', secret).update(raw).digest('hex') : undefined;
  if (
    !given ||
    !expected ||
    !timingSafeEqual(Buffer.from(given.toLowerCase(), 'hex'), Buffer.from(expected, 'hex'))
  )
    throw new AppError('UnauthorizedError', 'Invalid or missing signature');
}

interface LeadgenChange {
  leadgenId: string;
  pageId: string;
  formId: string;
  adId: string | null;
}

function leadgenChanges(raw: Buffer): LeadgenChange[] {
  let body: any;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('BadRequestError', 'Malformed JSON in request body');
  }
  const entries: any[] = Array.isArray(body?.entry) ? body.entry : [];
  return entries.flatMap((e) =>
    (Array.isArray(e?.changes) ? e.changes : []).flatMap((c: any) => {
      const v = c?.value;
      if (c?.field !== 'leadgen' || !v) return [];
      const leadgenId = v.leadgen_id ?? v.lead_id;
      const pageId = v.page_id ?? e.id;
      if (leadgenId == null || pageId == null || v.form_id == null) return [];
      return [
        {
          leadgenId: String(leadgenId),
          pageId: String(pageId),
          formId: String(v.form_id),
          adId: v.ad_id == null ? null : String(v.ad_id),
        },
      ];
    }),
  );
}

/**
 * POST /webhooks/lead-ads: verified by X-Hub-Signature-256 (CRM_LEAD_ADS_APP_SECRET over the raw body). Each
 * leadgen change goes to the organizations that route its page's form (never another), as a delivery and a job
 * written together; a leadgen an organization already has is skipped (the provider repeats webhooks).
 */
export async function receiveWebhook(
  db: Database,
  config: Config,
  jobs: Jobs,
  raw: Buffer,
  signature: string | undefined,
) {
  // Unconfigured, no signature can verify: the same 401 (nothing says more to an anonymous caller).
  checkSignature(config.CRM_LEAD_ADS_APP_ID && config.CRM_LEAD_ADS_APP_SECRET, raw, signature);
  const changes = leadgenChanges(raw);
  const byOrg = new Map<number, { routeId: number; change: LeadgenChange }[]>();
  // The routes of each page's form once per webhook (its leads mostly come from one form).
  const routes = new Map<string, Promise<{ organizationId: number; id: number }[]>>();
  for (const change of changes) {
    const form = JSON.stringify([change.pageId, change.formId]);
    if (!routes.has(form)) routes.set(form, repo.routesForForm(db.system, change.pageId, change.formId));
    for (const r of await routes.get(form)!)
      byOrg.set(r.organizationId, [...(byOrg.get(r.organizationId) ?? []), { routeId: r.id, change }]);
  }
  const queue = leadQueue(config);
  let queued = 0;
  for (const [orgId, items] of byOrg) {
    await db.tenantTransaction(orgId, async (tx) => {
      // The routes re-read under the organization's RLS, in the insert: each must still route its page's form.
      const made = await repo.insertDeliveries(
        tx,
        orgId,
        items.map(({ routeId, change }) => ({ routeId, ...change })),
      );
      await jobs.sendMany(
        queue,
        made.map((deliveryId) => ({ orgId, deliveryId }) satisfies LeadJob),
        { tx },
      );
      queued += made.length;
    });
  }
  // Committed: this process's lead workers (if it runs any) start now rather than at their next poll.
  if (queued > 0) jobs.nudge(queue);
  return { received: changes.length, queued };
}

// ---- deliveries

const present = (d: repo.DeliveryRow) => ({
  documentId: d.documentId,
  leadgenId: d.leadgenId,
  pageId: d.pageId,
  formId: d.formId,
  adId: d.adId,
  status: d.status,
  attempts: d.attempts,
  lastError: d.lastError,
  card: d.cardDocumentId,
  contact: d.contactDocumentId,
  receivedAt: isoRequired(d.receivedAt),
  processedAt: iso(d.processedAt),
});

/** GET /lead-form-routes/{id}/deliveries: the route's leads, newest first, with each failure's reason. */
export async function listDeliveries(
  ctx: TenantContext,
  routeDocumentId: string,
  query: { pagination?: PaginationInput; status?: repo.DeliveryRow['status'] },
) {
  requireLeadAds(ctx);
  const w = pageWindow(query.pagination);
  return ctx.transaction(async (tx) => {
    const route = await routeOr404(tx, ctx, routeDocumentId);
    const { rows, total } = await repo.listDeliveries(tx, ctx.orgId, route.id, query.status, w);
    return windowPage(rows.map(present), total, w);
  });
}

/** POST …/deliveries/{id}/redeliver: a failed lead is queued again (422 for any other status). */
export async function redeliver(
  ctx: TenantContext,
  jobs: Jobs,
  config: Config,
  routeDocumentId: string,
  deliveryDocumentId: string,
) {
  requireLeadAds(ctx, true);
  const result = await ctx.transaction(async (tx) => {
    const route = await routeOr404(tx, ctx, routeDocumentId);
    const d = await repo.findDelivery(tx, ctx.orgId, route.id, deliveryDocumentId);
    if (!d) throw notFound('Lead delivery');
    if (!config.CRM_LEAD_ADS_APP_ID)
      throw new AppError('ServiceUnavailableError', 'Lead ads are not configured on this server');
    if (d.status !== 'failed')
      throw new AppError(
        'UnprocessableEntityError',
        `Only failed deliveries can be redelivered; this one is ${d.status}`,
        {
          deliveryStatus: d.status,
          allowed: ['failed'],
        },
      );
    await repo.updateDelivery(tx, ctx.orgId, d.id, { status: 'pending', processedAt: null });
    await jobs.send(leadQueue(config), { orgId: ctx.orgId, deliveryId: d.id } satisfies LeadJob, { tx });
    return present({ ...d, status: 'pending', processedAt: null });
  });
  jobs.nudge(leadQueue(config));
  return result;
}

/** The lead job's handler (processes started with workers). */
export async function registerLeadAdsWorkers(
  deps: { config: Config; db: Database; jobs: Jobs },
  kit: () => Promise<LeadAdsKit>,
) {
  if (!deps.config.CRM_LEAD_ADS_APP_ID) return;
  await deps.jobs.workBatch<LeadJob>(leadQueue(deps.config), async (batch) =>
    processLeadBatch(await kit(), batch),
  );
}
