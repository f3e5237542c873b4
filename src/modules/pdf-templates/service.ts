import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { notFound, onUnique } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { loadQuote, organizationName, quoteRenderInput } from '../quotes/index.js';
import type { PdfLayout } from './layout.js';
import { type RenderInput, renderPdf } from './render.js';
import * as repo from './repo.js';
import type { PdfTemplate, TemplateInput, TemplateUpdate } from './schema.js';

/** PDF templates render quotes: the whole area is part of the quotes feature. */
function checkAccess(ctx: TenantContext, write: boolean) {
  requireFeature(ctx, 'quotes');
  if (write) requireRole(ctx, 'admin');
}

export function toTemplate(row: repo.TemplateRow): PdfTemplate {
  return {
    documentId: row.documentId,
    name: row.name,
    kind: row.kind as PdfTemplate['kind'],
    isDefault: row.isDefault,
    layout: row.layout,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

export async function listTemplates(ctx: TenantContext, query: ListQueryInput) {
  checkAccess(ctx, false);
  const q = compileListQuery(repo.templateModel, query, 'name:asc');
  const { rows, total } = await ctx.transaction((tx) => repo.listTemplates(tx, ctx.orgId, q));
  return listPage(rows.map(toTemplate), total, q);
}

export async function getTemplate(ctx: TenantContext, documentId: string) {
  checkAccess(ctx, false);
  const row = await ctx.transaction((tx) => repo.findTemplate(tx, ctx.orgId, documentId));
  if (!row) throw notFound('PDF template');
  return toTemplate(row);
}

export async function createTemplate(ctx: TenantContext, input: TemplateInput) {
  checkAccess(ctx, true);
  return ctx.transaction(async (tx) => {
    if (input.isDefault) await repo.clearDefault(tx, ctx.orgId, input.kind);
    const row = await repo.insertTemplate(tx, ctx.orgId, input).catch(onUnique(['name', 'isDefault']));
    await audit(tx, ctx, 'pdf_template.created', row.documentId, { isDefault: row.isDefault });
    return toTemplate(row);
  });
}

export async function updateTemplate(ctx: TenantContext, documentId: string, input: TemplateUpdate) {
  checkAccess(ctx, true);
  return ctx.transaction(async (tx) => {
    const current = await repo.findTemplate(tx, ctx.orgId, documentId);
    if (!current) throw notFound('PDF template');
    if (input.isDefault ?? current.isDefault) {
      await repo.clearDefault(tx, ctx.orgId, input.kind ?? current.kind, current.id);
    }
    const row = await repo
      .updateTemplate(tx, ctx.orgId, current.id, input)
      .catch(onUnique(['name', 'isDefault']));
    await audit(tx, ctx, 'pdf_template.updated', documentId, { fields: Object.keys(input) });
    return toTemplate(row);
  });
}

export async function deleteTemplate(ctx: TenantContext, documentId: string) {
  checkAccess(ctx, true);
  return ctx.transaction(async (tx) => {
    const row = await repo.findTemplate(tx, ctx.orgId, documentId);
    if (!row) throw notFound('PDF template');
    await repo.deleteTemplate(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'pdf_template.deleted', documentId, { name: row.name, isDefault: row.isDefault });
    return { documentId, deleted: true as const };
  });
}

/** Renders the template with one of the organization's quotes, or with sample data. */
export async function previewTemplate(ctx: TenantContext, documentId: string, quoteDocumentId?: string) {
  checkAccess(ctx, false);
  return ctx.transaction(async (tx) => {
    const row = await repo.findTemplate(tx, ctx.orgId, documentId);
    if (!row) throw notFound('PDF template');
    const input = quoteDocumentId
      ? await quoteRenderInput(tx, ctx, await loadQuote(tx, ctx, quoteDocumentId))
      : sampleInput(await orgName(tx, ctx));
    return renderPdf(row.layout as PdfLayout, input);
  });
}

async function orgName(tx: Tx, ctx: TenantContext) {
  return (await organizationName(tx, ctx.orgId))?.name ?? ctx.orgSlug;
}

/** What a preview without a quote shows: every placeholder filled with plausible values. */
function sampleInput(organization: string): RenderInput {
  const items = [
    {
      name: 'Sample product',
      sku: 'SAMPLE-1',
      unit: 'pc',
      quantity: 2,
      unitPrice: 150,
      discount: 10,
      total: 270,
    },
    {
      name: 'Sample service',
      sku: 'SAMPLE-2',
      unit: 'h',
      quantity: 5,
      unitPrice: 80,
      discount: 0,
      total: 400,
    },
  ];
  return {
    currency: 'USD',
    items,
    totals: { subtotal: 700, discount: 30, total: 670 },
    values: {
      'organization.name': organization,
      'organization.slug': 'sample',
      'quote.number': '1001',
      'quote.title': 'Sample quote',
      'quote.status': 'draft',
      'quote.createdAt': new Date().toISOString().slice(0, 10),
      'quote.validUntil': new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
      'quote.currency': 'USD',
      'quote.subtotal': '$700.00',
      'quote.discount': '$30.00',
      'quote.total': '$670.00',
      'quote.notes': 'Prices valid for 30 days.',
      'quote.itemCount': '2',
      'contact.name': 'Jane Sample',
      'contact.email': 'jane@example.com',
      'contact.phone': '+1 555 0100',
      'contact.address': '1 Sample Street',
      'contact.city': 'Springfield',
      'contact.state': 'IL',
      'contact.country': 'US',
      'contact.postalCode': '62701',
      'card.title': 'Sample opportunity',
      'card.value': '$670.00',
      'owner.username': 'sales',
      'owner.email': 'sales@example.com',
      today: new Date().toISOString().slice(0, 10),
    },
  };
}
