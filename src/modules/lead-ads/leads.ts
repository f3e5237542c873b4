import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import type { Database, Tx } from '../../platform/db/client.js';
import { recordEvent } from '../../platform/events/outbox.js';
import { AppError } from '../../platform/http/errors.js';
import { type PaginationInput, pageWindow, windowPage } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import type { Jobs, QueueDef } from '../../platform/jobs/jobs.js';
import { normalizePhone } from '../../platform/phones.js';
import type { LeadAdsLead } from '../../platform/providers/lead-ads/client.js';
import { ProviderError } from '../../platform/providers/provider-error.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import { createLeadCard } from '../cards/service.js';
import * as contactsRepo from '../contacts/repo.js';
import { toContacts } from '../contacts/service.js';
import { contacts } from '../contacts/table.js';
import { type LeadAdsKit, pageAad } from './kit.js';
import * as repo from './repo.js';
import { markTokenProblem, requireLeadAds, routeOr404 } from './service.js';

/**
 * Leads: the public webhook (handshake, signed leadgen changes → one delivery per organization routing the
 * form, its job enqueued in the same transaction) and the job that fetches the lead with the page token and
 * makes the card, contact, timeline entry and `lead.received` event in one transaction with the delivery's
 * `succeeded`: a lead becomes one card, also across a crash between the two.
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
  // Each job mostly waits on the provider: batches run side by side and drain without waiting for the poll.
  concurrency: 2,
  batchSize: 10,
});

export interface LeadJob {
  orgId: number;
  deliveryId: number;
}

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
  for (const change of changes) {
    for (const r of await repo.routesForForm(db.system, change.pageId, change.formId))
      byOrg.set(r.organizationId, [...(byOrg.get(r.organizationId) ?? []), { routeId: r.id, change }]);
  }
  const queue = leadQueue(config);
  let queued = 0;
  for (const [orgId, items] of byOrg) {
    await db.tenantTransaction(orgId, async (tx) => {
      for (const { routeId, change } of items) {
        const route = await repo.findRouteById(tx, orgId, routeId);
        // Re-read under the organization's RLS: the route must still be this page's form.
        if (!route || route.pageId !== change.pageId || route.formId !== change.formId) continue;
        const delivery = await repo.insertDelivery(tx, orgId, { routeId, ...change });
        if (!delivery) continue;
        await jobs.send(queue, { orgId, deliveryId: delivery.id } satisfies LeadJob, { tx });
        queued++;
      }
    });
  }
  // Committed: this process's lead workers (if it runs any) start now rather than at their next poll.
  if (queued > 0) jobs.nudge(queue);
  return { received: changes.length, queued };
}

// ---- the job

/** Failures that will not pass by retrying: the delivery fails at once with the reason. */
function isPermanent(err: unknown) {
  if (err instanceof ProviderError) return err.permanent;
  return err instanceof AppError && err.status < 500;
}

function reasonOf(err: unknown) {
  if (err instanceof ProviderError)
    return `lead_ads provider: ${err.message}${err.code ? ` (${err.code})` : ''}`;
  if (err instanceof AppError) {
    const errors = (err.details as { errors?: { path: string[]; message: string }[] })?.errors;
    const detail = errors?.length
      ? `: ${errors.map((e) => `${e.path.join('.')} ${e.message}`).join('; ')}`
      : '';
    return `${err.message}${detail}`.slice(0, 2000);
  }
  return (err as Error)?.message ?? String(err);
}

/**
 * Fetches the lead with the page token and makes the card. A failure is recorded on the delivery (attempts,
 * reason) and retried by the queue with backoff; the last attempt, or a failure retrying cannot fix, leaves the
 * delivery `failed` for the route's deliveries list and its redeliver action.
 */
