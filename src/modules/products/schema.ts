import { z } from 'zod';

/** Money in the API: a JSON number with at most two decimals, as stored (numeric(14,2)). */
export const money = z
  .number()
  .min(0)
  .max(999_999_999_999.99)
  .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, 'at most 2 decimals');

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
