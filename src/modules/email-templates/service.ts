import { createHash, randomUUID } from 'node:crypto';
import { type Config, publicBaseUrl } from '../../config.js';
import { audit } from '../../platform/audit/audit.js';
import type { Database, Tx } from '../../platform/db/client.js';
import { AppError, notFound, onUnique } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { emailProvider } from '../../platform/providers/email/client.js';
import { toBadGateway } from '../../platform/providers/provider-error.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { type ChannelKit, channelProvider, findChannelOr404 } from '../channels/index.js';
import * as contactsRepo from '../contacts/index.js';
import { findOrganizationById } from '../organizations/index.js';
import { checkVariables, type RenderContext, renderEmail } from './render.js';
import * as repo from './repo.js';
import {
  type ASSET_TYPES,
  type EmailTemplate,
  type EmailTemplateInput,
  type EmailTemplateUpdate,
  MAX_ASSET_BYTES,
} from './schema.js';

/** E-mail templates are e-mail marketing; the agent tools' rule 7 also asks for the campaigns feature. */
export function requireEmailFeatures(ctx: TenantContext) {
  requireFeature(ctx, 'email_marketing');
  requireFeature(ctx, 'campaigns');
}

const usedVariables = (t: { subject: string; html: string; text: string | null }) => [
  ...new Set(
    [t.subject, t.html, t.text ?? ''].flatMap((s) =>
      [...s.matchAll(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g)].map((m) => m[1]),
    ),
  ),
];

export function toEmailTemplate(row: repo.EmailTemplateRow): EmailTemplate {
  return {
    documentId: row.documentId,
    name: row.name,
    subject: row.subject,
    html: row.html,
    text: row.text,
    variables: usedVariables(row),
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

export async function findTemplateOr404(tx: Tx, orgId: number, documentId: string) {
  const row = await repo.findTemplate(tx, orgId, documentId);
  if (!row) throw notFound('E-mail template');
  return row;
}

export async function listTemplates(ctx: TenantContext, query: ListQueryInput) {
  requireEmailFeatures(ctx);
  const q = compileListQuery(repo.emailTemplateModel, query, 'name:asc');
  const { rows, total } = await ctx.transaction((tx) => repo.listTemplates(tx, ctx.orgId, q));
  return listPage(rows.map(toEmailTemplate), total, q);
}

export async function getTemplate(ctx: TenantContext, documentId: string) {
  requireEmailFeatures(ctx);
  return toEmailTemplate(await ctx.transaction((tx) => findTemplateOr404(tx, ctx.orgId, documentId)));
}

export async function createTemplate(ctx: TenantContext, input: EmailTemplateInput) {
  requireEmailFeatures(ctx);
  requireRole(ctx, 'admin');
  checkVariables(input);
  return ctx.transaction(async (tx) => {
    const row = await repo
      .insertTemplate(tx, ctx.orgId, { ...input, text: input.text ?? null })
      .catch(onUnique('name'));
    await audit(tx, ctx, 'email_template.created', row.documentId);
    return toEmailTemplate(row);
  });
}

export async function updateTemplate(ctx: TenantContext, documentId: string, input: EmailTemplateUpdate) {
  requireEmailFeatures(ctx);
  requireRole(ctx, 'admin');
  checkVariables(input);
  return ctx.transaction(async (tx) => {
    const row = await findTemplateOr404(tx, ctx.orgId, documentId);
    await repo.updateTemplate(tx, ctx.orgId, row.id, input).catch(onUnique('name'));
    await audit(tx, ctx, 'email_template.updated', documentId, { fields: Object.keys(input) });
    return toEmailTemplate((await repo.findTemplate(tx, ctx.orgId, documentId))!);
  });
}

export async function deleteTemplate(ctx: TenantContext, documentId: string) {
  requireEmailFeatures(ctx);
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await findTemplateOr404(tx, ctx.orgId, documentId);
    await repo.deleteTemplate(tx, ctx.orgId, row.id).catch((err) => {
      const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
      if (code === '23503')
        throw new AppError('UnprocessableEntityError', 'Campaigns use this template: delete them first', {
          template: documentId,
        });
      throw err;
    });
    await audit(tx, ctx, 'email_template.deleted', documentId, { name: row.name });
    return { documentId, deleted: true as const };
  });
}

const sampleContact = {
  name: 'Ana Silva',
  email: 'ana.silva@example.com',
  phone: '+5511999990000',
  customFields: {} as Record<string, unknown>,
};

async function renderContext(
  tx: Tx,
  ctx: TenantContext,
  contactId: string | undefined,
  variables: Record<string, unknown> | undefined,
  unsubscribeUrl: string,
): Promise<RenderContext> {
  let contact = sampleContact;
  if (contactId) {
    const row = await contactsRepo.findContact(tx, ctx.orgId, contactId);
    if (!row)
      throw notFound('Contact', {
        errors: [{ path: ['contact'], message: `no contact ${contactId}` }],
      });
    contact = {
      name: row.name,
      email: row.email,
      phone: row.phone,
      customFields: row.customFields,
    } as typeof sampleContact;
  }
  const org = await findOrganizationById(tx, ctx.orgId);
  return { contact, organization: { name: org?.name ?? '' }, unsubscribeUrl, variables: variables ?? {} };
}

const previewUnsubscribe = (config: Config) => `${publicBaseUrl(config)}/api/unsubscribe/preview`;

