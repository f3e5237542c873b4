import { z } from 'zod';

export const emailTemplateInput = z.strictObject({
  name: z.string().trim().min(1).max(120),
  subject: z.string().trim().min(1).max(255).describe('May use variables, e.g. "Hi {{contact.name}}"'),
  html: z.string().min(1).max(500_000).describe('HTML body; variables are HTML-escaped when rendered'),
  text: z.string().max(200_000).nullish().describe('Plain-text part; derived from the HTML when omitted'),
});
export const emailTemplateUpdate = emailTemplateInput.partial();
export type EmailTemplateInput = z.infer<typeof emailTemplateInput>;
export type EmailTemplateUpdate = z.infer<typeof emailTemplateUpdate>;

export const emailTemplate = z
  .object({
    documentId: z.string(),
    name: z.string(),
    subject: z.string(),
    html: z.string(),
    text: z.string().nullable(),
    variables: z.array(z.string()).describe('Variables the template uses'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'EmailTemplate' });
export type EmailTemplate = z.infer<typeof emailTemplate>;

export const previewInput = z.strictObject({
  contact: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('documentId of a contact to render for; a sample contact when omitted'),
  variables: z.record(z.string(), z.unknown()).optional().describe('Values of {{variables.KEY}}'),
});
export const rendered = z.object({ subject: z.string(), html: z.string(), text: z.string() });

export const testSendInput = z.strictObject({
  to: z.email().max(254).describe('The one recipient; the suppression list is ignored'),
  channel: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "documentId of an e-mail channel to send through (its sender and SMTP); default: the service's",
    ),
  contact: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('documentId of a contact whose data fills the variables'),
  variables: z.record(z.string(), z.unknown()).optional(),
});
export const testSent = z.object({ messageId: z.string(), to: z.string(), subject: z.string() });

// ---- assets

export const ASSET_TYPES = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
} as const;
export const MAX_ASSET_BYTES = 2 * 1024 * 1024;

export const assetInput = z.strictObject({
  filename: z
    .string()
    .trim()
    .min(1)
    .max(120)
    .regex(/^[\w.\- ]+$/, 'letters, digits, spaces, dots, dashes and underscores'),
  mimeType: z.enum(Object.keys(ASSET_TYPES) as [keyof typeof ASSET_TYPES, ...(keyof typeof ASSET_TYPES)[]]),
  base64: z
    .string()
    .min(1)
    .describe(`The image, base64 encoded (at most ${MAX_ASSET_BYTES / 1048576} MB decoded)`),
});
export const asset = z
  .object({
    documentId: z.string(),
    filename: z.string(),
    mimeType: z.string(),
    size: z.number().int(),
    url: z.string().describe('Stable public URL to use in template HTML'),
    createdAt: z.string(),
  })
  .meta({ id: 'EmailAsset' });
export const assetParams = z.object({ id: z.string().min(1).max(64), filename: z.string().min(1).max(200) });
