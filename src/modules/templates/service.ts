import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { AppError, notFound, onUnique } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { iso } from '../../platform/http/schemas.js';
import { ProviderError, toBadGateway } from '../../platform/providers/provider-error.js';
import type { ProviderTemplate } from '../../platform/providers/whatsapp/client.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import {
  type ChannelKit,
  type ChannelRow,
  channelProvider,
  findChannelOr404,
  requireChannelsFeature,
} from '../channels/index.js';
import * as repo from './repo.js';
import {
  MEDIA_TYPES,
  TEMPLATE_STATUSES,
  type WhatsAppTemplate,
  type WhatsAppTemplateInput,
} from './schema.js';

export function toTemplate(row: repo.TemplateRow): WhatsAppTemplate {
  return {
    documentId: row.documentId,
    name: row.name,
    language: row.language,
    category: row.category,
    status: (TEMPLATE_STATUSES as readonly string[]).includes(row.status)
      ? (row.status as WhatsAppTemplate['status'])
      : 'PENDING',
    components: row.components,
    externalId: row.externalId,
    syncedAt: iso(row.syncedAt),
  };
}

function requireWhatsApp(row: ChannelRow) {
  if (row.type !== 'whatsapp')
    throw new AppError('UnprocessableEntityError', 'Message templates exist on WhatsApp channels only', {
      channel: row.documentId,
      type: row.type,
    });
}

async function openChannel(ctx: TenantContext, channelId: string, write: boolean) {
  requireChannelsFeature(ctx);
  if (write) requireRole(ctx, 'admin');
  const row = await ctx.transaction((tx) => findChannelOr404(tx, ctx, channelId));
  if (write) requireWhatsApp(row);
  return row;
}

function whatsapp(kit: ChannelKit, row: ChannelRow) {
  const p = channelProvider(kit, row);
  if (p.type !== 'whatsapp') throw new Error('not a WhatsApp channel');
  return p;
}

/** A channel's templates: WhatsApp's are synced from the provider; other channel types have none. */
export async function listTemplates(ctx: TenantContext, channelId: string, query: ListQueryInput) {
  const q = compileListQuery(repo.templateModel, query, 'name:asc');
  const row = await openChannel(ctx, channelId, false);
  const { rows, total } = await ctx.transaction((tx) => repo.listTemplates(tx, ctx.orgId, row.id, q));
  return listPage(rows.map(toTemplate), total, q);
}

export async function createTemplate(
  ctx: TenantContext,
  kit: ChannelKit,
  channelId: string,
  input: WhatsAppTemplateInput,
) {
  const row = await openChannel(ctx, channelId, true);
  const existing = await ctx.transaction((tx) => repo.allTemplates(tx, ctx.orgId, row.id));
  if (existing.some((t) => t.name === input.name && t.language === input.language))
    throw new AppError('ValidationError', 'A template with this name and language exists on the channel', {
      duplicateKeys: ['name', 'language'],
      errors: [{ path: ['name'], message: 'already taken in this language', name: 'ValidationError' }],
    });
  // The provider first: nothing is stored for a template it refused (502 with its message). A dry run does not
  // submit it: the would-be row is PENDING with no provider id yet (docs/dry-run.md).
  const client = whatsapp(kit, row).client;
  const created = ctx.dryRun
    ? { id: null, status: 'PENDING' }
    : await client.createTemplate(input).catch(toBadGateway);
  return ctx.transaction(async (tx) => {
    const t = await repo
      .insertTemplate(tx, ctx.orgId, row.id, {
        ...input,
        status: created.status ?? 'PENDING',
        externalId: created.id,
        syncedAt: new Date(),
      })
      .catch(onUnique(['name', 'language']));
    await audit(tx, ctx, 'whatsapp_template.submitted', t.documentId, { channel: channelId, name: t.name });
    return toTemplate(t);
  });
}

