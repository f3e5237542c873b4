import { z } from 'zod';
import { ORG_EXPORT_STATUSES } from './table.js';

export const orgExport = z
  .object({
    documentId: z.string(),
    status: z.enum(ORG_EXPORT_STATUSES).describe('queued → running → done (or failed)'),
    bytes: z.number().nullable().describe('size of the file once done'),
    rows: z.number().nullable().describe('rows exported, all tables together'),
    files: z.number().nullable().describe('files exported'),
    error: z.string().nullable(),
    expiresAt: z.string().describe('the download link works until then'),
    downloadedAt: z.string().nullable().describe('when the file was downloaded (once only)'),
    createdAt: z.string(),
    downloadUrl: z
      .string()
      .optional()
      .describe(
        'The download link, shown once in the answer that created the export: works once, until expiresAt, once status is done',
      ),
  })
  .meta({ id: 'OrganizationExport' });

export const exportParams = z.object({
  id: z.string().min(1).max(64).describe('the organization documentId'),
  exportId: z.string().min(1).max(64).describe('the export documentId'),
});

export const downloadQuery = z.strictObject({
  token: z.string().min(1).max(200).describe('the token of the link the export request answered with'),
});

export const archiveResponse = z.any().describe('The organization export (application/gzip: a gzip’d tar)');
