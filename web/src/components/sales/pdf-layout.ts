import { useQuery } from '@tanstack/react-query';
import { ApiError, client, unwrap } from '../../api';
import { getLang } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import { fieldMessage } from '../../lib/errors';
import { ITEM_COLUMNS, type ItemColumn, PAGE_SIZES, PLACEHOLDERS } from '../../lib/pdf-vocabulary';
import { num } from '../../lib/words';
import * as catalogue from '../../words/pdf-templates';
import { amountText, parseAmount } from './shared';

export { ITEM_COLUMNS, type ItemColumn, PAGE_SIZES, PLACEHOLDERS };

/** PDF templates have their own catalogue (web/src/words/pdf-templates.ts). */
export const pw = wordsOf(catalogue);
export type PdfWord = keyof typeof catalogue.ptBR;

export const placeholderWord = (p: string) => pw(`ph_${p.replace('.', '_')}` as PdfWord);

const DEFAULT_COLUMNS: ItemColumn[] = ['name', 'quantity', 'unitPrice', 'discount', 'total'];
export const BLOCK_TYPES = ['heading', 'text', 'fields', 'items', 'totals', 'divider', 'spacer'] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];
export const ALIGNS = ['left', 'center', 'right'] as const;
const TOTALS = ['subtotal', 'discount', 'total'] as const;

/** A block as the API stores it (loosely: the editor reads the fields its type has). */
export interface ApiBlock {
  type: BlockType;
  text?: string;
  align?: (typeof ALIGNS)[number];
  size?: number;
  bold?: boolean;
  color?: string;
  when?: string;
  rows?: { label: string; value: string }[];
  columns?: ItemColumn[];
  labels?: Record<string, string>;
  height?: number;
}
export interface PdfLayout {
  pageSize: (typeof PAGE_SIZES)[number];
  margin: number;
  fontSize: number;
  accentColor: string;
  /** How amounts and days are written and the headings' language (absent: en-US amounts, ISO days). */
  locale?: string;
  blocks: ApiBlock[];
}
export interface PdfTemplate {
  documentId: string;
  name: string;
  kind: 'quote';
  isDefault: boolean;
  layout: PdfLayout;
  createdAt: string;
  updatedAt: string;
}

/** A block being edited: every field of every type as the form holds it (numbers as typed). */
export interface BlockDraft {
  key: number;
  type: BlockType;
  text: string;
  align: string;
  size: string;
  bold: boolean;
  color: string;
  when: string;
  rows: { key: number; label: string; value: string }[];
  columns: ItemColumn[];
  labels: Record<string, string>;
  height: string;
}

let nextKey = 1;
export const newKey = () => nextKey++;

export function toDraft(b: ApiBlock): BlockDraft {
  return {
    key: newKey(),
    type: b.type,
    text: b.text ?? '',
    align: b.align ?? '',
    size: amountText(b.size),
    bold: b.bold ?? false,
    color: b.color ?? '',
    when: b.when ?? '',
    rows: (b.rows ?? [{ label: '', value: '' }]).map((r) => ({ key: newKey(), ...r })),
    columns: b.columns ?? (b.type === 'items' ? DEFAULT_COLUMNS : []),
    labels: { ...(b.labels ?? {}) },
    height: amountText(b.height ?? (b.type === 'spacer' ? 12 : undefined)),
  };
}

/** A new block of a type, its labels in the chosen language. */
export function newBlock(type: BlockType): BlockDraft {
  if (type === 'items')
    return toDraft({
      type,
      columns: DEFAULT_COLUMNS,
      labels: Object.fromEntries(DEFAULT_COLUMNS.map((c) => [c, pw(`col_${c}`)])),
    });
  if (type === 'totals')
    return toDraft({ type, labels: Object.fromEntries(TOTALS.map((k) => [k, pw(`tot_${k}`)])) });
  return toDraft({ type });
}

/** The languages a template can write its amounts, days and headings in (`''`: as the service did before). */
export const LOCALES = ['pt-BR', 'en-US', ''] as const;

/** What a new template starts with: the built-in layout's blocks, its words and formats in the chosen language. */
export function starterLayout(): PdfLayout {
  return {
    pageSize: 'A4',
    margin: 50,
    fontSize: 10,
    accentColor: '#1f2937',
    locale: getLang() === 'en' ? 'en-US' : 'pt-BR',
    blocks: [
      { type: 'heading', text: '{{organization.name}}' },
      { type: 'text', text: pw('st_quote'), size: 14, bold: true },
      {
        type: 'fields',
        rows: [
          { label: pw('st_date'), value: '{{quote.createdAt}}' },
          { label: pw('st_validUntil'), value: '{{quote.validUntil}}' },
          { label: pw('st_owner'), value: '{{owner.username}} {{owner.email}}' },
        ],
      },
      { type: 'spacer', height: 8 },
      { type: 'text', text: pw('st_for'), when: 'contact.name' },
      { type: 'text', text: pw('st_card'), when: 'card.title' },
      { type: 'spacer', height: 8 },
      {
        type: 'items',
        columns: DEFAULT_COLUMNS,
        labels: Object.fromEntries(DEFAULT_COLUMNS.map((c) => [c, pw(`col_${c}`)])),
      },
      { type: 'totals', labels: Object.fromEntries(TOTALS.map((k) => [k, pw(`tot_${k}`)])) },
      { type: 'spacer', height: 12 },
      { type: 'text', text: '{{quote.notes}}', when: 'quote.notes' },
    ],
  };
}

