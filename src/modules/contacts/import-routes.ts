import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { validationError } from '../../platform/http/errors.js';
import { asMultipartError } from '../../platform/http/multipart.js';
import { acceptCsvUploads, byteLimit, csvUpload, parseMappingField } from '../../platform/imports/http.js';
import { importContacts } from './import.js';
import { importQuery, importResult } from './schema.js';

/** Largest CSV accepted (~50k rows take a few MB; the stream is never buffered whole). */
const MAX_BYTES = 100 * 1024 * 1024;

/** The CSV (a text/csv body limited here; a multipart file by the plugin) and the options sent as multipart fields. */
async function csvSource(req: FastifyRequest) {
  const upload = await csvUpload(req);
  if (upload.isMultipart) return upload;
  const guard = byteLimit(MAX_BYTES);
  upload.stream.on('error', (err) => guard.destroy(asMultipartError(err) as Error));
  return { ...upload, stream: upload.stream.pipe(guard) };
}

function multipartOptions(fields: Record<string, string>) {
  const out: { dryRun?: boolean; delimiter?: string; mapping?: Record<string, string> } = {};
  if (fields.dryRun !== undefined) out.dryRun = fields.dryRun === 'true';
  if (fields.delimiter !== undefined) {
    if (!importQuery.shape.delimiter.safeParse(fields.delimiter).success)
      throw validationError('Invalid delimiter', [{ path: ['delimiter'], message: 'one of , ; tab auto' }]);
    out.delimiter = fields.delimiter;
  }
  if (fields.mapping !== undefined) out.mapping = parseMappingField(fields.mapping);
  return out;
}

/** Own scope: multipart and the text/csv parser apply to this route only. */
export const importContactsRoute: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  await acceptCsvUploads(app, MAX_BYTES);

  app.post(
    '/contacts/import',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags: ['Contacts'],
        summary:
          'Import contacts from CSV (multipart part `file`, or a text/csv body); upsert by cpf, cnpj or email',
        description:
          'Options in the query string (or as multipart fields before the file): `dryRun`, `delimiter`, `mapping`. ' +
          'Rows with errors are reported and skipped; the others are written in one transaction.',
        querystring: importQuery,
        response: { 200: importResult },
      },
    },
    async (req) => {
      const { stream, fields, isMultipart } = await csvSource(req);
      const { dryRun, ...options } = multipartOptions(fields);
      // ?dryRun=true (the platform's dry run: the transaction is rolled back) or the multipart field.
      const opts = { ...req.query, ...options, dryRun: req.dryRun || dryRun === true };
      try {
        return await importContacts(req.tenant, stream, { ...opts, delimiter: opts.delimiter ?? 'auto' });
      } catch (err) {
        throw isMultipart ? asMultipartError(err) : err;
      }
    },
  );
};
