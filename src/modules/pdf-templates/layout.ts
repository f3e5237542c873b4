import { z } from 'zod';
import { ownEntry } from '../../platform/http/own.js';

/**
 * A PDF template's layout: page settings and a list of blocks drawn top to bottom. Text holds
 * `{{placeholders}}` (no logic: a placeholder is replaced by its value, or by nothing when the value
 * is absent). The accepted placeholders are checked when a template is saved. docs/products-quotes.md
 * documents the format.
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
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type PlaceholderValues = Partial<Record<Placeholder, string>>;

export const ITEM_COLUMNS = ['name', 'sku', 'quantity', 'unit', 'unitPrice', 'discount', 'total'] as const;
export type ItemColumn = (typeof ITEM_COLUMNS)[number];

const placeholderPattern = /\{\{\s*([a-zA-Z.]+)\s*\}\}/g;

/** Text with placeholders; unknown placeholders are a validation error, not a silent blank. */
const templateText = (max: number) =>
  z
    .string()
    .max(max)
    .superRefine((value, ctx) => {
      for (const [, name] of value.matchAll(placeholderPattern)) {
        if (!(PLACEHOLDERS as readonly string[]).includes(name)) {
          ctx.addIssue({ code: 'custom', message: `unknown placeholder {{${name}}}` });
        }
      }
    });

const align = z.enum(['left', 'center', 'right']).optional();
const when = z
  .enum(PLACEHOLDERS)
  .optional()
  .describe('draw the block only when this placeholder has a value (e.g. `card.title`)');
const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a color as #RRGGBB');

const block = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('heading'), text: templateText(500), align, when }),
  z.strictObject({
    type: z.literal('text'),
    text: templateText(5000),
    align,
    size: z.number().min(6).max(36).optional(),
    bold: z.boolean().optional(),
    color: hexColor.optional(),
    when,
  }),
  z.strictObject({
    type: z.literal('fields'),
    rows: z
      .array(z.strictObject({ label: z.string().max(200), value: templateText(1000) }))
      .min(1)
      .max(50)
      .describe('label/value rows; a row whose value is empty is left out'),
  }),
  z.strictObject({
    type: z.literal('items'),
    columns: z
      .array(z.enum(ITEM_COLUMNS))
      .min(1)
      .refine((c) => new Set(c).size === c.length, 'columns must not repeat')
      .optional()
      .describe('default: name, quantity, unitPrice, discount, total'),
    labels: z
      .partialRecord(z.enum(ITEM_COLUMNS), z.string().max(60))
      .optional()
      .describe('column headings to replace the English defaults'),
  }),
  z.strictObject({
    type: z.literal('totals'),
    labels: z
      .strictObject({
        subtotal: z.string().max(60).optional(),
        discount: z.string().max(60).optional(),
        total: z.string().max(60).optional(),
      })
      .optional(),
  }),
  z.strictObject({ type: z.literal('divider') }),
  z.strictObject({ type: z.literal('spacer'), height: z.number().min(1).max(400) }),
]);

export const pdfLayout = z
  .strictObject({
    pageSize: z.enum(['A4', 'LETTER', 'LEGAL']).default('A4'),
    margin: z.number().min(18).max(144).default(50).describe('page margin in points'),
    fontSize: z.number().min(6).max(18).default(10).describe('base font size in points'),
    accentColor: hexColor.default('#1f2937'),
    locale: z
      .string()
      .max(35)
      .refine((l) => {
        try {
          return Intl.NumberFormat.supportedLocalesOf(l).length === 1;
        } catch {
          return false;
        }
      }, 'a language tag such as pt-BR or en-US')
      .optional()
      .describe(
        'how amounts, quantities and dates are written (a BCP 47 tag: pt-BR writes R$ 1.234,56 and 31/12/2026) and the language of the item and total headings not renamed; absent: en-US amounts and ISO dates',
      ),
    blocks: z.array(block).min(1).max(100),
  })
  .meta({ id: 'PdfLayout' });

export type PdfLayout = z.infer<typeof pdfLayout>;
export type PdfBlock = PdfLayout['blocks'][number];

/** Replaces every `{{placeholder}}` by its value (absent values by nothing). */
export function fillPlaceholders(text: string, values: PlaceholderValues): string {
  return text.replace(placeholderPattern, (_, name: string) => ownEntry(values, name) ?? '');
}

/** The layout quotes render with when the organization has no default quote template. */
export const builtInQuoteLayout: PdfLayout = {
  pageSize: 'A4',
  margin: 50,
  fontSize: 10,
  accentColor: '#1f2937',
  blocks: [
    { type: 'heading', text: '{{organization.name}}' },
    { type: 'text', text: 'Quote #{{quote.number}} {{quote.title}}', size: 14, bold: true },
    {
      type: 'fields',
      rows: [
        { label: 'Date', value: '{{quote.createdAt}}' },
        { label: 'Valid until', value: '{{quote.validUntil}}' },
        { label: 'Status', value: '{{quote.status}}' },
        { label: 'Prepared by', value: '{{owner.username}} {{owner.email}}' },
      ],
    },
    { type: 'spacer', height: 8 },
    { type: 'text', text: 'Prepared for', bold: true, when: 'contact.name' },
    { type: 'text', text: '{{contact.name}}\n{{contact.email}}\n{{contact.phone}}', when: 'contact.name' },
    { type: 'text', text: 'Opportunity: {{card.title}}', when: 'card.title' },
    { type: 'spacer', height: 8 },
    { type: 'items' },
    { type: 'totals' },
    { type: 'spacer', height: 12 },
    { type: 'text', text: '{{quote.notes}}', when: 'quote.notes' },
  ],
};
