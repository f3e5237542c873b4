import { z } from 'zod';
import { paginationMeta } from '../../platform/http/list-query.js';
import { numericColumn } from '../../platform/http/numbers.js';

/** Money in the API: a JSON number with at most two decimals, as stored (numeric(14,2)). */
export const money = numericColumn(14, 2, { min: 0 });

const productFields = {
  name: z.string().trim().min(1).max(200),
  sku: z.string().trim().min(1).max(64).describe('unique per organization, compared case-insensitively'),
  price: money,
  minPrice: money.nullable().describe('lowest unit price a quote or card line may use; null: no floor'),
  description: z.string().max(10_000).nullable(),
  unit: z.string().trim().max(20).nullable().describe('unit of sale, e.g. `pc`, `h`, `kg`'),
  active: z.boolean().describe('inactive products cannot be added to new quote or card lines'),
  category: z.string().min(1).max(64).nullable().describe('product category documentId'),
};

export const productInput = z.strictObject({
  ...productFields,
  minPrice: productFields.minPrice.optional(),
  description: productFields.description.optional(),
  unit: productFields.unit.optional(),
  active: productFields.active.default(true),
  category: productFields.category.optional(),
});
export type ProductInput = z.infer<typeof productInput>;

export const productUpdate = z.strictObject(productFields).partial();
export type ProductUpdate = z.infer<typeof productUpdate>;

export const categoryRef = z.object({ documentId: z.string(), name: z.string() }).meta({ id: 'CategoryRef' });

export const product = z
  .object({
    documentId: z.string(),
    name: z.string(),
    sku: z.string(),
    price: z.number(),
    minPrice: z.number().nullable(),
    description: z.string().nullable(),
    unit: z.string().nullable(),
    active: z.boolean(),
    category: categoryRef.nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof product>;

/** Quantities: positive, at most three decimals (numeric(14,3)). */
export const quantity = numericColumn(14, 3, { positive: true, max: 1_000_000 });

export const discountPercent = numericColumn(5, 2, { min: 0, max: 100 }).describe(
  'percentage off the line, 0..100',
);

/** A product line as written on quotes and cards. */
export const lineInput = z.strictObject({
  product: z.string().min(1).max(64).describe('product documentId'),
  quantity,
  unitPrice: money.optional().describe("defaults to the product's price"),
  discount: discountPercent.default(0),
});
export type LineInputBody = z.infer<typeof lineInput>;

export const cardLineUpdate = z
  .strictObject({
    product: lineInput.shape.product,
    quantity,
    unitPrice: money.describe("when the product changes without a unitPrice, the new product's price"),
    discount: discountPercent,
  })
  .partial();
export type CardLineUpdate = z.infer<typeof cardLineUpdate>;

/** A priced line as returned (card product lines, quote items): copied from its product when written. */
export const pricedLineShape = {
  documentId: z.string(),
  product: z.string().nullable().describe('documentId of the source product; null once it is deleted'),
  name: z.string().describe("the product's name when the line was written"),
  sku: z.string(),
  unit: z.string().nullable(),
  quantity: z.number(),
  unitPrice: z.number(),
  discount: z.number().describe('percentage off the line'),
  total: z.number().describe('quantity × unitPrice less the discount, rounded to cents'),
};

export const cardLine = z
  .object({ ...pricedLineShape, createdAt: z.string(), updatedAt: z.string() })
  .meta({ id: 'CardProduct' });
export type CardLine = z.infer<typeof cardLine>;

export const cardLineParams = z.object({
  boardId: z.string().min(1).max(64).describe('board documentId'),
  cardId: z.string().min(1).max(64).describe('card documentId'),
});
export const cardLineItemParams = cardLineParams.extend({
  id: z.string().min(1).max(64).describe('line documentId'),
});

export const cardLineList = z.object({
  data: z.array(cardLine),
  meta: z.object({
    pagination: paginationMeta,
    totals: z
      .object({ subtotal: z.number(), discount: z.number(), total: z.number() })
      .describe('over every line of the card, not only this page'),
  }),
});
