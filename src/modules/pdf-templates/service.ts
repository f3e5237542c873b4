import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { notFound, onUnique } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { loadQuote, organizationName, quoteRenderInput } from '../quotes/index.js';
import type { PdfLayout } from './layout.js';
import { formatsFor, type RenderInput, renderPdf } from './render.js';
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
    const { locale } = row.layout as PdfLayout;
    const input = quoteDocumentId
      ? await quoteRenderInput(tx, ctx, await loadQuote(tx, ctx, quoteDocumentId), locale)
      : sampleInput(await orgName(tx, ctx), locale);
    return renderPdf(row.layout as PdfLayout, input);
  });
}

async function orgName(tx: Tx, ctx: TenantContext) {
  return (await organizationName(tx, ctx.orgId))?.name ?? ctx.orgSlug;
}

/** A sample quote's words, in the layout's language (English unless Portuguese). */
const sampleWords = {
  en: {
    currency: 'USD',
    product: 'Sample product',
    service: 'Sample service',
    unit: ['pc', 'h'],
    title: 'Sample quote',
    notes: 'Prices valid for 30 days.',
    contact: [
      'Jane Sample',
      'jane@example.com',
      '+1 555 0100',
      '1 Sample Street',
      'Springfield',
      'IL',
      'US',
      '62701',
    ],
    card: 'Sample opportunity',
  },
  pt: {
    currency: 'BRL',
    product: 'Produto de exemplo',
    service: 'Serviço de exemplo',
    unit: ['un', 'h'],
    title: 'Proposta de exemplo',
    notes: 'Preços válidos por 30 dias.',
    contact: [
      'Maria Exemplo',
      'maria@exemplo.com.br',
      '+55 11 99999-0100',
      'Rua Exemplo, 100',
      'São Paulo',
      'SP',
      'BR',
      '01000-000',
    ],
    card: 'Oportunidade de exemplo',
  },
};

/** What a preview without a quote shows: every placeholder filled with plausible values, as the layout writes them. */
function sampleInput(organization: string, locale?: string): RenderInput {
  const w = locale?.toLowerCase().startsWith('pt') ? sampleWords.pt : sampleWords.en;
  const formats = formatsFor(locale);
  const money = (n: number) => formats.money(n, w.currency);
  const day = (offsetDays: number) =>
    formats.day(new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10));
  const items = [
    {
      name: w.product,
      sku: 'SAMPLE-1',
      unit: w.unit[0],
      quantity: 2,
      unitPrice: 150,
      discount: 10,
      total: 270,
    },
    {
      name: w.service,
      sku: 'SAMPLE-2',
      unit: w.unit[1],
      quantity: 5,
      unitPrice: 80,
      discount: 0,
      total: 400,
    },
  ];
  const [name, email, phone, address, city, state, country, postalCode] = w.contact;
  return {
    currency: w.currency,
    items,
    totals: { subtotal: 700, discount: 30, total: 670 },
    values: {
      'organization.name': organization,
      'organization.slug': 'sample',
      'quote.number': '1001',
      'quote.title': w.title,
      'quote.status': 'draft',
      'quote.createdAt': day(0),
      'quote.validUntil': day(30),
      'quote.currency': w.currency,
      'quote.subtotal': money(700),
      'quote.discount': money(30),
      'quote.total': money(670),
      'quote.notes': w.notes,
      'quote.itemCount': '2',
      'contact.name': name,
      'contact.email': email,
      'contact.phone': phone,
      'contact.address': address,
      'contact.city': city,
      'contact.state': state,
      'contact.country': country,
      'contact.postalCode': postalCode,
      'card.title': w.card,
      'card.value': money(670),
      'owner.username': 'sales',
      'owner.email': 'sales@example.com',
      today: day(0),
    },
  };
}
