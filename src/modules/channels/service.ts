import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { AppError, notFound, onUnique, validationError } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { requirePublicUrl } from '../../platform/outbound/save-check.js';
import { ProviderError } from '../../platform/providers/provider-error.js';
import {
  type Feature,
  planFeatures,
  requireRole,
  type TenantContext,
} from '../../platform/tenancy/context.js';
import { loadBoardForConfigure, loadBoardForRead } from '../boards/index.js';
import { type ChannelKit, channelProvider, openCredentials, sealCredentials } from './credentials.js';
import * as repo from './repo.js';
import {
  type Channel,
  type ChannelInput,
  type ChannelType,
  type ChannelUpdate,
  credentialsByType,
  settingsByType,
} from './schema.js';

/**
 * Channels serve campaigns and the inbox: an organization needs one of those features (403 naming them).
 * Reading needs any role; configuring needs admin (DESIGN.md §6).
 */
export function requireChannelsFeature(ctx: TenantContext) {
  const wanted: Feature[] = ['campaigns', 'inbox'];
  if (!wanted.some((f) => planFeatures[ctx.plan].includes(f))) {
    throw new AppError(
      'ForbiddenError',
      `The ${ctx.plan} plan includes neither the campaigns nor the inbox feature`,
      {
        feature: 'campaigns',
        features: wanted,
        plan: ctx.plan,
      },
    );
  }
}

function parseFor<T extends z.ZodTypeAny>(schema: T, value: unknown, path: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({
      path: [path, ...i.path.map(String)],
      message: i.message,
      name: 'ValidationError',
    }));
    throw validationError(`Invalid ${path}: ${errors[0].path.join('.')} ${errors[0].message}`, errors);
  }
  return parsed.data;
}

export function toChannel(
  row: repo.ChannelRow,
  boards: { documentId: string; name: string }[] = [],
): Channel {
  return {
    documentId: row.documentId,
    name: row.name,
    type: row.type,
    settings: row.settings,
    hasCredentials: row.credentials !== null,
    boards,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

async function withBoards(tx: Tx, orgId: number, rows: repo.ChannelRow[]) {
  const boards = await repo.boardsOfChannels(
    tx,
    orgId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toChannel(r, boards.get(r.id) ?? []));
}

export async function listChannels(ctx: TenantContext, query: ListQueryInput) {
  requireChannelsFeature(ctx);
  const q = compileListQuery(repo.channelModel, query, 'name:asc');
  return ctx.transaction(async (tx) => {
    const { rows, total } = await repo.listChannels(tx, ctx.orgId, q);
    return listPage(await withBoards(tx, ctx.orgId, rows), total, q);
  });
}

export async function findChannelOr404(tx: Tx, ctx: TenantContext, documentId: string) {
  const row = await repo.findChannel(tx, ctx.orgId, documentId);
  if (!row) throw notFound('Chat channel');
  return row;
}

export async function getChannel(ctx: TenantContext, documentId: string) {
  requireChannelsFeature(ctx);
  return ctx.transaction(
    async (tx) => (await withBoards(tx, ctx.orgId, [await findChannelOr404(tx, ctx, documentId)]))[0],
  );
}

function checkCredentials(type: ChannelType, value: Record<string, unknown>) {
  return parseFor(credentialsByType[type], value, 'credentials') as Record<string, unknown>;
}

/** A channel's own SMTP server is a user-given host: an internal one is refused when saved (and when sending). */
const requirePublicSmtp = (kit: ChannelKit, smtpUrl: unknown) =>
  typeof smtpUrl === 'string'
    ? requirePublicUrl(smtpUrl, ['data', 'credentials', 'smtpUrl'], kit.config.CRM_OUTBOUND_ALLOWLIST)
    : undefined;

export async function createChannel(ctx: TenantContext, kit: ChannelKit, input: ChannelInput) {
  requireChannelsFeature(ctx);
  requireRole(ctx, 'admin');
  const settings = parseFor(settingsByType[input.type], input.settings, 'settings');
  let credentials = input.credentials ? checkCredentials(input.type, input.credentials) : null;
  await requirePublicSmtp(kit, credentials?.smtpUrl);
  if (input.type !== 'email' && !credentials)
    throw validationError(`A ${input.type} channel needs credentials`, [
      { path: ['credentials'], message: 'required for this type', name: 'ValidationError' },
    ]);
  let webhookSecret: string | undefined;
  if (input.type === 'email') {
    webhookSecret =
      (credentials?.webhookSecret as string | undefined) ?? randomBytes(32).toString('base64url');
    credentials = { ...(credentials ?? {}), webhookSecret };
  }
  return ctx.transaction(async (tx) => {
    const documentId = newDocumentId();
    const sealed = credentials
      ? sealCredentials(kit, { organizationId: ctx.orgId, documentId }, credentials)
      : null;
    const row = await repo
      .insertChannel(tx, ctx.orgId, {
        documentId,
        name: input.name,
        type: input.type,
        settings,
        credentials: sealed,
      })
      .catch(onUnique('name'));
    await audit(tx, ctx, 'chat_channel.created', row.documentId, { type: row.type });
    // The generated signing key is shown once, like an API token.
    const out = toChannel(row);
    return input.type === 'email' && !input.credentials?.webhookSecret ? { ...out, webhookSecret } : out;
  });
}

export async function updateChannel(
  ctx: TenantContext,
  kit: ChannelKit,
  documentId: string,
  input: ChannelUpdate,
) {
  requireChannelsFeature(ctx);
  requireRole(ctx, 'admin');
  await requirePublicSmtp(kit, input.credentials?.smtpUrl);
  return ctx.transaction(async (tx) => {
    const row = await repo.findChannel(tx, ctx.orgId, documentId, true);
    if (!row) throw notFound('Chat channel');
    const patch: Partial<repo.ChannelRow> = {};
    if (input.name !== undefined) patch.name = input.name;
    if (input.settings !== undefined)
      patch.settings = parseFor(settingsByType[row.type], { ...row.settings, ...input.settings }, 'settings');
    if (input.credentials !== undefined) {
      const current = openCredentials(kit, row) ?? {};
      const merged = checkCredentials(row.type, { ...current, ...input.credentials });
      patch.credentials = sealCredentials(kit, row, merged);
    }
    await repo.updateChannel(tx, ctx.orgId, row.id, patch).catch(onUnique('name'));
    // Which keys changed, never their values.
    await audit(tx, ctx, 'chat_channel.updated', documentId, {
      fields: Object.keys(input),
      credentialKeys: input.credentials ? Object.keys(input.credentials) : undefined,
    });
    return (await withBoards(tx, ctx.orgId, [(await repo.findChannel(tx, ctx.orgId, documentId))!]))[0];
  });
}

export async function deleteChannel(ctx: TenantContext, documentId: string) {
  requireChannelsFeature(ctx);
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await findChannelOr404(tx, ctx, documentId);
    await repo.deleteChannel(tx, ctx.orgId, row.id).catch((err) => {
      const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
      if (code === '23503')
        throw new AppError('UnprocessableEntityError', 'Campaigns use this channel: delete them first', {
          channel: documentId,
        });
      throw err;
    });
    await audit(tx, ctx, 'chat_channel.deleted', documentId, { type: row.type, name: row.name });
    return { documentId, deleted: true as const };
  });
}

