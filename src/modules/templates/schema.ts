import { z } from 'zod';

export const TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED'] as const;
export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;

const component = z
  .looseObject({
    type: z.enum(['HEADER', 'BODY', 'FOOTER', 'BUTTONS']),
  })
  .describe('A Cloud API template component (HEADER, BODY, FOOTER, BUTTONS) as the provider takes it');

export const whatsappTemplateInput = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9_]{1,512}$/, 'lowercase letters, digits and underscores')
    .describe('Template name at the provider'),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'a language code such as en_US or pt_BR')
    .describe('Language code, e.g. pt_BR'),
  category: z.enum(TEMPLATE_CATEGORIES),
  components: z
    .array(component)
    .min(1)
    .max(10)
    .refine((c) => c.some((x) => x.type === 'BODY'), 'a BODY component is required'),
});
export type WhatsAppTemplateInput = z.infer<typeof whatsappTemplateInput>;

export const whatsappTemplate = z
  .object({
    documentId: z.string(),
    name: z.string(),
    language: z.string(),
    category: z.string(),
    status: z.enum(TEMPLATE_STATUSES),
    components: z.array(z.record(z.string(), z.unknown())),
    externalId: z.string().nullable(),
    syncedAt: z.string().nullable(),
  })
  .meta({ id: 'WhatsAppTemplate' });
export type WhatsAppTemplate = z.infer<typeof whatsappTemplate>;

export const channelParams = z.object({
  channelId: z.string().min(1).max(64).describe('documentId of the channel'),
});
export const templateParams = channelParams.extend({
  id: z.string().min(1).max(64).describe('documentId of the template'),
});

export const syncResult = z.object({
  data: z.array(whatsappTemplate),
  meta: z.object({ created: z.number().int(), updated: z.number().int(), deleted: z.number().int() }),
});

export const MEDIA_TYPES = {
  'image/jpeg': 5 * 1024 * 1024,
  'image/png': 5 * 1024 * 1024,
  'video/mp4': 16 * 1024 * 1024,
  'application/pdf': 16 * 1024 * 1024,
} as const;

export const mediaHandleInput = z.strictObject({
  filename: z.string().trim().min(1).max(255),
  mimeType: z.enum(Object.keys(MEDIA_TYPES) as [keyof typeof MEDIA_TYPES, ...(keyof typeof MEDIA_TYPES)[]]),
  base64: z
    .string()
    .min(1)
    .describe('The file, base64 encoded (images ≤ 5 MB, video and PDF ≤ 16 MB decoded)'),
});
export const mediaHandle = z.object({
  handle: z.string().describe('Pass as header_handle in a HEADER component example'),
});
