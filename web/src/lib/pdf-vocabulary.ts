/**
 * What a PDF layout may name, as the API accepts it (src/modules/pdf-templates/layout.ts; docs/products-quotes.md
 * "Layout format"): pure data, so test/web/pdf-templates.test.ts checks it equals the service's lists.
 */
export const PLACEHOLDERS = [
  'organization.name',
  'organization.slug',
  'quote.number',
  'quote.title',
  'quote.status',
  'quote.createdAt',
  'quote.validUntil',
  'quote.currency',
  'quote.subtotal',
  'quote.discount',
  'quote.total',
  'quote.notes',
  'quote.itemCount',
  'contact.name',
  'contact.email',
  'contact.phone',
  'contact.address',
  'contact.city',
  'contact.state',
  'contact.country',
  'contact.postalCode',
  'card.title',
  'card.value',
  'owner.username',
  'owner.email',
  'today',
] as const;

export const ITEM_COLUMNS = ['name', 'sku', 'quantity', 'unit', 'unitPrice', 'discount', 'total'] as const;
export type ItemColumn = (typeof ITEM_COLUMNS)[number];
export const PAGE_SIZES = ['A4', 'LETTER', 'LEGAL'] as const;
