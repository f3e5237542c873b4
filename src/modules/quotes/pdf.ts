import type { Tx } from '../../platform/db/client.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import {
  builtInQuoteLayout,
  formatsFor,
  type PdfLayout,
  type PlaceholderValues,
  type RenderInput,
  renderPdf,
} from '../pdf-templates/index.js';
import * as repo from './repo.js';
import type { Quote } from './schema.js';

/** Renders a quote with a layout (the built-in one when none is given). */
export async function renderQuotePdf(tx: Tx, ctx: TenantContext, quote: Quote, layout?: PdfLayout) {
  const chosen = layout ?? builtInQuoteLayout;
  return renderPdf(chosen, await quoteRenderInput(tx, ctx, quote, chosen.locale));
}

/**
 * Everything a template can show about a quote: its placeholders' values (amounts and days written as the
 * layout's `locale` writes them), lines and totals.
 */
export async function quoteRenderInput(
  tx: Tx,
  ctx: TenantContext,
  quote: Quote,
  locale?: string,
): Promise<RenderInput> {
  const org = await repo.organizationName(tx, ctx.orgId);
  const row = await repo.findQuote(tx, ctx.orgId, quote.documentId);
  const contact = row?.contactId ? await repo.contactDetails(tx, ctx.orgId, row.contactId) : undefined;
  const formats = formatsFor(locale);
  const money = (n: number) => formats.money(n, quote.currency);
  const values: PlaceholderValues = {
    'organization.name': org?.name,
    'organization.slug': org?.slug,
    'quote.number': String(quote.number),
    'quote.title': quote.title ?? undefined,
    'quote.status': quote.status,
    'quote.createdAt': formats.day(quote.createdAt.slice(0, 10)),
    'quote.validUntil': quote.validUntil ? formats.day(quote.validUntil) : undefined,
    'quote.currency': quote.currency,
    'quote.subtotal': money(quote.subtotal),
    'quote.discount': money(quote.discount),
    'quote.total': money(quote.total),
    'quote.notes': quote.notes ?? undefined,
    'quote.itemCount': String(quote.items.length),
    'contact.name': contact?.name,
    'contact.email': contact?.email ?? undefined,
    'contact.phone': contact?.phone ?? undefined,
    'contact.address': contact?.address ?? undefined,
    'contact.city': contact?.city ?? undefined,
    'contact.state': contact?.state ?? undefined,
    'contact.country': contact?.country ?? undefined,
    'contact.postalCode': contact?.postalCode ?? undefined,
    'card.title': quote.card?.title,
    'card.value': row?.cardValue != null && quote.card ? money(row.cardValue) : undefined,
    'owner.username': quote.owner?.user.username,
    'owner.email': quote.owner?.user.email,
    today: formats.day(new Date().toISOString().slice(0, 10)),
  };
  return {
    values,
    currency: quote.currency,
    items: quote.items,
    totals: { subtotal: quote.subtotal, discount: quote.discount, total: quote.total },
  };
}
