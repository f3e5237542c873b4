import { z } from 'zod';
import { listQueryShape } from '../../platform/http/list-query.js';
import { CONVERSION_EVENT_STATUSES } from './table.js';

const ref = z.string().trim().min(1).max(100);

const trigger = z
  .union([z.literal('won'), z.strictObject({ phase: ref.describe('phase documentId or slug of the board') })])
  .describe("`won` (the board's won phase) or `{ phase }`");

export const pixelInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  pixelId: z
    .string()
    .trim()
    .regex(/^[\w-]{1,64}$/, 'the pixel (dataset) id: letters, digits, - and _')
    .describe('the pixel (dataset) id'),
  accessToken: z.string().min(1).max(1000).describe('write-only: stored encrypted, never returned'),
  board: ref.describe('board documentId'),
  trigger,
  enabled: z.boolean().optional().describe('default true'),
});
export type PixelInput = z.infer<typeof pixelInput>;
export const pixelUpdate = pixelInput.partial();
export type PixelUpdate = z.infer<typeof pixelUpdate>;

export const pixel = z
  .object({
    documentId: z.string(),
    name: z.string(),
    pixelId: z.string(),
    hasAccessToken: z.boolean(),
    board: z.object({ documentId: z.string(), name: z.string() }),
    trigger: z.union([
      z.literal('won'),
      z.object({ phase: z.object({ documentId: z.string(), slug: z.string() }) }),
    ]),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'ConversionPixel' });
export type Pixel = z.infer<typeof pixel>;

export const conversionEvent = z
  .object({
    id: z.number().int(),
    eventId: z.string().describe('the dedup id sent as event_id: <card>:won or <card>:phase:<phase>'),
    eventName: z.string(),
    card: z.string().nullable().describe('card documentId'),
    status: z.enum(CONVERSION_EVENT_STATUSES),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    payload: z.unknown().describe('the event as sent (user data hashed)'),
    response: z.unknown(),
    sentAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'ConversionEvent' });

export const verifyResult = z.object({
  ok: z.literal(true),
  eventsReceived: z.number().int().nullable(),
  testEventCode: z.string(),
  event: z.unknown(),
});

export const pixelListQuery = z.strictObject(listQueryShape);
export const eventListQuery = z.strictObject({
  pagination: listQueryShape.pagination,
  status: z.enum(CONVERSION_EVENT_STATUSES).optional(),
});
