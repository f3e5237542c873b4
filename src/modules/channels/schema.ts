import { z } from 'zod';

export const CHANNEL_TYPES = ['whatsapp', 'email', 'sms'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

const ratePerSecond = z
  .number()
  .int()
  .min(1)
  .max(1000)
  .optional()
  .describe(
    'Messages per second through this channel, shared by every worker process; WhatsApp: campaigns, automations and the inbox together (default CRM_WHATSAPP_RATE_PER_SECOND, 80); e-mail and SMS: campaigns (default 10)',
  );
const graphId = (what: string) =>
  z
    .string()
    .regex(/^\d{1,32}$/, 'digits only')
    .describe(what);

export const whatsappSettings = z.strictObject({
  phoneNumberId: graphId('WhatsApp Cloud API phone number id'),
  businessAccountId: graphId('WhatsApp Business Account id (templates live there)'),
  appId: graphId('Meta app id (needed for template media handles)').optional(),
  ratePerSecond,
});
export const emailSettings = z.strictObject({
  fromName: z.string().trim().min(1).max(120),
  fromAddress: z.email().max(254),
  replyTo: z.email().max(254).optional(),
  ratePerSecond,
});
export const smsSettings = z.strictObject({
  from: z
    .string()
    .regex(/^\+?[0-9A-Za-z ]{2,20}$/, 'a phone number in E.164 or an alphanumeric sender id')
    .describe('Sender number (E.164) or alphanumeric sender id'),
  ratePerSecond,
});

const secret = (what: string) => z.string().min(1).max(4096).describe(what);
export const whatsappCredentials = z.strictObject({
  accessToken: secret('System user access token'),
  appSecret: secret('App secret: verifies X-Hub-Signature-256 of webhooks'),
  verifyToken: secret('Verify token of the webhook handshake'),
});
export const emailCredentials = z.strictObject({
  smtpUrl: z
    .url({ protocol: /^smtps?$/ })
    .max(2048)
    .optional()
    .describe(
      "The channel's own SMTP server (smtp:// or smtps://, user and password in the URL; a public host: internal addresses are refused when saved, 400 `details.rule` public_address); default: the service's",
    ),
  webhookSecret: z
    .string()
    .min(16)
    .max(256)
    .optional()
    .describe(
      'Key of the X-CRM-Signature HMAC on /webhooks/email-events/{channelId}; generated when omitted',
    ),
});
export const smsCredentials = z.strictObject({
  accountSid: secret('Account SID'),
  authToken: secret('Auth token'),
});

export const settingsByType = { whatsapp: whatsappSettings, email: emailSettings, sms: smsSettings };
export const credentialsByType = {
  whatsapp: whatsappCredentials,
  email: emailCredentials,
  sms: smsCredentials,
};

export type WhatsAppSettings = z.infer<typeof whatsappSettings>;
export type EmailSettings = z.infer<typeof emailSettings>;
export type SmsSettings = z.infer<typeof smsSettings>;
export type WhatsAppCredentialsInput = z.infer<typeof whatsappCredentials>;
export type EmailCredentialsInput = z.infer<typeof emailCredentials>;
export type SmsCredentialsInput = z.infer<typeof smsCredentials>;

// Settings and credentials are checked against the type in the service (their shape depends on `type`),
// so the body schema takes objects and the service reports precise paths.
export const channelInput = z.strictObject({
  name: z.string().trim().min(1).max(120),
  type: z.enum(CHANNEL_TYPES),
  settings: z
    .record(z.string(), z.unknown())
    .describe('Per type: see the channels section of docs/messaging.md'),
  credentials: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Write-only secrets per type; never returned (responses say hasCredentials)'),
});
export type ChannelInput = z.infer<typeof channelInput>;

export const channelUpdate = z.strictObject({
  name: channelInput.shape.name.optional(),
  settings: channelInput.shape.settings.optional().describe('Merged into the current settings'),
  credentials: channelInput.shape.credentials.describe('Merged into the current credentials'),
});
export type ChannelUpdate = z.infer<typeof channelUpdate>;

export const channel = z
  .object({
    documentId: z.string(),
    name: z.string(),
    type: z.enum(CHANNEL_TYPES),
    settings: z.record(z.string(), z.unknown()),
    hasCredentials: z.boolean(),
    boards: z.array(z.object({ documentId: z.string(), name: z.string() })),
    createdAt: z.string(),
    updatedAt: z.string(),
    webhookSecret: z
      .string()
      .optional()
      .describe('E-mail channels, in the create answer only: the generated webhook signing key, shown once'),
  })
  .meta({ id: 'ChatChannel' });
export type Channel = z.infer<typeof channel>;

export const channelRef = z.object({ documentId: z.string(), name: z.string(), type: z.enum(CHANNEL_TYPES) });

export const channelHealth = z.object({
  status: z.enum(['ok', 'error']),
  checkedAt: z.string(),
  latencyMs: z.number().int(),
  message: z.string(),
});

export const boardChannelsParams = z.object({ boardId: z.string().min(1).max(64) });
export const boardChannelsInput = z.strictObject({
  channels: z
    .array(z.string().min(1).max(64))
    .max(50)
    .describe('documentIds of the channels linked to the board'),
});
export const boardChannels = z.object({ data: z.array(channel) });
