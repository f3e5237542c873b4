import { z } from 'zod';
import { listQueryShape } from '../../platform/http/list-query.js';
import { DELIVERY_STATUSES, INTEGRATION_STATUSES } from './table.js';

/** Contact columns a mapping may target as `contact.<field>`. */
export const CONTACT_TARGETS = [
  'name',
  'email',
  'phone',
  'city',
  'state',
  'country',
  'address',
  'postal_code',
] as const;

export const oauthStartInput = z.strictObject({
  redirectUri: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .describe('where the provider sends the user back with `code` and `state` (registered on the app)'),
  integration: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('documentId of an integration to reconnect (its token expired or was revoked)'),
});

export const oauthStart = z.object({
  authorizationUrl: z.string().describe('the provider dialog to send the user to'),
  state: z.string().describe('signed, bound to this user and organization, valid 10 minutes'),
  expiresAt: z.string(),
});

export const oauthCompleteInput = z.strictObject({
  code: z.string().min(1).max(2000).describe('the `code` the provider put on the redirect'),
  state: z.string().min(1).max(4000).describe('the `state` from the redirect, as start returned it'),
});

export const integrationInput = z.strictObject({
  name: z.string().trim().min(1).max(120).optional(),
  accessToken: z
    .string()
    .min(1)
    .max(4000)
    .describe('a user access token of the provider (exchanged for a long-lived one); write-only'),
});

export const integrationUpdate = z.strictObject({ name: z.string().trim().min(1).max(120) });

export const integrationPage = z.object({ id: z.string(), name: z.string(), subscribed: z.boolean() });

export const integration = z.object({
  documentId: z.string(),
  name: z.string(),
  provider: z.literal('lead_ads'),
  status: z.enum(INTEGRATION_STATUSES).describe('expired or revoked: reconnect with the OAuth flow'),
  statusMessage: z.string().nullable(),
  providerUserId: z.string(),
  providerUserName: z.string().nullable(),
  tokenExpiresAt: z.string().nullable(),
  pages: z.array(integrationPage),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Integration = z.infer<typeof integration>;

export const leadForm = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  pageId: z.string(),
  pageName: z.string(),
  questions: z.array(
    z.object({ key: z.string(), label: z.string().nullable(), type: z.string().nullable() }),
  ),
});
export const leadForms = z.object({ data: z.array(leadForm) });

const mapping = z.strictObject({
  source: z.string().trim().min(1).max(200).describe('a field of the lead (field_data name), e.g. email'),
  target: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe('`title`, `contact.<field>` or a field slug of the board entry phase'),
});

/** A consent checkbox of the lead form (docs/lgpd.md, "Consent"): its answer is recorded in the contact's ledger. */
const consentCapture = z
  .strictObject({
    field: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe('the lead form question (field name) holding the checkbox'),
    channels: z
      .array(z.enum(['whatsapp', 'email', 'sms']))
      .min(1)
      .max(3)
      .transform((c) => [...new Set(c)]),
    purpose: z.enum(['marketing', 'transactional']).default('marketing'),
    text: z.string().trim().min(1).max(2000).describe('the consent text the form shows, kept as proof'),
  })
  .describe(
    'BETA: when the lead answers the field yes/sim/true/1 (granted) or no/não/false/0 (withdrawn), the entry is ' +
      'recorded for each channel with source lead_ad and proof { leadgenId, formId, route, text }',
  );

const routeFields = {
  name: z.string().trim().min(1).max(120),
  leadIntegrationDocumentId: z.string().min(1).max(64),
  targetBoardDocumentId: z.string().min(1).max(64),
  leadFormId: z.string().trim().min(1).max(64),
  fieldMapping: z.strictObject({ mappings: z.array(mapping).max(100) }),
  consentCapture: consentCapture.nullable().optional(),
};

export const routeInput = z.strictObject(routeFields);
export const routeUpdate = z.strictObject(routeFields).partial();
export type RouteInput = z.infer<typeof routeInput>;
export type RouteUpdate = z.infer<typeof routeUpdate>;

export const formRoute = z.object({
  documentId: z.string(),
  name: z.string(),
  leadIntegrationDocumentId: z.string(),
  targetBoardDocumentId: z.string(),
  leadFormId: z.string(),
  leadFormName: z.string().nullable(),
  pageId: z.string(),
  fieldMapping: z.object({ mappings: z.array(z.object({ source: z.string(), target: z.string() })) }),
  consentCapture: z
    .object({
      field: z.string(),
      channels: z.array(z.enum(['whatsapp', 'email', 'sms'])),
      purpose: z.enum(['marketing', 'transactional']),
      text: z.string(),
    })
    .nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type FormRoute = z.infer<typeof formRoute>;

export const delivery = z.object({
  documentId: z.string(),
  leadgenId: z.string(),
  pageId: z.string(),
  formId: z.string(),
  adId: z.string().nullable(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  lastError: z.string().nullable().describe('why the last attempt failed'),
  card: z.string().nullable().describe('documentId of the card made from the lead'),
  contact: z.string().nullable().describe('documentId of the contact matched or created'),
  receivedAt: z.string(),
  processedAt: z.string().nullable(),
});

export const deliveryListQuery = z.strictObject({
  pagination: listQueryShape.pagination,
  status: z.enum(DELIVERY_STATUSES).optional(),
});

export const deliveryParams = z.object({
  id: z.string().min(1).max(64).describe('form route documentId'),
  deliveryId: z.string().min(1).max(64).describe('delivery documentId'),
});

export const formsQuery = z.strictObject({
  pageId: z.string().min(1).max(64).optional().describe('only this page'),
});

export const webhookResult = z.object({ received: z.number().int(), queued: z.number().int() });