export async function processLead(
  kit: LeadAdsKit,
  data: LeadJob,
  job: { retryCount: number; retryLimit: number },
) {
  const { orgId, deliveryId } = data;
  const db = kit.db;
  // The delivery, its route, integration and page: one statement.
  const loaded = await db.tenantTransaction(orgId, (tx) => repo.deliveryForJob(tx, orgId, deliveryId));
  if (!loaded || loaded.delivery.status === 'succeeded') return;
  const { delivery, route, integration, page } = loaded;
  try {
    if (!kit.client)
      throw new AppError('ServiceUnavailableError', 'Lead ads are not configured on this server');
    if (!integration || !page)
      throw new AppError(
        'UnprocessableEntityError',
        `The integration no longer holds page ${route.pageId}: reconnect it with POST /lead-ads/oauth/start`,
      );
    const token = JSON.parse(
      kit.box.decrypt(page.credentials, pageAad(orgId, integration.documentId, page.pageId)),
    ).accessToken as string;
    let lead: LeadAdsLead;
    try {
      lead = await kit.client.getLead(delivery.leadgenId, token);
    } catch (err) {
      await markTokenProblem(kit, orgId, integration.id, err);
      throw err;
    }
    await db.tenantTransaction(orgId, async (tx) => {
      const locked = await repo.findDeliveryById(tx, orgId, deliveryId, true);
      if (!locked || locked.status === 'succeeded') return;
      await makeCard(tx, orgId, route, locked, lead);
    });
  } catch (err) {
    const final = isPermanent(err) || job.retryCount >= job.retryLimit;
    await db.tenantTransaction(orgId, (tx) =>
      repo.updateDelivery(tx, orgId, deliveryId, {
        status: final ? 'failed' : 'retrying',
        attempts: sql`attempts + 1` as unknown as number,
        lastError: reasonOf(err),
        processedAt: final ? new Date() : null,
      }),
    );
    if (!final) throw err;
  }
}

interface Mapped {
  title?: string;
  fields: Record<string, unknown>;
  contact: Record<string, string>;
}

/** The route's mapping over the lead's answers; contact name, e-mail and phone default to the standard questions. */
function applyMapping(route: repo.RouteRow, lead: LeadAdsLead): Mapped {
  const answers = new Map(lead.fieldData.map((f) => [f.name, f.values.join(', ')]));
  const out: Mapped = { fields: {}, contact: {} };
  for (const { source, target } of route.fieldMapping.mappings) {
    const value = answers.get(source);
    if (value === undefined || value === '') continue;
    if (target === 'title') out.title = value.slice(0, 500);
    else if (target.startsWith('contact.')) out.contact[target.slice(8)] = value;
    else out.fields[target] = value;
  }
  const first = (...keys: string[]) => keys.map((k) => answers.get(k)).find((v) => v);
  out.contact.email ??= first('email', 'work_email') ?? '';
  out.contact.phone ??= first('phone_number', 'phone') ?? '';
  const split = [answers.get('first_name'), answers.get('last_name')].filter(Boolean).join(' ');
  out.contact.name ??= first('full_name') ?? split;
  for (const k of Object.keys(out.contact)) if (!out.contact[k]) delete out.contact[k];
  return out;
}

const emailLike = (s: string) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(s);

/**
 * The contact with the lead's e-mail, else its phone (E.164), else a new one. Concurrent leads of one person
 * serialize on advisory locks of the e-mail and phone keys (taken in order: no deadlock), so they share a contact.
 */
