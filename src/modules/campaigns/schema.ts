import { z } from 'zod';
import { CHANNEL_TYPES } from '../channels/index.js';
import { CAMPAIGN_STATUSES, RECIPIENT_STATUSES, SUPPRESSION_REASONS } from './table.js';

export const ACTIONS = ['trigger', 'pause', 'resume', 'cancel'] as const;
export type CampaignAction = (typeof ACTIONS)[number];

const docId = (what: string) => z.string().min(1).max(64).describe(`documentId of the ${what}`);

export const campaignInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5000).nullish(),
  channel: docId('chat channel (its type decides the template kind)'),
  segment: docId('segment whose contacts form the audience (fixed when sending starts)'),
  template: docId(
    'template: an e-mail template for e-mail channels, a WhatsApp template of the channel for WhatsApp',
  )
    .optional()
    .describe('Required for e-mail and WhatsApp channels; SMS campaigns send messageConfig.text'),
  variables: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'E-mail: values of {{variables.KEY}}. WhatsApp: body parameters by position, { "1": "{{contact.name}}", "2": "20%" } (values may use contact variables)',
    ),
  messageConfig: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Free object; SMS campaigns need { text } (variables allowed)'),
  scheduledAt: z.iso
    .datetime({ offset: true })
    .nullish()
    .describe('When to start; trigger before it schedules'),
});
export const campaignUpdate = campaignInput.partial();
export type CampaignInput = z.infer<typeof campaignInput>;
export type CampaignUpdate = z.infer<typeof campaignUpdate>;

export const campaignStats = z
  .object({
    total: z.number().int(),
    pending: z.number().int(),
    sent: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
    skippedNoConsent: z
      .number()
      .int()
      .describe(
        'skipped for consent: no granted marketing consent for the channel, or withdrawn (docs/lgpd.md)',
      ),
    delivered: z.number().int(),
    opened: z.number().int(),
    clicked: z.number().int(),
    bounced: z.number().int(),
  })
  .meta({ id: 'CampaignStats' });
export type CampaignStats = z.infer<typeof campaignStats>;

export const campaign = z
  .object({
    documentId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    channel: z.enum(CHANNEL_TYPES).describe("The channel's type (spec enum)"),
    chatChannel: z.object({ documentId: z.string(), name: z.string(), type: z.enum(CHANNEL_TYPES) }),
    campaignStatus: z.enum(CAMPAIGN_STATUSES),
    segment: z.object({ documentId: z.string(), name: z.string() }).nullable(),
    template: z
      .object({ documentId: z.string(), name: z.string(), kind: z.enum(['email', 'whatsapp']) })
      .nullable(),
    variables: z.record(z.string(), z.unknown()),
    messageConfig: z.record(z.string(), z.unknown()),
    stats: campaignStats,
    scheduledAt: z.string().nullable(),
    startedAt: z.string().nullable(),
    completedAt: z.string().nullable(),
    error: z.string().nullable().describe('Why the campaign failed or could not start'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Campaign' });
export type Campaign = z.infer<typeof campaign>;

export const statsResponse = z.object({
  campaignId: z.string(),
  stats: z.object({
    totalAudience: z.number().int(),
    sent: z.number().int(),
    failed: z.number().int(),
    pending: z.number().int(),
    readRate: z.number().min(0).max(1).describe('opened ÷ sent; 0 when nothing was sent'),
  }),
});

export const recipient = z.object({
  contact: z.object({ documentId: z.string(), name: z.string() }).nullable(),
  address: z.string(),
  status: z.enum(RECIPIENT_STATUSES),
  skipReason: z
    .string()
    .nullable()
    .describe(
      'why a skipped recipient was not written to: suppressed:<reason>, no_consent, consent_withdrawn, cancelled, contact deleted',
    ),
  attempts: z.number().int(),
  error: z.string().nullable(),
  messageId: z.string().nullable(),
  sentAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  openedAt: z.string().nullable(),
  clickedAt: z.string().nullable(),
  bouncedAt: z.string().nullable(),
});

export const suppressionInput = z.strictObject({
  address: z.string().trim().min(3).max(254).describe('An e-mail address or a phone number (E.164)'),
  reason: z.enum(SUPPRESSION_REASONS).default('manual'),
});
export const suppression = z
  .object({
    documentId: z.string(),
    address: z.string(),
    reason: z.enum(SUPPRESSION_REASONS),
    campaign: z.string().nullable().describe('documentId of the campaign it came from'),
    createdAt: z.string(),
  })
  .meta({ id: 'Suppression' });

export const emailEvents = z
  .array(
    z.strictObject({
      type: z.enum(['delivered', 'opened', 'clicked', 'bounced', 'complained']),
      messageId: z.string().min(1).max(512),
      timestamp: z.union([z.iso.datetime({ offset: true }), z.number()]).optional(),
      bounceType: z.enum(['hard', 'soft']).optional().describe('bounced only; soft bounces do not suppress'),
    }),
  )
  .max(1000);
export type EmailEvent = z.infer<typeof emailEvents>[number];
export const eventsResult = z.object({ received: z.number().int(), matched: z.number().int() });
