import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { AppError, notFound, onUnique } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { loadBoardForRead } from '../boards/index.js';
import { cardVisibility, findCard } from '../cards/index.js';
import { contactIdByDocumentId, contactRefsByIds } from '../contacts/index.js';
import { findDefaultTemplate, findTemplate } from '../pdf-templates/index.js';
import { type PricedLine, priceLines } from '../products/index.js';
import { renderQuotePdf } from './pdf.js';
import * as repo from './repo.js';
import type { Quote, QuoteInput, QuoteItemInput, QuoteUpdate } from './schema.js';

export async function listQuotes(ctx: TenantContext, query: ListQueryInput) {
  requireFeature(ctx, 'quotes');
  const q = compileListQuery(repo.quoteModel, query, 'number:desc');
  return ctx.transaction(async (tx) => {
    const { rows, total } = await repo.listQuotes(tx, ctx.orgId, q);
    return listPage(await presentQuotes(tx, ctx, rows), total, q);
  });
}

export async function getQuote(ctx: TenantContext, documentId: string) {
  requireFeature(ctx, 'quotes');
  return ctx.transaction((tx) => loadQuote(tx, ctx, documentId));
}

export async function createQuote(ctx: TenantContext, input: QuoteInput) {
  requireFeature(ctx, 'quotes');
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const card = input.card ? await resolveCard(tx, ctx, input.card) : null;
    const contactId = input.contact ? await resolveContact(tx, ctx, input.contact) : null;
    const { lines, totals } = await priceItems(tx, ctx, input.items);
    const number = await repo.nextQuoteNumber(tx, ctx.orgId);
    const row = await repo
      .insertQuote(tx, ctx.orgId, number, {
        title: input.title ?? null,
        status: input.status,
        validUntil: input.validUntil ?? null,
        currency: input.currency ?? card?.currency ?? 'USD',
        notes: input.notes ?? null,
        cardId: card?.id ?? null,
        contactId,
        ownerId: ctx.membershipId,
        ...totals,
      })
      .catch(onUnique('number'));
    await repo.replaceItems(tx, ctx.orgId, row.id, lines.map(toItemValues));
    await audit(tx, ctx, 'quote.created', row.documentId, { number });
    return loadQuote(tx, ctx, row.documentId);
  });
}

export async function updateQuote(ctx: TenantContext, documentId: string, input: QuoteUpdate) {
  requireFeature(ctx, 'quotes');
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    // Locked before reading, so the status that decides whether items may change is the current one.
    const current = await repo.findQuote(tx, ctx.orgId, documentId, true);
    if (!current) throw notFound('Quote');
    const status = input.status ?? current.status;
    if (input.items && status !== 'draft') {
      throw new AppError(
        'UnprocessableEntityError',
        `The items of a ${status} quote are fixed; set its status to draft to change them`,
        { status, errors: [{ path: ['items'], message: 'only draft quotes change their items' }] },
      );
    }
    const { card, contact, items, ...plain } = input;
    const values: Partial<repo.QuoteValues> = { ...plain };
    if (card !== undefined) values.cardId = card === null ? null : (await resolveCard(tx, ctx, card)).id;
    if (contact !== undefined)
      values.contactId = contact === null ? null : await resolveContact(tx, ctx, contact);
    if (items) {
      const { lines, totals } = await priceItems(tx, ctx, items);
      await repo.replaceItems(tx, ctx.orgId, current.id, lines.map(toItemValues));
      Object.assign(values, totals);
    }
    await repo.updateQuote(tx, ctx.orgId, current.id, values);
    await audit(tx, ctx, 'quote.updated', documentId, { fields: Object.keys(input) });
    return loadQuote(tx, ctx, documentId);
  });
}

export async function deleteQuote(ctx: TenantContext, documentId: string) {
  requireFeature(ctx, 'quotes');
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const row = await repo.findQuote(tx, ctx.orgId, documentId);
    if (!row) throw notFound('Quote');
    await repo.deleteQuote(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'quote.deleted', documentId, { number: row.number, total: row.total });
    return { documentId, deleted: true as const };
  });
}

