import { z } from 'zod';
import { EVENT_TYPES } from '../../platform/events/outbox.js';
import { listQueryShape } from '../../platform/http/list-query.js';
import { RUN_STATUSES } from './table.js';

const ref = z.string().trim().min(1).max(100);
const hours = z
  .number()
  .min(0)
  .max(24 * 365);

export const CONDITION_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'exists'] as const;

export const condition = z.strictObject({
  field: z
    .string()
    .trim()
    .regex(/^[A-Za-z_][\w]*(\.[\w]+)*$/, 'a dot path into the event data, e.g. card.value or to.slug')
    .max(200)
    .describe("a dot path into the event data (docs/automations.md lists each event's data)"),
  op: z.enum(CONDITION_OPS),
  value: z.unknown().optional().describe('compared with the field (for `in`: an array; unused by `exists`)'),
});
export type Condition = z.infer<typeof condition>;

const url = z
  .string()
  .trim()
  .max(2000)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'an http(s) URL');

/** Every action DESIGN.md §11 names, each with its params. */
export const action = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('move_card'), params: z.strictObject({ phase: ref }) }),
  z.strictObject({
    type: z.literal('assign'),
    params: z
      .strictObject({
        membership: ref.optional().describe('membership documentId'),
        distributionQueue: ref.optional().describe('distribution queue documentId: its next member'),
      })
      .refine((p) => (p.membership === undefined) !== (p.distributionQueue === undefined), {
        message: 'give exactly one of membership or distributionQueue',
      }),
  }),
  z.strictObject({ type: z.literal('add_tag'), params: z.strictObject({ tag: ref }) }),
  z.strictObject({ type: z.literal('remove_tag'), params: z.strictObject({ tag: ref }) }),
  z.strictObject({
    type: z.literal('set_field'),
    params: z.strictObject({ slug: ref, value: z.unknown() }),
  }),
  z.strictObject({ type: z.literal('set_due_date'), params: z.strictObject({ inHours: hours }) }),
  z.strictObject({
    type: z.literal('create_task'),
    params: z.strictObject({
      name: z.string().trim().min(1).max(500),
      dueInHours: hours.optional(),
      assignees: z.array(ref).max(20).optional().describe('membership documentIds'),
    }),
  }),
  z.strictObject({
    type: z.literal('send_template_message'),
    params: z.strictObject({
      channel: ref.describe('whatsapp chat channel documentId'),
      template: ref.describe('template documentId or name'),
      params: z.array(z.string().max(1000)).max(20).optional().describe('body parameters {{1}}, {{2}} …'),
      purpose: z
        .enum(['marketing', 'transactional'])
        .optional()
        .describe(
          'default marketing: skipped (and said so) unless the contact consents, per the organization setting ' +
            'marketingRequiresConsent; transactional sends do not ask (docs/lgpd.md)',
        ),
    }),
  }),
  z.strictObject({
    type: z.literal('send_email'),
    params: z.strictObject({
      template: ref.describe('e-mail template documentId'),
      purpose: z
        .enum(['marketing', 'transactional'])
        .optional()
        .describe(
          'default marketing: skipped (and said so) unless the contact consents, per the organization setting ' +
            'marketingRequiresConsent; transactional sends do not ask (docs/lgpd.md)',
        ),
    }),
  }),
  z.strictObject({
    type: z.literal('http_request'),
    params: z.strictObject({
      url,
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional().describe('default POST'),
      headers: z
        .record(
          z
            .string()
            .min(1)
            .max(100)
            .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP header name'),
          z.string().max(2000).nullable(),
        )
        .optional()
        .describe(
          'Write-only: values are stored encrypted and answered as "********" (names shown). On update a header ' +
            'not sent keeps its value, a new value replaces it, `null` removes it and "********" keeps it; values ' +
            'are kept only while the URL keeps its origin (docs/automations.md)',
        ),
      body: z.unknown().optional().describe('JSON sent; default: the triggering event'),
    }),
  }),
]);
export type Action = z.infer<typeof action>;
export const ACTION_TYPES = [
  'move_card',
  'assign',
  'add_tag',
  'remove_tag',
  'set_field',
  'set_due_date',
  'create_task',
  'send_template_message',
  'send_email',
  'http_request',
] as const;

const trigger = z.strictObject({
  event: z.enum(EVENT_TYPES),
  conditions: z.array(condition).max(20).optional().describe('all must hold (AND)'),
});

export const automationInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  enabled: z.boolean().optional().describe('default true'),
  board: ref.optional().describe("board documentId: only events of this board's cards"),
  trigger,
  actions: z.array(action).min(1).max(20),
});
export type AutomationInput = z.infer<typeof automationInput>;
export const automationUpdate = automationInput.partial().extend({ board: ref.nullable().optional() });
export type AutomationUpdate = z.infer<typeof automationUpdate>;

export const automation = z
  .object({
    documentId: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    board: z.object({ documentId: z.string(), name: z.string() }).nullable(),
    trigger: z.object({ event: z.string(), conditions: z.array(z.unknown()) }),
    actions: z.array(z.object({ type: z.string(), params: z.unknown() })),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Automation' });
export type Automation = z.infer<typeof automation>;

export const automationWithSecret = automation
  .extend({
    secret: z.string().describe('`whsec_…` signing its http_request calls (Standard Webhooks): shown once'),
  })
  .meta({ id: 'AutomationCreated' });

export const actionResult = z.object({
  type: z.string(),
  ok: z.boolean(),
  message: z.string().nullable(),
  output: z.unknown().optional(),
});
export type ActionResult = z.infer<typeof actionResult>;

export const run = z
  .object({
    id: z.number().int(),
    eventId: z.string(),
    eventType: z.string(),
    subject: z.string(),
    depth: z.number().int().describe("0: a person's change; n: made by an automation n levels deep"),
    status: z.enum(RUN_STATUSES),
    attempts: z.number().int(),
    message: z.string().nullable(),
    results: z.array(actionResult),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'AutomationRun' });

export const automationListQuery = z.strictObject(listQueryShape);
export const runListQuery = z.strictObject({
  pagination: listQueryShape.pagination,
  status: z.enum(RUN_STATUSES).optional(),
});
