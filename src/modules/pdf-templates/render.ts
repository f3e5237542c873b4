import PDFDocument from 'pdfkit';
import { ownEntry } from '../../platform/http/own.js';
import {
  fillPlaceholders,
  type ItemColumn,
  type PdfBlock,
  type PdfLayout,
  type PlaceholderValues,
} from './layout.js';

export interface RenderItem {
  name: string;
  sku: string;
  unit: string | null;
  quantity: number;
  unitPrice: number;
  discount: number;
  total: number;
}

/** Everything a layout can show: placeholder values, the lines and the totals of one quote. */
export interface RenderInput {
  values: PlaceholderValues;
  currency: string;
  items: RenderItem[];
  totals: { subtotal: number; discount: number; total: number };
}

/** How a layout writes amounts, quantities and days: its `locale`'s way, else en-US amounts and ISO days. */
export interface Formats {
  locale?: string;
  money(amount: number, currency: string): string;
  quantity(n: number): string;
  day(isoDay: string): string;
}

export function formatsFor(locale?: string): Formats {
  const tag = locale ?? 'en-US';
  const quantity = new Intl.NumberFormat(tag, { maximumFractionDigits: 3 });
  const currencies = new Map<string, Intl.NumberFormat>();
  const days = locale ? new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeZone: 'UTC' }) : undefined;
  return {
    locale,
    money: (amount, currency) => {
      // One formatter per currency for the whole document (every cell and total asks).
      const f = currencies.get(currency) ?? new Intl.NumberFormat(tag, { style: 'currency', currency });
      currencies.set(currency, f);
      return f.format(amount);
    },
    quantity: (n) => quantity.format(n),
    day: (iso) => (days && /^\d{4}-\d{2}-\d{2}$/.test(iso) ? days.format(new Date(`${iso}T00:00:00Z`)) : iso),
  };
}

/** Item and total headings a layout does not rename, by the layout's language (English otherwise). */
const headings = {
  en: {
    name: 'Product',
    sku: 'SKU',
    quantity: 'Qty',
    unit: 'Unit',
    unitPrice: 'Unit price',
    discount: 'Discount',
    total: 'Total',
    subtotal: 'Subtotal',
  },
  pt: {
    name: 'Produto',
    sku: 'SKU',
    quantity: 'Qtd.',
    unit: 'Unid.',
    unitPrice: 'Preço unit.',
    discount: 'Desconto',
    total: 'Total',
    subtotal: 'Subtotal',
  },
} satisfies Record<string, Record<ItemColumn | 'subtotal', string>>;
const headingsOf = (locale?: string) => (locale?.toLowerCase().startsWith('pt') ? headings.pt : headings.en);

const columnWidths: Record<Exclude<ItemColumn, 'name'>, number> = {
  sku: 70,
  quantity: 40,
  unit: 40,
  unitPrice: 75,
  discount: 60,
  total: 80,
};
const numericColumns = new Set<ItemColumn>(['quantity', 'unitPrice', 'discount', 'total']);
const defaultColumns: ItemColumn[] = ['name', 'quantity', 'unitPrice', 'discount', 'total'];
const cellPadding = 4;

/**
 * Draws a layout with PDFKit's standard fonts (Helvetica: Latin-1 text; other scripts would need an
 * embedded font). Returns the whole document as one buffer: quotes are small.
 */
