import { Transform } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { AppError, validationError } from '../../platform/http/errors.js';
import { asMultipartError, firstFilePart } from '../../platform/http/multipart.js';
import { importContacts } from './import.js';
import { importQuery, importResult } from './schema.js';

/** Largest CSV accepted (~50k rows take a few MB; the stream is never buffered whole). */
const MAX_BYTES = 100 * 1024 * 1024;

/** A streamed body: what the idempotency hook hashes instead of the (unread) CSV itself. */
class CsvStream {
  constructor(readonly stream: NodeJS.ReadableStream) {}
  toJSON() {
    return 'text/csv stream';
  }
}

function limited(source: NodeJS.ReadableStream) {
  let seen = 0;
  const guard = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > MAX_BYTES)
        done(new AppError('PayloadTooLargeError', `The CSV is larger than ${MAX_BYTES} bytes`));
      else done(null, chunk);
    },
  });
  source.on('error', (err) => guard.destroy(asMultipartError(err) as Error));
  return source.pipe(guard);
}

/** The CSV and the options sent as multipart fields (before the file) over the query string. */
async function csvSource(req: FastifyRequest) {
  if (req.body instanceof CsvStream)
    return { stream: limited(req.body.stream), fields: {}, multipart: false };
  if (!req.isMultipart())
    throw new AppError('UnsupportedMediaTypeError', 'Send the CSV as text/csv or as multipart/form-data');
  const file = await firstFilePart(req);
  if (!file)
    throw validationError('No file', [
      { path: ['file'], message: 'send the CSV as the multipart part file' },
    ]);
  const fields: Record<string, string> = {};
  for (const [name, part] of Object.entries(file.fields)) {
    const p = Array.isArray(part) ? part[0] : part;
    if (p && p.type === 'field' && typeof p.value === 'string') fields[name] = p.value;
  }
  return { stream: file.file, fields, multipart: true };
}

function multipartOptions(fields: Record<string, string>) {
  const out: { dryRun?: boolean; delimiter?: string; mapping?: Record<string, string> } = {};
  if (fields.dryRun !== undefined) out.dryRun = fields.dryRun === 'true';
  if (fields.delimiter !== undefined) {
    if (!importQuery.shape.delimiter.safeParse(fields.delimiter).success)
      throw validationError('Invalid delimiter', [{ path: ['delimiter'], message: 'one of , ; tab auto' }]);
    out.delimiter = fields.delimiter;
  }
  if (fields.mapping !== undefined) {
    try {
      const mapping = JSON.parse(fields.mapping);
      if (
        !mapping ||
        typeof mapping !== 'object' ||
        Object.values(mapping).some((v) => typeof v !== 'string')
      )
        throw new Error('not an object of strings');
      out.mapping = mapping;
    } catch {
      throw validationError('Invalid mapping', [
        { path: ['mapping'], message: 'a JSON object: CSV header → field' },
      ]);
    }
  }
  return out;
}

/** Own scope: multipart and the text/csv parser apply to this route only. */
export const importContactsRoute: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  await app.register(multipart, { limits: { fileSize: MAX_BYTES, files: 1, fields: 10 } });
  app.addContentTypeParser(['text/csv', 'application/csv'], (_req, payload, done) =>
    done(null, new CsvStream(payload)),
  );

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
      const { stream, fields, multipart } = await csvSource(req);
      const { dryRun, ...options } = multipartOptions(fields);
      // ?dryRun=true (the platform's dry run: the transaction is rolled back) or the multipart field.
      const opts = { ...req.query, ...options, dryRun: req.dryRun || dryRun === true };
      try {
        return await importContacts(req.tenant, stream, { ...opts, delimiter: opts.delimiter ?? 'auto' });
      } catch (err) {
        throw multipart ? asMultipartError(err) : err;
      }
    },
  );
};