export async function deleteTemplate(
  ctx: TenantContext,
  kit: ChannelKit,
  channelId: string,
  documentId: string,
) {
  const row = await openChannel(ctx, channelId, true);
  const t = await ctx.transaction((tx) => repo.findTemplate(tx, ctx.orgId, row.id, documentId));
  if (!t) throw notFound('Template');
  // Already gone at the provider (404) is what we wanted; other failures keep the local row (502).
  const client = whatsapp(kit, row).client;
  if (!ctx.dryRun)
    await client.deleteTemplate(t.name, t.externalId ?? undefined).catch((err) => {
      if (err instanceof ProviderError && err.status === 404) return;
      toBadGateway(err);
    });
  return ctx.transaction(async (tx) => {
    await repo.deleteTemplate(tx, ctx.orgId, t.id);
    await audit(tx, ctx, 'whatsapp_template.deleted', documentId, { channel: channelId, name: t.name });
    return { documentId, deleted: true as const };
  });
}

const values = (p: ProviderTemplate, now: Date) => ({
  name: p.name,
  language: p.language,
  category: p.category,
  status: p.status,
  components: p.components as Record<string, unknown>[],
  externalId: p.id,
  syncedAt: now,
});

/** A stored template as the provider lists it (a dry run's sync). */
const asProviderTemplate = (t: repo.TemplateRow): ProviderTemplate => ({
  id: t.externalId ?? '',
  name: t.name,
  language: t.language,
  category: t.category,
  status: t.status,
  components: t.components as unknown as ProviderTemplate['components'],
});

/** Pulls the provider's list: new ones are added, known ones refreshed, those gone there removed here. */
export async function syncTemplates(ctx: TenantContext, kit: ChannelKit, channelId: string) {
  const row = await openChannel(ctx, channelId, true);
  const client = whatsapp(kit, row).client;
  // A dry run does not ask the provider: the would-be list is the one stored now (docs/dry-run.md).
  const remote = ctx.dryRun
    ? await ctx.transaction(async (tx) =>
        (await repo.allTemplates(tx, ctx.orgId, row.id)).map(asProviderTemplate),
      )
    : await client.listTemplates().catch(toBadGateway);
  return ctx.transaction(async (tx: Tx) => {
    const before = new Set((await repo.allTemplates(tx, ctx.orgId, row.id)).map((t) => t.id));
    const now = new Date();
    const kept: repo.TemplateRow[] = [];
    for (const p of remote) kept.push(await repo.upsertTemplate(tx, ctx.orgId, row.id, values(p, now)));
    const deleted = await repo.deleteOthers(
      tx,
      ctx.orgId,
      row.id,
      kept.map((k) => k.id),
    );
    const created = kept.filter((k) => !before.has(k.id)).length;
    await audit(tx, ctx, 'whatsapp_template.synced', row.documentId, { templates: kept.length, deleted });
    return {
      data: kept.sort((a, b) => a.name.localeCompare(b.name)).map(toTemplate),
      meta: { created, updated: kept.length - created, deleted },
    };
  });
}

export async function uploadMediaHandle(
  ctx: TenantContext,
  kit: ChannelKit,
  channelId: string,
  input: { filename: string; mimeType: keyof typeof MEDIA_TYPES; base64: string },
) {
  const row = await openChannel(ctx, channelId, true);
  const settings = row.settings as { appId?: string };
  if (!settings.appId)
    throw new AppError(
      'UnprocessableEntityError',
      'Set settings.appId on the channel: media handles are uploaded to the Meta app',
      {
        channel: channelId,
        setting: 'appId',
      },
    );
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(input.base64.replace(/\s+/g, '')))
    throw new AppError('ValidationError', 'base64 is not valid base64', {
      errors: [{ path: ['base64'], message: 'not base64', name: 'ValidationError' }],
    });
  const bytes = Buffer.from(input.base64, 'base64');
  const max = MEDIA_TYPES[input.mimeType];
  if (bytes.length === 0 || bytes.length > max)
    throw new AppError(
      'ValidationError',
      `The file must be 1 byte to ${max / 1048576} MB for ${input.mimeType}`,
      {
        errors: [{ path: ['base64'], message: `${bytes.length} bytes decoded`, name: 'ValidationError' }],
      },
    );
  const client = whatsapp(kit, row).client;
  // A dry run uploads nothing: the provider makes the handle, so the would-be one is empty (docs/dry-run.md).
  const handle = ctx.dryRun
    ? ''
    : await client
        .uploadMediaHandle({ filename: input.filename, mimeType: input.mimeType, bytes })
        .catch(toBadGateway);
  await ctx.transaction((tx) =>
    audit(tx, ctx, 'whatsapp_template.media_uploaded', row.documentId, {
      filename: input.filename,
      size: bytes.length,
    }),
  );
  return { handle };
}