export function renderPdf(layout: PdfLayout, input: RenderInput): Promise<Buffer> {
  const doc = new PDFDocument({
    size: layout.pageSize,
    margin: layout.margin,
    info: { Title: input.values['quote.number'] ? `Quote ${input.values['quote.number']}` : 'Quote' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  for (const block of layout.blocks) drawBlock(doc, layout, block, input);
  doc.end();
  return done;
}

type Doc = PDFKit.PDFDocument;

const contentWidth = (doc: Doc) => doc.page.width - doc.page.margins.left - doc.page.margins.right;
const bottom = (doc: Doc) => doc.page.height - doc.page.margins.bottom;

function ensureRoom(doc: Doc, height: number) {
  if (doc.y + height > bottom(doc)) doc.addPage();
}

function drawBlock(doc: Doc, layout: PdfLayout, block: PdfBlock, input: RenderInput) {
  const left = doc.page.margins.left;
  const width = contentWidth(doc);
  const fill = (text: string) => fillPlaceholders(text, input.values);
  if ('when' in block && block.when && !ownEntry(input.values, block.when)) return;
  switch (block.type) {
    case 'heading':
      doc
        .font('Helvetica-Bold')
        .fontSize(layout.fontSize * 2)
        .fillColor(layout.accentColor)
        .text(fill(block.text), left, doc.y, { width, align: block.align ?? 'left' });
      doc.moveDown(0.4);
      return;
    case 'text':
      doc
        .font(block.bold ? 'Helvetica-Bold' : 'Helvetica')
        .fontSize(block.size ?? layout.fontSize)
        .fillColor(block.color ?? '#000000')
        .text(fill(block.text), left, doc.y, { width, align: block.align ?? 'left' });
      doc.moveDown(0.3);
      return;
    case 'fields':
      drawFields(
        doc,
        layout,
        block.rows.map((r) => ({ label: r.label, value: fill(r.value).trim() })),
      );
      return;
    case 'items':
      drawItems(doc, layout, block, input);
      return;
    case 'totals':
      drawTotals(doc, layout, block.labels ?? {}, input);
      return;
    case 'divider':
      ensureRoom(doc, 10);
      doc
        .moveTo(left, doc.y + 4)
        .lineTo(left + width, doc.y + 4)
        .lineWidth(0.75)
        .strokeColor(layout.accentColor)
        .stroke();
      doc.y += 10;
      return;
    case 'spacer':
      if (doc.y + block.height > bottom(doc)) doc.addPage();
      else doc.y += block.height;
      return;
  }
}

function drawFields(doc: Doc, layout: PdfLayout, rows: { label: string; value: string }[]) {
  const left = doc.page.margins.left;
  const labelWidth = 110;
  const valueWidth = contentWidth(doc) - labelWidth - 10;
  doc.fontSize(layout.fontSize).fillColor('#000000');
  for (const row of rows.filter((r) => r.value !== '')) {
    const height = Math.max(
      doc.font('Helvetica-Bold').heightOfString(row.label, { width: labelWidth }),
      doc.font('Helvetica').heightOfString(row.value, { width: valueWidth }),
    );
    ensureRoom(doc, height);
    const y = doc.y;
    doc.font('Helvetica-Bold').text(row.label, left, y, { width: labelWidth });
    doc.font('Helvetica').text(row.value, left + labelWidth + 10, y, { width: valueWidth });
    doc.y = y + height + 2;
  }
  doc.moveDown(0.3);
}

function drawItems(
  doc: Doc,
  layout: PdfLayout,
  block: Extract<PdfBlock, { type: 'items' }>,
  input: RenderInput,
) {
  const columns = block.columns ?? defaultColumns;
  const defaults = headingsOf(layout.locale);
  const labels: Record<ItemColumn, string> = { ...defaults, ...block.labels };
  const left = doc.page.margins.left;
  const width = contentWidth(doc);
  const fixed = columns.filter((c) => c !== 'name').reduce((sum, c) => sum + columnWidths[c as 'sku'], 0);
  const nameWidth = Math.max(width - fixed, 80);
  const scale = columns.includes('name') ? Math.min(1, width / (fixed + nameWidth)) : width / fixed;
  const widths = columns.map((c) => (c === 'name' ? nameWidth : columnWidths[c]) * scale);
  const formats = formatsFor(layout.locale);
  const money = (n: number) => formats.money(n, input.currency);
  const cell = (item: RenderItem, column: ItemColumn): string => {
    switch (column) {
      case 'name':
        return item.name;
      case 'sku':
        return item.sku;
      case 'unit':
        return item.unit ?? '';
      case 'quantity':
        return formats.quantity(item.quantity);
      case 'unitPrice':
        return money(item.unitPrice);
      case 'discount':
        return item.discount ? `${formats.quantity(item.discount)}%` : '';
      case 'total':
        return money(item.total);
    }
  };

  const drawRow = (texts: string[], header: boolean) => {
    doc.font(header ? 'Helvetica-Bold' : 'Helvetica').fontSize(layout.fontSize);
    const height =
      Math.max(...texts.map((t, i) => doc.heightOfString(t || ' ', { width: widths[i] - 2 * cellPadding }))) +
      2 * cellPadding;
    const fits = doc.y + height <= bottom(doc);
    if (!fits) {
      doc.addPage();
      if (!header)
        drawRow(
          columns.map((c) => labels[c]),
          true,
        );
    }
    const y = doc.y;
    if (header) doc.rect(left, y, width, height).fill(layout.accentColor);
    doc.fillColor(header ? '#ffffff' : '#000000');
    let x = left;
    texts.forEach((text, i) => {
      doc.text(text, x + cellPadding, y + cellPadding, {
        width: widths[i] - 2 * cellPadding,
        align: numericColumns.has(columns[i]) ? 'right' : 'left',
      });
      x += widths[i];
    });
    if (!header) {
      doc
        .moveTo(left, y + height)
        .lineTo(left + width, y + height)
        .lineWidth(0.5)
        .strokeColor('#d1d5db')
        .stroke();
    }
    doc.y = y + height;
  };

  drawRow(
    columns.map((c) => labels[c]),
    true,
  );
  for (const item of input.items) {
    drawRow(
      columns.map((c) => cell(item, c)),
      false,
    );
  }
  doc.x = left;
  doc.moveDown(0.5);
}

function drawTotals(
  doc: Doc,
  layout: PdfLayout,
  labels: { subtotal?: string; discount?: string; total?: string },
  input: RenderInput,
) {
  const defaults = headingsOf(layout.locale);
  const width = 240;
  const x = doc.page.margins.left + contentWidth(doc) - width;
  const rows: [string, number, boolean][] = [
    [labels.subtotal ?? defaults.subtotal, input.totals.subtotal, false],
    [labels.discount ?? defaults.discount, -input.totals.discount, false],
    [labels.total ?? defaults.total, input.totals.total, true],
  ];
  const formats = formatsFor(layout.locale);
  doc.fillColor('#000000');
  for (const [label, amount, strong] of rows) {
    doc
      .font(strong ? 'Helvetica-Bold' : 'Helvetica')
      .fontSize(strong ? layout.fontSize + 2 : layout.fontSize);
    const height = doc.heightOfString(label, { width: width / 2 }) + 4;
    ensureRoom(doc, height);
    const y = doc.y;
    doc.text(label, x, y, { width: width / 2 });
    doc.text(formats.money(amount, input.currency), x + width / 2, y, { width: width / 2, align: 'right' });
    doc.y = y + height;
  }
  doc.x = doc.page.margins.left;
  doc.moveDown(0.3);
}
