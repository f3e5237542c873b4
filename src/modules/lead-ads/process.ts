import { DrizzleQueryError } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { recordEvents } from '../../platform/events/outbox.js';
import { AppError } from '../../platform/http/errors.js';
import type { BatchJob } from '../../platform/jobs/jobs.js';
import type { LeadAdsLead } from '../../platform/providers/lead-ads/client.js';
import { ProviderError } from '../../platform/providers/provider-error.js';
import {
  checkLeadCard,
  insertLeadCards,
  type LeadBoard,
  openLeadBoard,
  type PreparedCard,
} from '../cards/index.js';
import { insertActivities, matchOrMakeContacts } from '../contacts/index.js';
import { type LeadAdsKit, pageAad } from './kit.js';
import { recordLeadConsents } from './lead-consent.js';
import * as repo from './repo.js';
import { markTokenProblem } from './service.js';

/**
 * The lead jobs, a fetched batch at a time (docs/lead-ads.md, "Throughput"). Per organization: the batch's
 * deliveries with their routes and page tokens in one statement; the leads fetched from the provider side by side;
 * then ONE transaction makes every card — the deliveries locked, each board read once, each card checked on its own,
 * the contacts matched or made together, the cards, timeline entries, events and deliveries' `succeeded` written a
 * statement each for the whole batch. The cards and the `succeeded` commit together and the transaction re-checks
 * the deliveries under their row locks, so a lead makes one card even when its job runs twice (a worker killed after
 * committing). Should that transaction fail as a whole (a statement one lead breaks), the leads are made again one
 * transaction each, so every lead still succeeds or fails on its own with its reason on its delivery.
 */

/** One lead delivery to process (leads.ts queues them). */
export interface LeadJob {
  orgId: number;
  deliveryId: number;
}

type Job = BatchJob<LeadJob>;

/** Outcomes in the batch's order: undefined when the job is done, else the error to retry it with. */
export async function processLeadBatch(kit: LeadAdsKit, batch: Job[]): Promise<(Error | undefined)[]> {
  // Jobs of one delivery (a job run again beside a redelivery's) are worked once and share the outcome.
  const byOrg = new Map<number, Map<number, Job[]>>();
  for (const job of batch) {
    const org = byOrg.get(job.data.orgId) ?? new Map<number, Job[]>();
    byOrg.set(job.data.orgId, org);
    org.set(job.data.deliveryId, [...(org.get(job.data.deliveryId) ?? []), job]);
  }
  const outcome = new Map<string, Error | undefined>();
  await Promise.all(
    [...byOrg].map(async ([orgId, deliveries]) => {
      const errors = await processLeads(kit, orgId, deliveries).catch((err: Error) => {
        // The deliveries could not even be read: every job of the organization is retried.
        return new Map([...deliveries.keys()].map((id) => [id, err]));
      });
      for (const [deliveryId, jobs] of deliveries)
        for (const job of jobs) outcome.set(job.id, errors.get(deliveryId));
    }),
  );
  return batch.map((job) => outcome.get(job.id));
}

interface Fetched extends repo.JobDelivery {
  lead: LeadAdsLead;
}

async function processLeads(kit: LeadAdsKit, orgId: number, deliveries: Map<number, Job[]>) {
  const db = kit.db;
  const ids = [...deliveries.keys()].sort((a, b) => a - b);
  const loaded = await db.tenantTransaction(orgId, (tx) => repo.deliveriesForJobs(tx, orgId, ids));
  const failures = new Map<number, unknown>();
  const fetched: Fetched[] = [];
  await Promise.all(
    ids.map(async (id) => {
      const job = loaded.get(id);
      if (!job || job.delivery.status === 'succeeded') return;
      try {
        fetched.push({ ...job, lead: await fetchLead(kit, orgId, job) });
      } catch (err) {
        failures.set(id, err);
      }
    }),
  );
  fetched.sort((a, b) => a.delivery.id - b.delivery.id);
  const made = async (leads: Fetched[]) => {
    for (const [id, err] of await db.tenantTransaction(orgId, (tx) => makeCards(tx, orgId, leads)))
      failures.set(id, err);
  };
  if (fetched.length > 0)
    await made(fetched).catch(async (err) => {
      // The batch's transaction failed as a whole: lead by lead, each failing on its own (a lone lead: it has).
      if (fetched.length === 1) failures.set(fetched[0].delivery.id, err);
      else for (const one of fetched) await made([one]).catch((e) => failures.set(one.delivery.id, e));
    });
  return recordFailures(kit, orgId, deliveries, failures);
}

