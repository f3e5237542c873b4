import { z } from 'zod';
import { PRIVACY_REQUEST_KINDS, PRIVACY_REQUEST_STATUSES } from './table.js';

export const eraseInput = z.strictObject({
  confirm: z.string().min(1).max(64).describe("The contact's documentId again: the erasure cannot be undone"),
});
export type EraseInput = z.infer<typeof eraseInput>;

/** `{ confirm }`, or the same inside the usual write envelope `{ data: { confirm } }`. */
export const eraseBody = z
  .strictObject({ confirm: eraseInput.shape.confirm.optional(), data: eraseInput.optional() })
  .superRefine((b, c) => {
    if (b.confirm === undefined && b.data === undefined)
      c.addIssue({
        code: 'custom',
        path: ['confirm'],
        message: "is required: the contact's documentId, to confirm the erasure",
      });
  })
  .transform((b): EraseInput => ({ confirm: b.confirm ?? b.data?.confirm ?? '' }))
  .meta({ examples: [{ confirm: 'k2v9x0c1m3n4b5v6c7x8z9a0' }] });

export const privacyRequest = z
  .object({
    documentId: z.string(),
    kind: z.enum(PRIVACY_REQUEST_KINDS).describe('data_export or erasure'),
    status: z
      .enum(PRIVACY_REQUEST_STATUSES)
      .describe(
        'queued → running → done | failed. An erasure is done once the database part committed (the data is gone), ' +
          'even when a later step failed (see warnings); failed means nothing was erased. An export is failed when ' +
          'the contact was erased while it was being made (error says so): it has nothing to download',
      ),
    contact: z.object({ documentId: z.string() }),
    error: z.string().nullable().describe('Why the request failed'),
    warnings: z
      .array(z.string())
      .describe(
        'A done erasure: what failed after its data was erased (a file left on disk, the job queue not swept); empty when all went well',
      ),
    summary: z
      .record(z.string(), z.number())
      .describe('What the job did: rows per section (export) or per table (erasure); counts only'),
    fileBytes: z.number().int().nullable().describe('The export zip size, once done'),
    downloadUrl: z
      .string()
      .nullable()
      .describe(
        'The export link, only in the answer that created the export (null in every other answer): works once the ' +
          'export is done, once, until expiresAt',
      ),
    expiresAt: z.string().nullable(),
    downloadedAt: z.string().nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'PrivacyRequest' });
export type PrivacyRequest = z.infer<typeof privacyRequest>;

export const exportTokenParams = z.object({
  token: z.string().min(1).max(200).describe('The token of the link the export request answered with'),
});
