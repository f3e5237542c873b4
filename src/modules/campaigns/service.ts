import { sql } from 'drizzle-orm';
import { audit } from '../../platform/audit/audit.js';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import type { Jobs } from '../../platform/jobs/jobs.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import * as channelsRepo from '../channels/index.js';
import * as emailRepo from '../email-templates/index.js';
import * as segmentsRepo from '../segments/index.js';
import * as waRepo from '../templates/index.js';
import { type CampaignJob, campaignDispatchQueue, campaignStartQueue, startInTx } from './dispatch.js';
import * as repo from './repo.js';
import type { Campaign, CampaignAction, CampaignInput, CampaignUpdate } from './schema.js';
import type { CampaignStatus } from './table.js';

/** The state table of DESIGN.md §11: which actions each status allows. */
export const ALLOWED: Record<CampaignStatus, CampaignAction[]> = {
  draft: ['trigger', 'cancel'],
  scheduled: ['pause', 'cancel'],
  processing: ['pause', 'cancel'],
  paused: ['resume', 'cancel'],
  completed: [],
  failed: [],
  cancelled: [],
};

function requireAction(row: repo.CampaignRow, action: CampaignAction) {
  if (!ALLOWED[row.status].includes(action))
    throw new AppError(
      'UnprocessableEntityError',
      `A ${row.status} campaign cannot be ${action === 'trigger' ? 'triggered' : `${action}d`}`,
      {
        campaignStatus: row.status,
        action,
        allowed: ALLOWED[row.status],
      },
    );
}

export function requireCampaignsFeature(ctx: TenantContext) {
  requireFeature(ctx, 'campaigns');
}

export function toCampaign(
  v: NonNullable<Awaited<ReturnType<typeof repo.findCampaign>>>,
  stats: repo.StatsRow,
): Campaign {
  const c = v.campaign;
  const template = v.emailTemplate?.documentId
    ? { documentId: v.emailTemplate.documentId, name: v.emailTemplate.name, kind: 'email' as const }
    : v.whatsappTemplate?.documentId
      ? {
          documentId: v.whatsappTemplate.documentId,
          name: v.whatsappTemplate.name,
          kind: 'whatsapp' as const,
        }
      : null;
  return {
    documentId: c.documentId,
    name: c.name,
    description: c.description,
    channel: v.channel.type,
    chatChannel: v.channel,
    campaignStatus: c.status,
    segment: v.segment?.documentId ? { documentId: v.segment.documentId, name: v.segment.name } : null,
    template,
    variables: c.variables,
    messageConfig: c.messageConfig,
    stats,
    scheduledAt: iso(c.scheduledAt),
    startedAt: iso(c.startedAt),
    completedAt: iso(c.completedAt),
    error: c.error,
    createdAt: isoRequired(c.createdAt),
    updatedAt: isoRequired(c.updatedAt),
  };
}

async function view(tx: Tx, orgId: number, documentId: string) {
  const v = await repo.findCampaign(tx, orgId, documentId);
  if (!v) throw notFound('Campaign');
  return toCampaign(v, (await repo.statsOf(tx, orgId, [v.campaign.id])).get(v.campaign.id)!);
}

export async function listCampaigns(ctx: TenantContext, query: ListQueryInput) {
  requireCampaignsFeature(ctx);
  const q = compileListQuery(repo.campaignModel, query);
  return ctx.transaction(async (tx) => {
    const { rows, total } = await repo.listCampaigns(tx, ctx.orgId, q);
    const stats = await repo.statsOf(
      tx,
      ctx.orgId,
      rows.map((r) => r.campaign.id),
    );
    return listPage(
      rows.map((r) => toCampaign(r, stats.get(r.campaign.id)!)),
      total,
      q,
    );
  });
}

export async function getCampaign(ctx: TenantContext, documentId: string) {
  requireCampaignsFeature(ctx);
  return ctx.transaction((tx) => view(tx, ctx.orgId, documentId));
}

const refError = (path: string, message: string) =>
  new AppError('NotFoundError', message, { errors: [{ path: [path], message }] });
const invalid = (path: string, message: string) =>
  new AppError('ValidationError', message, { errors: [{ path: [path], message, name: 'ValidationError' }] });

