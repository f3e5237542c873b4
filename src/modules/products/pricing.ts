import type { Tx } from '../../platform/db/client.js';
import { AppError, type FieldError, validationError } from '../../platform/http/errors.js';
import { findProductsByDocumentIds, type ProductRow } from './repo.js';

/** A line as clients send it, on quotes and on cards. */
export interface LineInput {
  product: string;
  quantity: number;
  unitPrice?: number;
  /** Percentage off the line, 0..100. */
  discount: number;
}

export interface PricedLine {
  productId: number;
  name: string;
  sku: string;
  unit: string | null;
  quantity: number;
  unitPrice: number;
  discount: number;
  /** quantity × unitPrice, rounded to cents. */
  gross: number;
  discountAmount: number;
  total: number;
}

export interface Totals {
  subtotal: number;
  discount: number;
  total: number;
}

/** numeric(14,2) holds at most this many cents. */
const MAX_CENTS = 99_999_999_999_999n;

// Exact arithmetic in integers: quantities in thousandths, prices in cents, discounts in basis points.
const milli = (n: number) => BigInt(Math.round(n * 1000));
const cents = (n: number) => BigInt(Math.round(n * 100));
const toMoney = (c: bigint) => Number(c) / 100;

/** The amounts of one line, rounded half-up to cents: gross, discount and what is left. */
export function lineAmounts(quantity: number, unitPrice: number, discount: number) {
  const gross = (milli(quantity) * cents(unitPrice) + 500n) / 1000n;
  const off = (gross * cents(discount) + 5000n) / 10000n;
  return { grossCents: gross, discountCents: off, totalCents: gross - off };
}

/** Whether the unit price after the line discount is below the product's floor. */
export function belowMinPrice(unitPrice: number, discount: number, minPrice: number | null): boolean {
  if (minPrice === null) return false;
  return cents(unitPrice) * (10000n - cents(discount)) < cents(minPrice) * 10000n;
}

export function effectiveUnitPrice(unitPrice: number, discount: number): number {
  return toMoney((cents(unitPrice) * (10000n - cents(discount)) + 5000n) / 10000n);
}

/**
 * Resolves and prices lines against the organization's products, enforcing the business rules:
 * an unknown product is a 404, an inactive product or a unit price (after the line discount) below
 * the product's minPrice is a 422 naming every offending line. `pathOf(i)` locates line i in the body.
 */
export async function priceLines(
  tx: Tx,
  orgId: number,
  lines: LineInput[],
  pathOf: (i: number) => (string | number)[],
): Promise<{ lines: PricedLine[]; totals: Totals }> {
  const found = await findProductsByDocumentIds(
    tx,
    orgId,
    lines.map((l) => l.product),
  );
  const missing: FieldError[] = [];
  const rejected: FieldError[] = [];
  const belowMin: Record<string, unknown>[] = [];
  const priced: PricedLine[] = [];
  let gross = 0n;
  let off = 0n;
  lines.forEach((line, i) => {
    const product = found.get(line.product);
    if (!product) {
      missing.push({ path: [...pathOf(i), 'product'], message: `no product ${line.product}` });
      return;
    }
    const label = lineLabel(i, product, pathOf(i));
    if (!product.active) {
      rejected.push({
        path: [...pathOf(i), 'product'],
        message: `${label}: product ${product.sku} is inactive`,
      });
    }
    const unitPrice = line.unitPrice ?? product.price;
    if (belowMinPrice(unitPrice, line.discount, product.minPrice)) {
      const effective = effectiveUnitPrice(unitPrice, line.discount);
      rejected.push({
        path: [...pathOf(i), 'unitPrice'],
        message: `${label}: unit price ${effective.toFixed(2)}${line.discount ? ' after discount' : ''} is below the minimum price ${product.minPrice!.toFixed(2)} of ${product.sku}`,
      });
      belowMin.push({
        index: i,
        product: product.documentId,
        sku: product.sku,
        unitPrice,
        discount: line.discount,
        effectiveUnitPrice: effective,
        minPrice: product.minPrice,
      });
    }
    const amounts = lineAmounts(line.quantity, unitPrice, line.discount);
    if (amounts.grossCents > MAX_CENTS) {
      throw validationError('A line amount is too large', [
        { path: [...pathOf(i), 'quantity'], message: 'quantity × unitPrice exceeds 999999999999.99' },
      ]);
    }
    gross += amounts.grossCents;
    off += amounts.discountCents;
    priced.push({
      productId: product.id,
      name: product.name,
      sku: product.sku,
      unit: product.unit,
      quantity: line.quantity,
      unitPrice,
      discount: line.discount,
      gross: toMoney(amounts.grossCents),
      discountAmount: toMoney(amounts.discountCents),
      total: toMoney(amounts.totalCents),
    });
  });
  if (missing.length > 0) {
    throw new AppError('NotFoundError', missing.length === 1 ? 'Product not found' : 'Products not found', {
      errors: missing,
    });
  }
  if (rejected.length > 0) {
    throw new AppError('UnprocessableEntityError', rejected.map((e) => e.message).join('; '), {
      errors: rejected,
      ...(belowMin.length ? { belowMinPrice: belowMin } : {}),
    });
  }
  if (gross > MAX_CENTS) {
    throw validationError('The total is too large', [
      { path: pathOf(0).slice(0, -1), message: 'exceeds 999999999999.99' },
    ]);
  }
  return {
    lines: priced,
    totals: { subtotal: toMoney(gross), discount: toMoney(off), total: toMoney(gross - off) },
  };
}

function lineLabel(i: number, product: ProductRow, path: (string | number)[]) {
  return path.length > 0 ? `Item ${i + 1} (${product.sku})` : `Line (${product.sku})`;
}