async function fetchLead(
  kit: LeadAdsKit,
  orgId: number,
  { delivery, route, integration, page }: repo.JobDelivery,
) {
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
  try {
    return await kit.client.getLead(delivery.leadgenId, token);
  } catch (err) {
    await markTokenProblem(kit, orgId, integration.id, err);
    throw err;
  }
}

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
  // A database error: the server's own message (drizzle's wrapper repeats the statement and its parameters: the
  // lead's data). Without NUL bytes, which a text column refuses (the reason would not be recorded).
  const message =
    err instanceof DrizzleQueryError && err.cause instanceof Error
      ? err.cause.message
      : ((err as Error)?.message ?? String(err));
  return message.replaceAll('\u0000', '').slice(0, 2000);
}

/**
 * Each failure on its delivery (attempts, reason): `retrying` while the queue retries it with backoff (its job gets
 * the error), `failed` on the last attempt or for a failure retrying cannot fix — for the route's deliveries list and
 * its redeliver action. The errors of the jobs to retry, by delivery.
 */
async function recordFailures(
  kit: LeadAdsKit,
  orgId: number,
  deliveries: Map<number, Job[]>,
  failures: Map<number, unknown>,
) {
  const retry = new Map<number, Error>();
  if (failures.size === 0) return retry;
  const rows = [...failures].map(([id, err]) => {
    const job = deliveries.get(id)!.reduce((a, b) => (b.retryCount > a.retryCount ? b : a));
    const final = isPermanent(err) || job.retryCount >= job.retryLimit;
    // The job fails with the delivery's reason (not a database error's text, which repeats the lead's data).
    if (!final) retry.set(id, new Error(reasonOf(err)));
    return { id, err, final };
  });
  try {
    await kit.db.tenantTransaction(orgId, (tx) =>
      repo.markDeliveriesFailed(
        tx,
        orgId,
        rows.map(({ id, err, final }) => ({ id, final, reason: reasonOf(err) })),
      ),
    );
  } catch (err) {
    // Not recorded: every failed lead's job is retried.
    for (const { id } of rows) retry.set(id, new Error(reasonOf(err)));
  }
  return retry;
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

/** The ad's ids, the lead's own first (else the webhook's ad id and the route's form). */
const adIds = ({ lead, delivery, route }: Fetched) => ({
  ad_id: lead.adId ?? delivery.adId,
  adset_id: lead.adsetId,
  campaign_id: lead.campaignId,
  form_id: lead.formId ?? route.formId,
});

/** The card's tracking: the source, the lead and page, and the ad's ids it has. */
function trackingOf(lead: Fetched): Record<string, string> {
  const tracking: Record<string, string> = {
    utm_source: 'lead_ads',
    leadgen_id: lead.lead.id,
    page_id: lead.route.pageId,
  };
  for (const [k, v] of Object.entries(adIds(lead))) if (v) tracking[k] = v;
  return tracking;
}

interface Checked {
  lead: Fetched;
  mapped: Mapped;
  target: LeadBoard;
  card: PreparedCard;
}

interface CardRef {
  documentId: string;
  title: string;
}

/**
 * The fetched leads' cards, contacts, timeline entries and events, and their deliveries `succeeded`, in the
 * caller's transaction. A lead whose card cannot be made (a required field it does not fill, its board gone) is
 * left out and returned with its reason; any other error fails the transaction.
 */
async function makeCards(tx: Tx, orgId: number, fetched: Fetched[]) {
  const failed = new Map<number, unknown>();
  const locked = await repo.lockDeliveries(
    tx,
    orgId,
    fetched.map((f) => f.delivery.id),
  );
  const boards = new Map<number, LeadBoard>();
  const checked: Checked[] = [];
  for (const lead of fetched) {
    const current = locked.get(lead.delivery.id);
    if (!current || current.status === 'succeeded') continue;
    const mapped = applyMapping(lead.route, lead.lead);
    try {
      let target = boards.get(lead.route.boardId);
      if (!target) {
        target = await openLeadBoard(tx, orgId, lead.route.boardId);
        boards.set(lead.route.boardId, target);
      }
      const card = await checkLeadCard(tx, orgId, target, {
        fields: mapped.fields,
        tracking: trackingOf(lead),
      });
      checked.push({ lead, mapped, target, card });
    } catch (err) {
      // Only the lead's own problem (an AppError: nothing failed in the database) leaves the others going.
      if (!(err instanceof AppError)) throw err;
      failed.set(lead.delivery.id, err);
    }
  }
  if (checked.length === 0) return failed;
  const people = await matchOrMakeContacts(
    tx,
    orgId,
    checked.map((c) => ({ values: c.mapped.contact, fallbackName: `Lead ${c.lead.lead.id}` })),
  );
  const withPeople = checked.map((c, i) => ({ ...c, ...people[i] }));
  // Board by board in id order (each board's distribution queue is locked in that order by every batch).
  const done: ((typeof withPeople)[number] & { made: CardRef & { id: number } })[] = [];
  const targets = [...new Set(checked.map((c) => c.target))].sort(
    (a, b) => a.structure.board.id - b.structure.board.id,
  );
  for (const target of targets) {
    const mine = withPeople.filter((c) => c.target === target);
    const rows = await insertLeadCards(
      tx,
      orgId,
      target,
      mine.map((c) => ({ card: c.card, title: c.mapped.title ?? c.row.name, contactId: c.row.id })),
    );
    for (const [i, c] of mine.entries())
      done.push({ ...c, made: { id: rows[i].id, documentId: rows[i].documentId, title: rows[i].title } });
  }
  // The timeline: a new contact's "created" entry, each lead's card. One insert.
  await insertActivities(
    tx,
    orgId,
    done.flatMap(({ row: contact, created, made: card, target, lead }) => [
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
        activityType: 'card_created' as const,
        description: `Lead from form "${lead.route.formName ?? lead.route.formId}": card "${card.title}" created`,
        actorId: null,
        metadata: {
          card: { documentId: card.documentId, title: card.title },
          board: target.board,
          leadgenId: lead.lead.id,
          formId: lead.route.formId,
          source: 'lead_ads',
        },
      },
    ]),
  );
  await recordEvents(
    tx,
    orgId,
    done.map(({ lead, row: contact, made: card, target }) => ({
      type: 'lead.received' as const,
      subject: `lead:${lead.lead.id}`,
      data: {
        lead: {
          id: lead.lead.id,
          createdTime: lead.lead.createdTime,
          formId: lead.route.formId,
          pageId: lead.route.pageId,
          ...adIds(lead),
        },
        route: { documentId: lead.route.documentId, name: lead.route.name },
        card: { documentId: card.documentId, title: card.title, board: target.board },
        contact: { documentId: contact.documentId, name: contact.name },
      },
    })),
  );
  await recordLeadConsents(tx, orgId, done);
  await repo.markDeliveriesSucceeded(
    tx,
    orgId,
    done.map(({ lead, made: card, row: contact }) => ({
      id: lead.delivery.id,
      cardId: card.id,
      cardDocumentId: card.documentId,
      contactDocumentId: contact.documentId,
    })),
  );
  return failed;
}