export async function previewTemplate(
  ctx: TenantContext,
  config: Config,
  documentId: string,
  input: { contact?: string; variables?: Record<string, unknown> },
) {
  requireEmailFeatures(ctx);
  return ctx.transaction(async (tx) => {
    const row = await findTemplateOr404(tx, ctx.orgId, documentId);
    return renderEmail(
      row,
      await renderContext(tx, ctx, input.contact, input.variables, previewUnsubscribe(config)),
    );
  });
}

/** A real message to one address, ignoring the suppression list (spec tool rule 7); rate-limited by the route. */
export async function testSend(
  ctx: TenantContext,
  kit: ChannelKit,
  documentId: string,
  input: { to: string; channel?: string; contact?: string; variables?: Record<string, unknown> },
) {
  requireEmailFeatures(ctx);
  requireRole(ctx, 'admin');
  const { config } = kit;
  const { message, channel } = await ctx.transaction(async (tx) => {
    const row = await findTemplateOr404(tx, ctx.orgId, documentId);
    const channel = input.channel ? await findChannelOr404(tx, ctx, input.channel) : undefined;
    if (channel && channel.type !== 'email')
      throw new AppError('UnprocessableEntityError', 'Test e-mails go through an e-mail channel', {
        errors: [{ path: ['channel'], message: `channel is ${channel.type}` }],
      });
    const message = renderEmail(
      row,
      await renderContext(tx, ctx, input.contact, input.variables, previewUnsubscribe(config)),
    );
    await audit(tx, ctx, 'email_template.test_sent', documentId, { to: input.to });
    return { message, channel };
  });
  const provider = channel ? channelProvider(kit, channel) : undefined;
  const from =
    provider?.type === 'email'
      ? `"${provider.settings.fromName.replace(/"/g, '')}" <${provider.settings.fromAddress}>`
      : config.MAIL_FROM;
  const client = provider?.type === 'email' ? provider.client : emailProvider(config);
  const messageId = `<test-${randomUUID()}@crm.localhost>`;
  // A dry run renders and checks everything but sends nothing (docs/dry-run.md).
  if (!ctx.dryRun)
    await client
      .send({
        from,
        to: input.to,
        replyTo: provider?.type === 'email' ? provider.settings.replyTo : undefined,
        subject: `[TEST] ${message.subject}`,
        html: message.html,
        text: message.text,
        messageId,
      })
      .catch(toBadGateway);
  return { messageId, to: input.to, subject: `[TEST] ${message.subject}` };
}

// ---- assets

const assetUrl = (config: Config, a: { documentId: string; filename: string }) =>
  `${publicBaseUrl(config)}/api/email-assets/${a.documentId}/${encodeURIComponent(a.filename)}`;

const toAsset = (config: Config, a: repo.AssetRow) => ({
  documentId: a.documentId,
  filename: a.filename,
  mimeType: a.mimeType,
  size: a.size,
  url: assetUrl(config, a),
  createdAt: isoRequired(a.createdAt),
});

/** Magic numbers: the bytes must be the image type declared, not only its label. */
function sniff(bytes: Buffer): keyof typeof ASSET_TYPES | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (
    bytes.subarray(0, 6).toString('latin1') === 'GIF87a' ||
    bytes.subarray(0, 6).toString('latin1') === 'GIF89a'
  )
    return 'image/gif';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  return null;
}

export async function uploadAsset(
  ctx: TenantContext,
  config: Config,
  input: { filename: string; mimeType: keyof typeof ASSET_TYPES; base64: string },
) {
  requireEmailFeatures(ctx);
  requireRole(ctx, 'admin');
  const bytes = Buffer.from(input.base64, 'base64');
  if (bytes.length > MAX_ASSET_BYTES)
    throw new AppError('PayloadTooLargeError', `An e-mail image is at most ${MAX_ASSET_BYTES / 1048576} MB`, {
      size: bytes.length,
      limit: MAX_ASSET_BYTES,
    });
  const actual = sniff(bytes);
  if (actual !== input.mimeType)
    throw new AppError('ValidationError', `The file is not a ${input.mimeType} image`, {
      errors: [
        {
          path: ['base64'],
          message: actual ? `the bytes are ${actual}` : 'not an accepted image',
          name: 'ValidationError',
        },
      ],
    });
  return ctx.transaction(async (tx) => {
    const row = await repo.insertAsset(tx, ctx.orgId, {
      filename: input.filename,
      mimeType: input.mimeType,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      content: bytes,
    });
    await audit(tx, ctx, 'email_asset.created', row.documentId, { filename: row.filename, size: row.size });
    return toAsset(config, row);
  });
}

export async function listAssets(ctx: TenantContext, config: Config, query: ListQueryInput) {
  requireEmailFeatures(ctx);
  const q = compileListQuery(repo.assetModel, query);
  const { rows, total } = await ctx.transaction((tx) => repo.listAssets(tx, ctx.orgId, q));
  return listPage(
    rows.map((r) => toAsset(config, r)),
    total,
    q,
  );
}

export async function deleteAsset(ctx: TenantContext, documentId: string) {
  requireEmailFeatures(ctx);
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await repo.findAsset(tx, ctx.orgId, documentId);
    if (!row) throw notFound('E-mail asset');
    await repo.deleteAsset(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'email_asset.deleted', documentId, { filename: row.filename });
    return { documentId, deleted: true as const };
  });
}

/** The public image behind a template's URL; the filename must match (no enumeration by id alone). */
export async function assetForPublic(db: Database, documentId: string, filename: string) {
  const orgId = await repo.assetOrganization(db.system, documentId);
  const missing = notFound('E-mail asset');
  if (orgId === undefined) throw missing;
  const row = await db.tenantTransaction(orgId, (tx) => repo.assetContent(tx, orgId, documentId));
  if (!row || row.filename !== filename) throw missing;
  return row;
}
