import { z } from 'zod';
import { EVENT_TYPES } from '../../platform/events/outbox.js';
import { listQueryShape } from '../../platform/http/list-query.js';
import { DELIVERY_STATUSES } from './table.js';

const eventName = z.enum([...EVENT_TYPES, '*']);
const url = z
  .string()
  .trim()
  .max(2000)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'an http(s) URL')
  .describe(
    'the receiver: a public address; private, loopback, link-local, metadata and other special-purpose addresses are refused when saved (400, details.rule public_address) and again when delivering',
  );

export const subscriptionCreateInput = z.strictObject({
  url,
  events: z.array(eventName).min(1).max(50).describe('event types to receive, or `*` for all'),
  enabled: z.boolean().optional().describe('default true'),
});
export type SubscriptionCreateInput = z.infer<typeof subscriptionCreateInput>;

export const subscriptionUpdateInput = subscriptionCreateInput
  .partial()
  .describe(
    '`enabled: true` re-enables a subscription disabled after repeated failures (pending deliveries resume)',
  );
export type SubscriptionUpdateInput = z.infer<typeof subscriptionUpdateInput>;

export const subscription = z
  .object({
    documentId: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    consecutiveFailures: z.number().int(),
    disabledReason: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookSubscription' });
export type Subscription = z.infer<typeof subscription>;

export const subscriptionWithSecret = subscription
  .extend({ secret: z.string().describe('`whsec_…`: shown once; verify `webhook-signature` with it') })
  .meta({ id: 'WebhookSubscriptionCreated' });

export const delivery = z
  .object({
    id: z.number().int(),
    eventId: z.string().describe('the webhook-id header'),
    eventType: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    nextAttemptAt: z.string().nullable().describe('when pending: the next attempt'),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
    payload: z.unknown().describe('the body sent: { type, timestamp, data }'),
  })
  .meta({ id: 'WebhookDelivery' });

export const subscriptionListQuery = z.strictObject(listQueryShape);
export const deliveryListQuery = z.strictObject({
  pagination: listQueryShape.pagination,
  status: z.enum(DELIVERY_STATUSES).optional(),
});