/** Resolves channel, segment and template documentIds; the template kind must fit the channel's type. */
async function resolveRefs(tx: Tx, ctx: TenantContext, input: CampaignUpdate, current?: repo.CampaignRow) {
  const values: repo.CampaignValues = {};
  let channel = current ? await channelsRepo.findChannelById(tx, ctx.orgId, current.channelId) : undefined;
  if (input.channel !== undefined) {
    channel = await channelsRepo.findChannel(tx, ctx.orgId, input.channel);
    if (!channel) throw refError('channel', `no chat channel ${input.channel}`);
    values.channelId = channel.id;
  }
  if (!channel) throw invalid('channel', 'channel is required');
  if (channel.type === 'email') requireFeature(ctx, 'email_marketing');
  if (input.segment !== undefined) {
    const segment = await segmentsRepo.findSegment(tx, ctx.orgId, input.segment);
    if (!segment) throw refError('segment', `no segment ${input.segment}`);
    values.segmentId = segment.id;
  }
  const templateId = input.template;
  const channelChanged = input.channel !== undefined && current?.channelId !== channel.id;
  if (templateId !== undefined || channelChanged || !current) {
    values.emailTemplateId = null;
    values.whatsappTemplateId = null;
    const id = templateId ?? undefined;
    if (channel.type === 'email') {
      if (!id) throw invalid('template', 'an e-mail campaign needs an e-mail template');
      const t = await emailRepo.findTemplate(tx, ctx.orgId, id);
      if (!t) throw refError('template', `no e-mail template ${id}`);
      values.emailTemplateId = t.id;
    } else if (channel.type === 'whatsapp') {
      if (!id) throw invalid('template', 'a WhatsApp campaign needs a template of the channel');
      const t = await waRepo.findTemplate(tx, ctx.orgId, channel.id, id);
      if (!t) throw refError('template', `no template ${id} on channel ${channel.documentId}`);
      values.whatsappTemplateId = t.id;
    } else if (id) throw invalid('template', 'SMS campaigns send messageConfig.text, not a template');
  }
  const messageConfig = input.messageConfig ?? current?.messageConfig ?? {};
  if (channel.type === 'sms' && (typeof messageConfig.text !== 'string' || !messageConfig.text.trim()))
    throw invalid('messageConfig', 'an SMS campaign needs messageConfig.text');
  return values;
}

export async function createCampaign(ctx: TenantContext, input: CampaignInput) {
  requireCampaignsFeature(ctx);
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const refs = await resolveRefs(tx, ctx, input);
    const row = await repo.insertCampaign(tx, ctx.orgId, {
      ...refs,
      channelId: refs.channelId!,
      name: input.name,
      description: input.description ?? null,
      variables: input.variables ?? {},
      messageConfig: input.messageConfig ?? {},
      scheduledAt: input.scheduledAt ? new Date(input.scheduledAt) : null,
      createdBy: ctx.membershipId,
    });
    await audit(tx, ctx, 'campaign.created', row.documentId);
    return view(tx, ctx.orgId, row.documentId);
  });
}

async function lockOr404(tx: Tx, ctx: TenantContext, documentId: string) {
  const row = await repo.lockCampaign(tx, ctx.orgId, documentId);
  if (!row) throw notFound('Campaign');
  return row;
}

export async function updateCampaign(
  ctx: TenantContext,
  jobs: Jobs,
  documentId: string,
  input: CampaignUpdate,
) {
  requireCampaignsFeature(ctx);
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const row = await lockOr404(tx, ctx, documentId);
    if (row.status !== 'draft' && row.status !== 'scheduled')
      throw new AppError(
        'UnprocessableEntityError',
        `A ${row.status} campaign cannot be edited (draft or scheduled only)`,
        {
          campaignStatus: row.status,
          allowed: ALLOWED[row.status],
        },
      );
    const refs = await resolveRefs(tx, ctx, input, row);
    const scheduledAt =
      input.scheduledAt === undefined ? undefined : input.scheduledAt ? new Date(input.scheduledAt) : null;
    if (row.status === 'scheduled' && input.scheduledAt !== undefined && !scheduledAt)
      throw invalid('scheduledAt', 'a scheduled campaign keeps a date: cancel or pause it instead');
    await repo.updateCampaign(tx, ctx.orgId, row.id, {
      ...refs,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description ?? null } : {}),
      ...(input.variables !== undefined ? { variables: input.variables } : {}),
      ...(input.messageConfig !== undefined ? { messageConfig: input.messageConfig } : {}),
      ...(scheduledAt !== undefined ? { scheduledAt } : {}),
    });
    // A scheduled campaign moved in time gets a start job at the new time (the old one finds it not due).
    if (row.status === 'scheduled' && scheduledAt)
      await jobs.send(campaignStartQueue, { orgId: ctx.orgId, campaignId: row.id } satisfies CampaignJob, {
        tx,
        startAfter: scheduledAt,
      });
    await audit(tx, ctx, 'campaign.updated', documentId, { fields: Object.keys(input) });
    return view(tx, ctx.orgId, documentId);
  });
}

