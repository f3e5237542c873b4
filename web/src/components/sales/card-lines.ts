import { ApiError } from '../../api';
import { refusalOf } from '../../lib/marketing';
import { money, type QuoteItem, sw } from './shared';

/** A card's product line as the API returns it: a quote item's shape. */
export type CardLine = QuoteItem;

const LINE_FIELDS = ['product', 'quantity', 'unitPrice', 'discount'];

/**
 * The API's refusal of a line: a price below the product's minimum said with both prices (at the discount when only
 * the discount changed: it is what brought the price down), a discount out of 0..100 or with more than two decimals
 * said as the rule, the rest by field.
 */
export function lineRefusal(err: unknown, currency: string, belowAt: 'unitPrice' | 'discount' = 'unitPrice') {
  const below = (err instanceof ApiError ? (err.details?.belowMinPrice ?? []) : []) as {
    sku: string;
    effectiveUnitPrice: number;
    minPrice: number;
  }[];
  if (below[0])
    return {
      fields: {
        [belowAt]: sw('belowMinLine', {
          sku: below[0].sku,
          price: money(below[0].effectiveUnitPrice, currency),
          min: money(below[0].minPrice, currency),
        }),
      } as Record<string, string>,
      general: '',
    };
  const r = refusalOf(err, LINE_FIELDS);
  if (r.fields.discount) r.fields.discount = sw('discountRange');
  return r;
}