/** The quote as a PDF, through the organization's default quote template (or the built-in layout). */
export async function quotePdf(ctx: TenantContext, documentId: string, templateDocumentId?: string) {
  requireFeature(ctx, 'quotes');
  return ctx.transaction(async (tx) => {
    const quote = await loadQuote(tx, ctx, documentId);
    const template = templateDocumentId
      ? await findTemplate(tx, ctx.orgId, templateDocumentId)
      : await findDefaultTemplate(tx, ctx.orgId, 'quote');
    if (templateDocumentId && template?.kind !== 'quote')
      throw notFound('PDF template', {
        errors: [
          {
            path: ['template'],
            message: `no PDF template ${templateDocumentId} in this organization (GET /pdf-templates lists them)`,
          },
        ],
      });
    return { number: quote.number, pdf: await renderQuotePdf(tx, ctx, quote, template?.layout) };
  });
}

/** One quote as the API shows it; 404 when absent in this organization. */
export async function loadQuote(tx: Tx, ctx: TenantContext, documentId: string): Promise<Quote> {
  const row = await repo.findQuote(tx, ctx.orgId, documentId);
  if (!row) throw notFound('Quote');
  const [quote] = await presentQuotes(tx, ctx, [row]);
  return quote;
}

async function presentQuotes(tx: Tx, ctx: TenantContext, rows: repo.QuoteRow[]): Promise<Quote[]> {
  const itemsByQuote = new Map<number, Quote['items']>();
  for (const { quoteId, productDocumentId, ...item } of await repo.itemsOf(
    tx,
    ctx.orgId,
    rows.map((r) => r.id),
  )) {
    const list = itemsByQuote.get(quoteId) ?? [];
    list.push({ ...item, product: productDocumentId });
    itemsByQuote.set(quoteId, list);
  }
  const contacts = await contactRefsByIds(
    tx,
    ctx.orgId,
    rows.flatMap((r) => (r.contactId ? [r.contactId] : [])),
  );
  const owners = await membershipRefsByIds(
    tx,
    ctx.orgId,
    rows.flatMap((r) => (r.ownerId ? [r.ownerId] : [])),
  );
  return rows.map((r) => ({
    documentId: r.documentId,
    number: r.number,
    title: r.title,
    status: r.status as Quote['status'],
    validUntil: r.validUntil,
    currency: r.currency,
    notes: r.notes,
    card:
      r.cardDocumentId && r.cardTitle !== null ? { documentId: r.cardDocumentId, title: r.cardTitle } : null,
    contact: (r.contactId && contacts.get(r.contactId)) || null,
    owner: (r.ownerId && owners.get(r.ownerId)) || null,
    items: itemsByQuote.get(r.id) ?? [],
    subtotal: r.subtotal,
    discount: r.discount,
    total: r.total,
    createdAt: isoRequired(r.createdAt),
    updatedAt: isoRequired(r.updatedAt),
  }));
}

function priceItems(tx: Tx, ctx: TenantContext, items: QuoteItemInput[]) {
  return priceLines(tx, ctx.orgId, items, (i) => ['items', i]);
}

function toItemValues(line: PricedLine): repo.ItemValues {
  return {
    productId: line.productId,
    name: line.name,
    sku: line.sku,
    unit: line.unit,
    quantity: line.quantity,
    unitPrice: line.unitPrice,
    discount: line.discount,
    total: line.total,
  };
}

/** A card the caller can see (board access and assignee restriction), else a 404 naming the field. */
async function resolveCard(tx: Tx, ctx: TenantContext, documentId: string) {
  const missing = notFound('Card', {
    errors: [{ path: ['card'], message: `no card ${documentId}` }],
  });
  const link = await repo.findCardLink(tx, ctx.orgId, documentId);
  if (!link) throw missing;
  const access = await loadBoardForRead(tx, ctx, link.boardDocumentId).catch((err: unknown) => {
    throw err instanceof AppError && err.errorName === 'NotFoundError' ? missing : err;
  });
  const card = await findCard(tx, ctx.orgId, access.board.id, documentId, cardVisibility(ctx, access));
  if (!card) throw missing;
  return { id: card.id, currency: link.currency };
}

async function resolveContact(tx: Tx, ctx: TenantContext, documentId: string) {
  const id = await contactIdByDocumentId(tx, ctx.orgId, documentId);
  if (id === undefined) {
    throw notFound('Contact', {
      errors: [{ path: ['contact'], message: `no contact ${documentId}` }],
    });
  }
  return id;
}
