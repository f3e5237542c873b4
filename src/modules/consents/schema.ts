import { z } from 'zod';
import {
  CONSENT_CHANNELS,
  CONSENT_PURPOSES,
  CONSENT_SOURCES,
  CONSENT_STATUSES,
  LEGAL_BASES,
} from './table.js';

/** Sources a caller may name; `inbox_keyword` and `unsubscribe` are recorded by the service itself only. */
export const API_SOURCES = ['api', 'manual', 'form', 'import', 'lead_ad'] as const;

const MAX_PROOF_BYTES = 4096;

const proof = z
  .record(z.string().max(100), z.unknown())
  .refine((p) => JSON.stringify(p).length <= MAX_PROOF_BYTES, {
    message: `must be at most ${MAX_PROOF_BYTES} bytes of JSON`,
  })
  .describe(
    'What shows the statement was made: e.g. { formId, ip, text } of a signed form, { document } of a contract, ' +
      '{ messageId } of a message. The recording member is kept apart (recordedBy).',
  );

export const consentInput = z.strictObject({
  channel: z.enum(CONSENT_CHANNELS),
  purpose: z.enum(CONSENT_PURPOSES),
  status: z.enum(CONSENT_STATUSES),
  legalBasis: z
    .enum(LEGAL_BASES)
    .default('consent')
    .describe('LGPD art. 7 basis (docs/lgpd.md): consent (I), legal_obligation (II), contract (V), …'),
  source: z
    .enum(API_SOURCES)
    .default('api')
    .describe(
      'where the statement came from; inbox_keyword and unsubscribe are recorded by the service only',
    ),
  proof: proof.default({}),
});
export type ConsentInput = z.infer<typeof consentInput>;

export const consentEntry = z
  .object({
    documentId: z.string(),
    channel: z.enum(CONSENT_CHANNELS),
    purpose: z.enum(CONSENT_PURPOSES),
    status: z.enum(CONSENT_STATUSES),
    legalBasis: z.enum(LEGAL_BASES),
    source: z.enum(CONSENT_SOURCES),
    proof: z.record(z.string(), z.unknown()),
    recordedAt: z.string(),
    recordedBy: z
      .string()
      .nullable()
      .describe('membership documentId; null when the person or the service acted'),
  })
  .meta({ id: 'ConsentEntry' });
export type ConsentEntry = z.infer<typeof consentEntry>;

export const consentState = z
  .object({
    channel: z.enum(CONSENT_CHANNELS),
    purpose: z.enum(CONSENT_PURPOSES),
    status: z.enum([...CONSENT_STATUSES, 'none']).describe('none: nothing recorded yet'),
    legalBasis: z.enum(LEGAL_BASES).nullable(),
    source: z.enum(CONSENT_SOURCES).nullable(),
    recordedAt: z.string().nullable(),
    entry: z.string().nullable().describe('documentId of the ledger entry that set it'),
  })
  .meta({ id: 'ConsentState' });

export const contactConsents = z
  .object({
    contact: z.string().describe('contact documentId'),
    current: z.array(consentState).describe('one per channel and purpose: the latest entry'),
    history: z.array(consentEntry).describe('every entry, newest first (at most 1000)'),
  })
  .meta({ id: 'ContactConsents' });