/** A real provider call: the number's fields (WhatsApp), the account (SMS), EHLO (SMTP). */
export async function channelHealth(ctx: TenantContext, kit: ChannelKit, documentId: string) {
  requireChannelsFeature(ctx);
  const row = await ctx.transaction((tx) => findChannelOr404(tx, ctx, documentId));
  const started = performance.now();
  let message: string;
  let status: 'ok' | 'error' = 'ok';
  try {
    const p = channelProvider(kit, row);
    if (p.type === 'whatsapp') {
      const h = await p.client.health();
      message = `WhatsApp number ${h.displayPhoneNumber ?? p.settings.phoneNumberId} reachable (quality ${h.qualityRating ?? 'unknown'})`;
    } else if (p.type === 'sms') {
      const h = await p.client.health();
      message = `SMS account ${h.status ?? 'reachable'}`;
    } else {
      await p.client.verify();
      message = p.credentials.smtpUrl
        ? "The channel's SMTP server accepted the connection"
        : 'The service mail transport is ready';
    }
  } catch (err) {
    if (!(err instanceof ProviderError) && !(err instanceof AppError)) throw err;
    status = 'error';
    message = err instanceof ProviderError ? `${err.provider} provider: ${err.message}` : err.message;
  }
  return {
    status,
    checkedAt: new Date().toISOString(),
    latencyMs: Math.round(performance.now() - started),
    message,
  };
}

export async function listBoardChannels(ctx: TenantContext, boardId: string) {
  requireChannelsFeature(ctx);
  return ctx.transaction(async (tx) => {
    const { board } = await loadBoardForRead(tx, ctx, boardId);
    return { data: await withBoards(tx, ctx.orgId, await repo.channelsOfBoard(tx, ctx.orgId, board.id)) };
  });
}

export async function setBoardChannels(ctx: TenantContext, boardId: string, channels: string[]) {
  requireChannelsFeature(ctx);
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const { board } = await loadBoardForConfigure(tx, ctx, boardId);
    const unique = [...new Set(channels)];
    const rows = await repo.channelsByDocumentIds(tx, ctx.orgId, unique);
    const missing = unique.filter((d) => !rows.some((r) => r.documentId === d));
    if (missing.length > 0)
      throw notFound('Chat channel', {
        errors: missing.map((d) => ({
          path: ['channels', channels.indexOf(d)],
          message: `no chat channel ${d}`,
        })),
      });
    await repo.replaceBoardChannels(
      tx,
      ctx.orgId,
      board.id,
      rows.map((r) => r.id),
    );
    await audit(tx, ctx, 'board.chat_channels_set', board.documentId, { channels: unique });
    return { data: await withBoards(tx, ctx.orgId, await repo.channelsOfBoard(tx, ctx.orgId, board.id)) };
  });
}
