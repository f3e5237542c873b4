import { z } from 'zod';
import { PLANS } from '../../config.js';
import { userRef } from '../../platform/http/schemas.js';
import { slugPattern } from '../../platform/slugs.js';
import { ROLES } from '../../platform/tenancy/context.js';
import { retentionInput, retentionOutput } from './retention.js';
import { DEFAULT_TIME_ZONE } from './table.js';

/** The canonical IANA name of a time zone the runtime knows (`america/sao_paulo` → `America/Sao_Paulo`), or null. */
export function canonicalTimeZone(name: string): string | null {
  // Area/Location names (and UTC) only: abbreviations such as EST are ambiguous and resolve to odd zones.
  if (!/^(?:[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)+|UTC)$/i.test(name) || name.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const timeZone = z
  .string()
  .trim()
  .transform((name, ctx) => {
    const zone = canonicalTimeZone(name);
    if (zone) return zone;
    ctx.addIssue({
      code: 'custom',
      message: 'must be an IANA time zone name, e.g. America/Sao_Paulo or Europe/Lisbon',
    });
    return z.NEVER;
  })
  .describe(
    `IANA time zone of the organization (default ${DEFAULT_TIME_ZONE}): recurring tasks keep their local time in it`,
  );

const organizationName = z.string().trim().min(1).max(120);

export const organizationInput = z.strictObject({
  name: organizationName,
  slug: z.string().trim().toLowerCase().regex(slugPattern, 'lowercase letters, digits and dashes').optional(),
  timeZone: timeZone.optional(),
});

/** The settings an owner or admin changes: PUT /organizations/{id}. */
export const organizationUpdate = z.strictObject({
  name: organizationName.optional(),
  timeZone: timeZone.optional(),
  retention: retentionInput.optional(),
  marketingRequiresConsent: z
    .boolean()
    .optional()
    .describe('whether marketing sends need a granted consent of the channel (default true; docs/lgpd.md)'),
  consentStopKeywords: z
    .array(z.string().trim().min(1).max(40))
    .max(20)
    .transform((words) => [...new Set(words.map((w) => w.toUpperCase()))])
    .optional()
    .describe(
      'inbound WhatsApp messages that, alone, withdraw WhatsApp marketing consent (case- and accent-blind; ' +
        'default PARAR, STOP, SAIR, DESCADASTRAR; [] turns the keywords off)',
    ),
});

export const organization = z
  .object({
    documentId: z.string(),
    name: z.string(),
    slug: z.string(),
    plan: z.enum(PLANS),
    timeZone: z
      .string()
      .describe('IANA time zone of the organization: recurring tasks keep their local time in it'),
    role: z.enum(ROLES).describe('the role of the authenticated user in it'),
    retention: retentionOutput,
    marketingRequiresConsent: z
      .boolean()
      .describe('whether marketing sends need a granted consent of the channel (docs/lgpd.md, "Consent")'),
    consentStopKeywords: z
      .array(z.string())
      .describe('inbound WhatsApp messages that withdraw WhatsApp marketing consent'),
    deletionScheduledAt: z
      .string()
      .nullable()
      .describe(
        'When the organization and all its data will be deleted (an owner scheduled it: DELETE /organizations/{id}/deletion cancels); null: not scheduled',
      ),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Organization' });

export const membershipInput = z.strictObject({
  email: z.string().trim().toLowerCase().pipe(z.email()).describe('email of a registered user'),
  role: z.enum(ROLES).default('member'),
});
export const membershipUpdate = z.strictObject({ role: z.enum(ROLES) });

export const membership = z
  .object({
    documentId: z.string(),
    role: z.enum(ROLES),
    user: userRef,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Membership' });