async function matchOrCreateContact(tx: Tx, orgId: number, values: Record<string, string>, leadId: string) {
  const email = values.email && emailLike(values.email.trim()) ? values.email.trim().toLowerCase() : null;
  const parsed = values.phone ? normalizePhone(values.phone, values.country) : null;
  const phone = parsed?.ok ? parsed.phone : null;
  const keys = [email && `e:${email}`, phone && `p:${phone}`]
    .filter((k): k is string => !!k)
    .sort()
    .map((k) => `lead-contact:${orgId}:${k}`);
  // Both locks in one statement, in the keys' order.
  if (keys.length > 0)
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(k, 0))
          from jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb) with ordinality as t(k, i) order by i`,
    );
  // The oldest contact with the e-mail, else the oldest with the phone: one statement.
  const byEmail = email ? sql`lower(${contacts.email}) = ${email}` : sql`false`;
  const byPhone = phone ? eq(contacts.phone, phone) : sql`false`;
  if (email || phone) {
    const [found] = await tx
      .select()
      .from(contacts)
      .where(and(eq(contacts.organizationId, orgId), sql`(${byEmail} or ${byPhone})`))
      .orderBy(sql`case when ${byEmail} then 0 else 1 end`, asc(contacts.id))
      .limit(1);
    if (found) return { row: found, created: false };
  }
  const [row] = await contactsRepo.insertContacts(tx, orgId, [
    {
      name: (values.name ?? email ?? phone ?? `Lead ${leadId}`).slice(0, 200),
      email,
      phone,
      city: values.city?.slice(0, 120) ?? null,
      state: values.state?.slice(0, 120) ?? null,
      country: values.country?.slice(0, 120) ?? null,
      address: values.address?.slice(0, 500) ?? null,
      postalCode: values.postal_code?.slice(0, 20) ?? null,
    },
  ]);
  const [contact] = await toContacts(tx, orgId, [row]);
  await recordEvent(tx, orgId, 'contact.created', `contact:${row.documentId}`, { contact });
  return { row, created: true };
}

async function makeCard(
  tx: Tx,
  orgId: number,
  route: repo.RouteRow,
  delivery: repo.DeliveryRow,
  lead: LeadAdsLead,
) {
  const mapped = applyMapping(route, lead);
  const { row: contact, created } = await matchOrCreateContact(tx, orgId, mapped.contact, lead.id);
  const tracking: Record<string, string> = {
    utm_source: 'lead_ads',
    leadgen_id: lead.id,
    page_id: route.pageId,
  };
  const ids = {
    ad_id: lead.adId ?? delivery.adId,
    adset_id: lead.adsetId,
    campaign_id: lead.campaignId,
    form_id: lead.formId ?? route.formId,
  };
  for (const [k, v] of Object.entries(ids)) if (v) tracking[k] = v;
  const { row: card, board } = await createLeadCard(tx, orgId, route.boardId, {
    title: mapped.title ?? contact.name,
    fields: mapped.fields,
    contact: contact.documentId,
    tracking,
  });
  const cardRef = { documentId: card.documentId, title: card.title };
  // A new contact's "created" entry and the card's: one insert.
  await contactsRepo.insertActivities(tx, orgId, [
    ...(created
      ? [
          {
            contactId: contact.id,
            activityType: 'contact_created' as const,
            description: `Contact ${contact.name} created from a lead ad`,
            actorId: null,
          },
        ]
      : []),
    {
      contactId: contact.id,
      activityType: 'card_created',
      description: `Lead from form "${route.formName ?? route.formId}": card "${card.title}" created`,
      actorId: null,
      metadata: { card: cardRef, board, leadgenId: lead.id, formId: route.formId, source: 'lead_ads' },
    },
  ]);
  await recordEvent(tx, orgId, 'lead.received', `lead:${lead.id}`, {
    lead: { id: lead.id, createdTime: lead.createdTime, formId: route.formId, pageId: route.pageId, ...ids },
    route: { documentId: route.documentId, name: route.name },
    card: { ...cardRef, board },
    contact: { documentId: contact.documentId, name: contact.name },
  });
  await repo.updateDelivery(tx, orgId, delivery.id, {
    status: 'succeeded',
    attempts: delivery.attempts + 1,
    lastError: null,
    cardId: card.id,
    cardDocumentId: card.documentId,
    contactDocumentId: contact.documentId,
    processedAt: new Date(),
  });
  return { card, contact, receivedAt: isoRequired(delivery.receivedAt) };
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
    if (!d) throw new AppError('NotFoundError', 'Lead delivery not found');
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
  await deps.jobs.work<LeadJob>(leadQueue(deps.config), async (data, job) =>
    processLead(await kit(), data, job),
  );
}
