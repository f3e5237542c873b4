import { sql } from 'drizzle-orm';
import { publicBaseUrl } from '../../config.js';
import { mapInPool } from '../../platform/concurrency.js';
import type { Tx } from '../../platform/db/client.js';
import { queryRows } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import type { WorkerDeps } from '../../platform/deps.js';
import { recordEvent } from '../../platform/events/outbox.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import * as channelsRepo from '../channels/index.js';
import {
  type ChannelKit,
  type ChannelProvider,
  channelProvider,
  channelRate,
  lazyChannelKit,
  type PaceConfig,
  reserveChannelSlots,
  takeRecipientSlots,
} from '../channels/index.js';
import * as contactsRepo from '../contacts/index.js';
import * as emailRepo from '../email-templates/index.js';
import { type RenderContext, renderEmail, renderString } from '../email-templates/index.js';
import { findOrganizationById } from '../organizations/index.js';
import { segmentAudiencePredicate } from '../segments/index.js';
import * as waRepo from '../templates/index.js';
import { consentSkips, skipWithoutConsent } from './consent.js';
import * as repo from './repo.js';
import { applyHolds, failureOf, type Settled } from './send-failures.js';
import { type TrackingSigner, trackingSigner } from './tracking.js';

/**
 * Campaign sending (docs/messaging.md). Delivery guarantee: AT MOST ONCE per (campaign, contact). A dispatcher
 * claims a batch (pending → sending, committed), calls the provider, then settles the batch (sent / failed /
 * retry later) in one transaction. Each send's attempt is committed just before the provider call
 * (`attempted_at`): rows a dead process left `sending` without one go back to pending; with one, they are failed
 * as "interrupted, outcome unknown", never sent again: a person receiving a marketing message twice is worse than one missing message that
 * the campaign's stats and recipient list show. Provider answers that prove nothing was sent (connection refused,
 * 429, 5xx) go back to pending with backoff; timeouts after the request left are treated as unknown (failed).
 */

export interface CampaignJob {
  orgId: number;
  campaignId: number;
}

export const campaignStartQueue: QueueDef = { name: 'campaign-start', retryLimit: 5, retryDelay: 10 };
export const campaignDispatchQueue: QueueDef = {
  name: 'campaign-dispatch',
  retryLimit: 20,
  retryDelay: 5,
  retryBackoff: true,
  expireInSeconds: 300,
};
export const campaignWatchdogQueue: QueueDef = { name: 'campaign-watchdog' };

const CONCURRENCY = 10;
const MAX_BATCH = 50;
/** A dispatcher works this long, then hands over to a fresh job (so pause, deploys and crashes cost little). */
const SLICE_MS = 30_000;

/** How long a claimed row may stay `sending` before it counts as interrupted: a whole batch's worst case. */
export const leaseSeconds = (timeoutMs: number) =>
  Math.ceil((MAX_BATCH / CONCURRENCY) * (timeoutMs / 1000)) + 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a campaign that is due: scheduled → processing, and on its first start fixes the audience from the
 * segment. Runs in the caller's transaction (trigger) or in the start job; enqueues the dispatcher in the same
 * transaction. Returns false when the campaign was not startable (already moved on).
 */
export async function startInTx(
  deps: Pick<WorkerDeps, 'jobs'>,
  tx: Tx,
  orgId: number,
  campaign: repo.CampaignRow,
) {
  const channel = await channelsRepo.findChannelById(tx, orgId, campaign.channelId);
  if (!channel) return false;
  if (!campaign.startedAt) {
    const segment = campaign.segmentId
      ? (
          await queryRows<{ document_id: string }>(
            tx,
            sql`select document_id from segments where organization_id = ${orgId} and id = ${campaign.segmentId}`,
          )
        )[0]
      : undefined;
    if (!segment) {
      await repo.updateCampaign(tx, orgId, campaign.id, {
        status: 'failed',
        error: 'The segment of this campaign no longer exists',
        completedAt: new Date(),
      });
      return false;
    }
    const predicate = await segmentAudiencePredicate(tx, orgId, segment.document_id);
    await repo.insertAudience(tx, orgId, campaign.id, channel.type, predicate);
    await skipWithoutConsent(tx, orgId, campaign.id, channel.type);
  }
  await repo.updateCampaign(tx, orgId, campaign.id, {
    status: 'processing',
    startedAt: campaign.startedAt ?? new Date(),
    heartbeatAt: new Date(),
  });
  await deps.jobs.send(campaignDispatchQueue, { orgId, campaignId: campaign.id } satisfies CampaignJob, {
    tx,
  });
  return true;
}