export async function deleteCampaign(ctx: TenantContext, documentId: string) {
  requireCampaignsFeature(ctx);
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const row = await lockOr404(tx, ctx, documentId);
    if (row.status === 'processing' || row.status === 'paused')
      throw new AppError(
        'UnprocessableEntityError',
        `A ${row.status} campaign cannot be deleted: cancel it first`,
        {
          campaignStatus: row.status,
          allowed: ALLOWED[row.status],
        },
      );
    await repo.deleteCampaign(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'campaign.deleted', documentId, { name: row.name, status: row.status });
    return { documentId, deleted: true as const };
  });
}

/** trigger / pause / resume / cancel: the state table; any other pair is a 422 listing the allowed actions. */
export async function runAction(ctx: TenantContext, jobs: Jobs, documentId: string, action: CampaignAction) {
  requireCampaignsFeature(ctx);
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const row = await lockOr404(tx, ctx, documentId);
    requireAction(row, action);
    const now = Date.now();
    const future = row.scheduledAt !== null && row.scheduledAt.getTime() > now;
    const job = { orgId: ctx.orgId, campaignId: row.id } satisfies CampaignJob;
    if (action === 'trigger' || (action === 'resume' && !row.startedAt)) {
      if (future) {
        await repo.updateCampaign(tx, ctx.orgId, row.id, { status: 'scheduled', error: null });
        await jobs.send(campaignStartQueue, job, { tx, startAfter: row.scheduledAt! });
      } else {
        const channel = await channelsRepo.findChannelById(tx, ctx.orgId, row.channelId);
        if (channel?.type === 'email') requireFeature(ctx, 'email_marketing');
        if (row.segmentId === null || !(await segmentExists(tx, ctx.orgId, row.segmentId)))
          throw new AppError(
            'UnprocessableEntityError',
            'The segment of this campaign no longer exists: choose another',
            {
              campaignStatus: row.status,
              errors: [{ path: ['segment'], message: 'segment deleted' }],
            },
          );
        if (!row.emailTemplateId && !row.whatsappTemplateId && channel?.type !== 'sms')
          throw new AppError(
            'UnprocessableEntityError',
            'The template of this campaign no longer exists: choose another',
            {
              campaignStatus: row.status,
              errors: [{ path: ['template'], message: 'template deleted' }],
            },
          );
        if (
          row.whatsappTemplateId &&
          (await waRepo.templatesByIds(tx, ctx.orgId, [row.whatsappTemplateId])).length === 0
        )
          throw new AppError(
            'UnprocessableEntityError',
            'The WhatsApp template of this campaign was removed at the provider',
            {
              campaignStatus: row.status,
              errors: [{ path: ['template'], message: 'template deleted' }],
            },
          );
        await startInTx({ jobs }, tx, ctx.orgId, row);
      }
    } else if (action === 'pause') {
      await repo.updateCampaign(tx, ctx.orgId, row.id, { status: 'paused' });
    } else if (action === 'resume') {
      // Already started: carry on sending.
      await repo.updateCampaign(tx, ctx.orgId, row.id, { status: 'processing', heartbeatAt: new Date() });
      await jobs.send(campaignDispatchQueue, job, { tx });
    } else {
      await repo.updateCampaign(tx, ctx.orgId, row.id, { status: 'cancelled', completedAt: new Date() });
      await repo.skipPending(tx, ctx.orgId, row.id, 'cancelled');
    }
    await audit(tx, ctx, `campaign.${action}`, documentId, { from: row.status });
    return view(tx, ctx.orgId, documentId);
  });
}

