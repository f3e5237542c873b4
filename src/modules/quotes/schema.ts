import { z } from 'zod';
import { membershipRef } from '../../platform/http/schemas.js';
import { contactRef } from '../contacts/index.js';
import { lineInput, pricedLineShape } from '../products/index.js';
import { QUOTE_STATUSES } from './table.js';

const documentId = z.string().min(1).max(64);

export const quoteItemInput = lineInput;
export type QuoteItemInput = z.infer<typeof quoteItemInput>;

const quoteFields = {
  title: z.string().trim().max(200).nullable(),
  status: z.enum(QUOTE_STATUSES),
  validUntil: z.iso.date().nullable().describe('ISO 8601 date'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as USD')
    .describe("defaults to the linked card's board currency, else USD"),
  notes: z.string().max(10_000).nullable(),
  card: documentId.nullable().describe('card documentId'),
  contact: documentId.nullable().describe('contact documentId'),
  items: z.array(quoteItemInput).max(200).describe('the lines, in order; on update they replace all lines'),
};

export const quoteInput = z.strictObject({
  title: quoteFields.title.optional(),
  status: quoteFields.status.default('draft'),
  validUntil: quoteFields.validUntil.optional(),
  currency: quoteFields.currency.optional(),
  notes: quoteFields.notes.optional(),
  card: quoteFields.card.optional(),
  contact: quoteFields.contact.optional(),
  items: quoteFields.items.default([]),
});
export type QuoteInput = z.infer<typeof quoteInput>;

export const quoteUpdate = z.strictObject(quoteFields).partial();
export type QuoteUpdate = z.infer<typeof quoteUpdate>;

export const quoteItem = z.object(pricedLineShape).meta({ id: 'QuoteItem' });

export const quote = z
  .object({
    documentId: z.string(),
    number: z.number().int().describe('sequential per organization, from 1'),
    title: z.string().nullable(),
    status: z.enum(QUOTE_STATUSES),
    validUntil: z.string().nullable(),
    currency: z.string(),
    notes: z.string().nullable(),
    card: z.object({ documentId: z.string(), title: z.string() }).nullable(),
    contact: contactRef.nullable(),
    owner: membershipRef.nullable().describe('the member who created the quote'),
    items: z.array(quoteItem),
    subtotal: z.number().describe('sum of quantity × unitPrice'),
    discount: z.number().describe('sum of the line discounts, as an amount'),
    total: z.number().describe('subtotal − discount'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Quote' });
export type Quote = z.infer<typeof quote>;