interface SendContext {
  orgId: number;
  campaign: repo.CampaignRow;
  provider: ChannelProvider;
  emailTemplate?: emailRepo.EmailTemplateRow;
  whatsappTemplate?: waRepo.TemplateRow;
  organizationName: string;
  signer: TrackingSigner;
  baseUrl: string;
  host: string;
  pace: PaceConfig;
}

function contextFor(s: SendContext, r: repo.ClaimedRecipient, unsubscribeUrl: string): RenderContext {
  return {
    contact: { name: r.name ?? '', email: r.email, phone: r.phone, customFields: r.custom_fields ?? {} },
    organization: { name: s.organizationName },
    unsubscribeUrl,
    variables: s.campaign.variables,
  };
}

/** Click tracking: every http(s) link but the unsubscribe one goes through the signed redirect. */
function trackLinks(html: string, s: SendContext, recipientId: number, unsubscribeUrl: string) {
  const rewritten = html.replace(
    /(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"']+)\2/gi,
    (all, pre, q, raw: string) => {
      const url = raw.replace(/&amp;/g, '&');
      if (url === unsubscribeUrl) return all;
      const token = s.signer.sign('click', s.orgId, recipientId, url);
      const tracked = `${s.baseUrl}/api/track/click/${token}?u=${encodeURIComponent(url)}`;
      return `${pre}${q}${tracked.replace(/&/g, '&amp;')}${q}`;
    },
  );
  const pixel = `<img src="${s.baseUrl}/api/track/open/${s.signer.sign('open', s.orgId, recipientId)}" width="1" height="1" alt="" style="display:none">`;
  return /<\/body>/i.test(rewritten)
    ? rewritten.replace(/<\/body>/i, `${pixel}</body>`)
    : `${rewritten}${pixel}`;
}

async function sendOne(s: SendContext, r: repo.ClaimedRecipient): Promise<Settled> {
  if (!r.contact_document_id) return { id: r.id, outcome: 'skipped', error: 'contact deleted' };
  try {
    const p = s.provider;
    if (p.type === 'email') {
      const unsubscribeUrl = `${s.baseUrl}/api/unsubscribe/${s.signer.sign('unsubscribe', s.orgId, r.id)}`;
      const message = renderEmail(s.emailTemplate!, contextFor(s, r, unsubscribeUrl));
      const messageId = `<c${s.campaign.id}.r${r.id}.o${s.orgId}@${s.host}>`;
      await p.client.send({
        from: `"${p.settings.fromName.replace(/["\\\r\n]/g, '')}" <${p.settings.fromAddress}>`,
        to: r.address,
        replyTo: p.settings.replyTo,
        subject: message.subject,
        html: trackLinks(message.html, s, r.id, unsubscribeUrl),
        text: `${message.text}\n\nUnsubscribe: ${unsubscribeUrl}`,
        messageId,
        headers: {
          'List-Unsubscribe': `<${unsubscribeUrl}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
      });
      return { id: r.id, outcome: 'sent', messageId };
    }
    const ctx = contextFor(s, r, '');
    if (p.type === 'whatsapp') {
      const t = s.whatsappTemplate!;
      const vars = s.campaign.variables;
      const keys = Object.keys(vars)
        .filter((k) => /^\d+$/.test(k))
        .sort((a, b) => Number(a) - Number(b));
      const components = keys.length
        ? [
            {
              type: 'body',
              parameters: keys.map((k) => ({
                type: 'text',
                text: renderString(String(vars[k]), ctx, false),
              })),
            },
          ]
        : [];
      const res = await p.client.sendTemplate(r.address.replace(/^\+/, ''), {
        name: t.name,
        language: t.language,
        components,
      });
      return { id: r.id, outcome: 'sent', messageId: res.messageId };
    }
    const text = renderString(String(s.campaign.messageConfig.text ?? ''), ctx, false);
    const res = await p.client.send(r.address, text);
    return { id: r.id, outcome: 'sent', messageId: res.messageId };
  } catch (err) {
    return failureOf(s.pace, r, err);
  }
}

async function loadSendContext(
  deps: WorkerDeps,
  tx: Tx,
  orgId: number,
  campaign: repo.CampaignRow,
  signer: TrackingSigner,
  kit: ChannelKit,
) {
  const channel = (await channelsRepo.findChannelById(tx, orgId, campaign.channelId))!;
  const org = await findOrganizationById(tx, orgId);
  const baseUrl = publicBaseUrl(deps.config);
  return {
    channel,
    ctx: {
      orgId,
      campaign,
      provider: channelProvider(kit, channel),
      emailTemplate: campaign.emailTemplateId
        ? await emailRepo.findTemplateById(tx, orgId, campaign.emailTemplateId)
        : undefined,
      whatsappTemplate: campaign.whatsappTemplateId
        ? (await waRepo.templatesByIds(tx, orgId, [campaign.whatsappTemplateId]))[0]
        : undefined,
      organizationName: org?.name ?? '',
      signer,
      baseUrl,
      host: new URL(baseUrl).hostname || 'crm.localhost',
      pace: deps.config,
    } satisfies SendContext,
  };
}

async function finish(deps: WorkerDeps, orgId: number, campaignId: number) {
  await deps.db.tenantTransaction(orgId, async (tx) => {
    const stats = (await repo.statsOf(tx, orgId, [campaignId])).get(campaignId)!;
    const nothingSent = stats.sent === 0 && stats.total > 0;
    const status = nothingSent ? 'failed' : 'completed';
    const moved = await repo.moveStatus(tx, orgId, campaignId, ['processing'], {
      status,
      completedAt: new Date(),
      error: nothingSent ? `Nothing could be sent: ${stats.failed} failed, ${stats.skipped} skipped` : null,
    });
    // Once: only the pass that moved it out of processing records the event (in the same transaction).
    const campaign = moved ? await repo.findCampaignById(tx, orgId, campaignId) : undefined;
    if (campaign)
      await recordEvent(tx, orgId, 'campaign.completed', `campaign:${campaign.documentId}`, {
        campaign: { documentId: campaign.documentId, name: campaign.name, status },
        stats: { total: stats.total, sent: stats.sent, failed: stats.failed, skipped: stats.skipped },
      });
  });
}

/**
 * Claims a batch and books it on the channel's clock (messages per second of the number, shared by every process);
 * on WhatsApp, recipients whose own clock is not free by the batch's slot (one message every
 * CRM_WHATSAPP_PAIR_INTERVAL_MS per person) go back to pending for when it is: delayed, never dropped.
 */
async function claimStep(
  deps: WorkerDeps,
  tx: Tx,
  { orgId, campaignId }: CampaignJob,
  lease: number,
  signer: TrackingSigner,
  kit: ChannelKit,
) {
  const campaign = await repo.campaignById(tx, orgId, campaignId);
  if (campaign?.status !== 'processing') return { stop: true as const };
  await repo.failInterrupted(tx, orgId, campaignId, lease);
  const { channel, ctx } = await loadSendContext(deps, tx, orgId, campaign, signer, kit);
  const rate = channelRate(channel, deps.config);
  let batch = await repo.claimBatch(tx, orgId, campaignId, Math.max(1, Math.min(MAX_BATCH, rate)));
  await repo.updateCampaign(tx, orgId, campaignId, { heartbeatAt: new Date() });
  const delay = batch.length ? await reserveChannelSlots(tx, orgId, channel.id, batch.length, rate) : 0;
  if (channel.type === 'whatsapp' && batch.length) {
    const busy = await takeRecipientSlots(
      tx,
      orgId,
      channel.id,
      batch.map((r) => r.address),
      delay,
      // Counted from the end of the batch's slot: its messages leave 1/rate apart within it.
      deps.config.CRM_WHATSAPP_PAIR_INTERVAL_MS + (batch.length * 1000) / rate,
    );
    const deferred = batch.filter((r) => busy.has(r.address));
    await repo.deferRecipients(
      tx,
      orgId,
      deferred.map((r) => ({ id: r.id, inMs: busy.get(r.address)! })),
    );
    batch = batch.filter((r) => !busy.has(r.address));
  }
  // The lease counts from the batch's slot, not from the claim: a wait for the channel (a throughput hold can be a
  // minute) must not let another dispatcher take the rows back as interrupted and send them too.
  if (delay > 0)
    await repo.leaseFrom(
      tx,
      orgId,
      batch.map((r) => r.id),
      delay,
    );
  return { stop: false as const, ctx, batch, delay, rate };
}

/** One dispatcher slice: claim, wait for the channel's slot, send, settle; until done, paused or the slice ends. */
export async function dispatchCampaign(deps: WorkerDeps, kit: ChannelKit, job: CampaignJob) {
  const { orgId, campaignId } = job;
  const lease = leaseSeconds(deps.config.CRM_PROVIDER_TIMEOUT_MS);
  const until = Date.now() + SLICE_MS;
  // Before any transaction: on PGlite the one connection is busy inside it (the secret is read outside).
  const signer = await trackingSigner(deps.db);
  while (Date.now() < until) {
    // The batch's slot is `delay` after the claim transaction's now(): counted from when it began.
    const claimedAt = Date.now();
    const step = await deps.db.tenantTransaction(orgId, (tx) => claimStep(deps, tx, job, lease, signer, kit));
    if (step.stop) return;
    const { ctx, batch, delay, rate } = step;
    if (batch.length === 0) {
      const left = await deps.db.tenantTransaction(orgId, (tx) => repo.remaining(tx, orgId, campaignId));
      if (left.pending === 0 && left.sending === 0) return finish(deps, orgId, campaignId);
      // Retries not yet due, or another dispatcher's batch in flight.
      await sleep(Math.max(100, Math.min(1000, left.nextDueMs ?? 500)));
      continue;
    }
    // Marketing: recipients whose consent was withdrawn (or never given) since the start are skipped.
    const skips = await deps.db.tenantTransaction(orgId, (tx) =>
      consentSkips(tx, orgId, ctx.provider.type, batch),
    );
    // Each message at its own place in the batch's slot (1/rate apart): the pace holds over any second.
    const start = claimedAt + delay;
    const results = await mapInPool(
      batch.map((r, i) => ({ r, at: start + (i * 1000) / rate })),
      CONCURRENCY,
      async ({ r, at }) => {
        const skip = skips.get(r.id);
        if (skip) return skip;
        if (at > Date.now()) await sleep(at - Date.now());
        // Committed before the provider call: a kill before it leaves the row safe to send again.
        const marked = await deps.db
          .tenantTransaction(orgId, (tx) => repo.markAttempted(tx, orgId, r.id))
          .then(() => true)
          .catch(() => false);
        if (!marked)
          return {
            id: r.id,
            outcome: 'retry' as const,
            error: 'could not record the attempt',
            retryInSeconds: 5,
          };
        return sendOne(ctx, r);
      },
    );
    await deps.db.tenantTransaction(orgId, async (tx) => {
      await repo.settleResults(tx, orgId, results);
      const channel = { orgId, channelId: ctx.campaign.channelId, pace: ctx.pace };
      await applyHolds(tx, { ...channel, whatsapp: ctx.provider.type === 'whatsapp' }, batch, results);
      const activity =
        ctx.provider.type === 'email'
          ? 'email_sent'
          : ctx.provider.type === 'whatsapp'
            ? 'whatsapp_sent'
            : null;
      if (activity) {
        const byId = new Map(batch.map((r) => [r.id, r]));
        await contactsRepo.insertActivities(
          tx,
          orgId,
          results
            .filter((r) => r.outcome === 'sent')
            .map((r) => ({
              contactId: byId.get(r.id)!.contact_id,
              activityType: activity,
              description: `Campaign "${ctx.campaign.name}" sent by ${activity === 'email_sent' ? 'e-mail' : 'WhatsApp'}`,
              actorId: null,
              metadata: { campaign: ctx.campaign.documentId, messageId: r.messageId },
            })),
        );
      }
    });
    for (const r of results) deps.metrics.campaignSends(ctx.provider.type, r.outcome);
  }
  // Slice over: a fresh job continues (the queue's expiry then only has to cover one slice).
  await deps.jobs.send(campaignDispatchQueue, job);
}

export async function registerCampaignWorkers(deps: WorkerDeps) {
  const kit = lazyChannelKit(deps.config, deps.db);
  await deps.jobs.work<CampaignJob>(campaignStartQueue, async ({ orgId, campaignId }) => {
    await deps.db.tenantTransaction(orgId, async (tx) => {
      const c = await repo.campaignById(tx, orgId, campaignId, true);
      // Paused, cancelled, rescheduled later or already started: nothing to do.
      if (c?.status !== 'scheduled' || !c.scheduledAt || c.scheduledAt.getTime() > Date.now() + 1000) return;
      await startInTx(deps, tx, orgId, c);
    });
  });
  await deps.jobs.work<CampaignJob>(campaignDispatchQueue, async (job) =>
    dispatchCampaign(deps, await kit(), job),
  );
  // Restarts dispatchers that died (kill -9, lost job) and starts scheduled campaigns whose start job was lost.
  await deps.jobs.every(campaignWatchdogQueue, 10, async () => {
    const lease = leaseSeconds(deps.config.CRM_PROVIDER_TIMEOUT_MS);
    const stale = await queryRows<{ organization_id: number; id: number }>(
      deps.db.system,
      sql`update campaigns set heartbeat_at = now()
          where status = 'processing' and (heartbeat_at is null or heartbeat_at < now() - make_interval(secs => ${lease}))
            ${ownOrganizations(deps.db, sql`organization_id`)}
          returning organization_id, id`,
    );
    for (const c of stale)
      await deps.jobs.send(campaignDispatchQueue, { orgId: c.organization_id, campaignId: c.id });
    const due = await queryRows<{ organization_id: number; id: number }>(
      deps.db.system,
      sql`select organization_id, id from campaigns where status = 'scheduled' and scheduled_at < now() - interval '15 seconds'
          ${ownOrganizations(deps.db, sql`organization_id`)}`,
    );
    for (const c of due)
      await deps.jobs.send(campaignStartQueue, { orgId: c.organization_id, campaignId: c.id });
  });
}