/** A number typed as the chosen language writes it: null when empty, NaN when not a number. */
export const parseNumber = parseAmount;

/**
 * A draft block as the API takes it, with the keys of the fields that are not numbers (`blocks.<i>.<field>`).
 * Empty optional fields are left out (the API's defaults apply).
 */
export function fromDraft(d: BlockDraft, i: number, bad: Record<string, string>): ApiBlock {
  const numberOf = (field: 'size' | 'height') => {
    const n = parseNumber(d[field]);
    if (n !== null && Number.isNaN(n)) bad[`blocks.${i}.${field}`] = pw('notANumber');
    return n ?? undefined;
  };
  const common = {
    ...(d.align ? { align: d.align as ApiBlock['align'] } : {}),
    ...(d.when ? { when: d.when } : {}),
  };
  switch (d.type) {
    case 'heading':
      return { type: 'heading', text: d.text, ...common };
    case 'text': {
      const size = numberOf('size');
      return {
        type: 'text',
        text: d.text,
        ...common,
        ...(size !== undefined ? { size } : {}),
        ...(d.bold ? { bold: true } : {}),
        ...(d.color.trim() ? { color: d.color.trim() } : {}),
      };
    }
    case 'fields':
      return { type: 'fields', rows: d.rows.map(({ label, value }) => ({ label, value })) };
    case 'items': {
      // In the draft's order: the renderer draws the columns as listed.
      const columns = d.columns.filter((c) => ITEM_COLUMNS.includes(c));
      const labels = Object.fromEntries(
        columns.filter((c) => d.labels[c]?.trim()).map((c) => [c, d.labels[c].trim()]),
      );
      return { type: 'items', columns, ...(Object.keys(labels).length ? { labels } : {}) };
    }
    case 'totals': {
      const labels = Object.fromEntries(
        TOTALS.filter((k) => d.labels[k]?.trim()).map((k) => [k, d.labels[k].trim()]),
      );
      return { type: 'totals', ...(Object.keys(labels).length ? { labels } : {}) };
    }
    case 'spacer':
      return { type: 'spacer', height: numberOf('height') ?? 0 };
    default:
      return { type: 'divider' };
  }
}

/** The fields of a block a refusal can be shown at (anything else about the block is shown under the whole block). */
const BLOCK_FIELDS = /^(text|size|color|height|when|align|columns|rows\.\d+\.(label|value)|labels\.\w+)$/;
const LAYOUT_FIELDS = ['pageSize', 'margin', 'fontSize', 'accentColor', 'locale'];

/** The service's word on one field, in the chosen language: unknown placeholders named, ranges with their numbers. */
export function templateFieldMessage(message = ''): string {
  const placeholder = /unknown placeholder (\{\{[^}]*\}\})/.exec(message);
  if (placeholder) return pw('unknownPlaceholder', { name: placeholder[1] });
  if (/#RRGGBB/.test(message)) return pw('badColor');
  const min = /expected number to be >=?\s*([\d.]+)/.exec(message);
  if (min) return pw('atLeast', { n: num(Number(min[1])) });
  const max = /expected number to be <=?\s*([\d.]+)/.exec(message);
  if (max) return pw('atMost', { n: num(Number(max[1])) });
  return fieldMessage(message);
}

/**
 * A refusal of a template as errors by field key (`name`, `layout.margin`, `blocks.<i>.text`,
 * `blocks.<i>.rows.<j>.value`, `blocks.<i>`, `blocks`); `general` when no field is named.
 */
export function templateRefusal(err: unknown): Record<string, string> {
  const list = (err instanceof ApiError && Array.isArray(err.details?.errors) ? err.details.errors : []) as {
    path?: (string | number)[];
    message?: string;
  }[];
  const out: Record<string, string> = {};
  for (const e of list) {
    const p = e.path ?? [];
    let key = 'general';
    if (p[0] === 'name') key = 'name';
    else if (p[0] === 'layout' && LAYOUT_FIELDS.includes(String(p[1]))) key = `layout.${String(p[1])}`;
    // The service gives a path's indexes as text (`['layout', 'blocks', '1', 'text']`).
    else if (p[0] === 'layout' && p[1] === 'blocks' && /^\d+$/.test(String(p[2] ?? ''))) {
      const rest = p.slice(3).join('.');
      key = rest && BLOCK_FIELDS.test(rest) ? `blocks.${String(p[2])}.${rest}` : `blocks.${String(p[2])}`;
    } else if (p[0] === 'layout' && p[1] === 'blocks') key = 'blocks';
    if (!out[key]) out[key] = templateFieldMessage(e.message);
  }
  return out;
}

/** The organization's templates (first 100 by name). */
export function usePdfTemplates(enabled = true) {
  return useQuery({
    queryKey: ['pdf-templates'],
    enabled,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/pdf-templates', {
            params: { query: { pagination: { pageSize: 100 }, sort: 'name:asc' } as never },
          }),
        )
      ).data as unknown as PdfTemplate[],
  });
}

/** A template rendered as a PDF with sample data (a quote's PDF with a template: GET /quotes/{id}/pdf?template=). */
export async function renderTemplate(id: string): Promise<Blob> {
  return (await unwrap(
    client.POST('/api/pdf-templates/{id}/preview', {
      params: { path: { id } },
      body: {} as never,
      parseAs: 'blob',
    }),
  )) as unknown as Blob;
}