async function segmentExists(tx: Tx, orgId: number, id: number) {
  const rows = await queryRows(
    tx,
    sql`select 1 from segments where organization_id = ${orgId} and id = ${id}`,
  );
  return rows.length > 0;
}

export async function campaignStats(ctx: TenantContext, documentId: string) {
  requireCampaignsFeature(ctx);
  return ctx.transaction(async (tx) => {
    const v = await repo.findCampaign(tx, ctx.orgId, documentId);
    if (!v) throw notFound('Campaign');
    const s = (await repo.statsOf(tx, ctx.orgId, [v.campaign.id])).get(v.campaign.id)!;
    return {
      campaignId: documentId,
      stats: {
        totalAudience: s.total,
        sent: s.sent,
        failed: s.failed,
        pending: s.pending,
        readRate: s.sent === 0 ? 0 : Math.min(1, s.opened / s.sent),
      },
    };
  });
}

export async function listRecipients(ctx: TenantContext, documentId: string, query: ListQueryInput) {
  requireCampaignsFeature(ctx);
  const q = compileListQuery(repo.recipientModel, query, 'id:asc');
  return ctx.transaction(async (tx) => {
    const v = await repo.findCampaign(tx, ctx.orgId, documentId);
    if (!v) throw notFound('Campaign');
    const { rows, total } = await repo.listRecipients(tx, ctx.orgId, v.campaign.id, q);
    return listPage(
      rows.map((r: any) => ({
        contact: r.contact_document_id ? { documentId: r.contact_document_id, name: r.contact_name } : null,
        address: r.address,
        status: r.status,
        skipReason: r.skip_reason,
        attempts: Number(r.attempts),
        error: r.error,
        messageId: r.provider_message_id,
        sentAt: iso(r.sent_at),
        deliveredAt: iso(r.delivered_at),
        openedAt: iso(r.opened_at),
        clickedAt: iso(r.clicked_at),
        bouncedAt: iso(r.bounced_at),
      })),
      total,
      q,
    );
  });
}

// ---- suppressions

/** E-mail addresses lower-cased; phone numbers as + and digits (what campaign audiences compare). */
export function normalizeAddress(raw: string): string | null {
  const s = raw.trim().toLowerCase();
  if (s.includes('@')) return /^[^@\s]+@[^@\s]+$/.test(s) ? s : null;
  const digits = s.replace(/[^0-9]/g, '');
  return digits.length >= 8 && digits.length <= 15 && /^\+?[0-9 ().-]+$/.test(s) ? `+${digits}` : null;
}

const toSuppression = (r: { s: repo.SuppressionRow; campaign: string | null }) => ({
  documentId: r.s.documentId,
  address: r.s.address,
  reason: r.s.reason,
  campaign: r.campaign,
  createdAt: isoRequired(r.s.createdAt),
});

export async function listSuppressions(ctx: TenantContext, query: ListQueryInput) {
  requireCampaignsFeature(ctx);
  const q = compileListQuery(repo.suppressionModel, query);
  const { rows, total } = await ctx.transaction((tx) => repo.listSuppressions(tx, ctx.orgId, q));
  return listPage(rows.map(toSuppression), total, q);
}

export async function addSuppression(
  ctx: TenantContext,
  input: { address: string; reason: repo.SuppressionRow['reason'] },
) {
  requireCampaignsFeature(ctx);
  requireRole(ctx, 'member');
  const address = normalizeAddress(input.address);
  if (!address) throw invalid('address', 'an e-mail address or a phone number with 8 to 15 digits');
  return ctx.transaction(async (tx) => {
    const row = await repo.addSuppression(tx, ctx.orgId, address, input.reason, null);
    if (!row)
      throw new AppError('ValidationError', 'This address is already suppressed', {
        duplicateKeys: ['address'],
        errors: [{ path: ['address'], message: 'already suppressed', name: 'ValidationError' }],
      });
    await audit(tx, ctx, 'suppression.created', row.documentId, { reason: row.reason });
    return toSuppression({ s: row, campaign: null });
  });
}

export async function deleteSuppression(ctx: TenantContext, documentId: string) {
  requireCampaignsFeature(ctx);
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await repo.findSuppression(tx, ctx.orgId, documentId);
    if (!row) throw notFound('Suppression');
    await repo.deleteSuppression(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'suppression.deleted', documentId, { reason: row.reason });
    return { documentId, deleted: true as const };
  });
}
