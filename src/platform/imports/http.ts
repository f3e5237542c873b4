import { createWriteStream } from 'node:fs';
import { mkdir, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import { and, asc, count, eq, type SQL } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Tx } from '../db/client.js';
import { newDocumentId } from '../db/ids.js';
import { AppError, notFound, validationError } from '../http/errors.js';
import { metaFor, pageWindow, paginatedSchema, paginationSchema } from '../http/list-query.js';
import { asMultipartError, firstFilePart } from '../http/multipart.js';
import { iso } from '../http/schemas.js';
import type { Jobs } from '../jobs/jobs.js';
import type { TenantContext } from '../tenancy/context.js';
import { type ImportJobData, importFilePath, MAX_FAILURES_KEPT } from './runner.js';
import { IMPORT_STATUSES, importJobFailures, importJobs } from './table.js';

/**
 * The HTTP side of background imports, shared by `POST /contacts/imports` and `POST /boards/{id}/cards/imports`:
 * the body (multipart part `file`, or a text/csv body) is streamed to `<CRM_DATA_DIR>/imports/…` (never held in
 * memory), then the job row and its queue job are written in one transaction (202). The synchronous
 * `POST /contacts/import` reads its upload with the same parts (acceptCsvUploads, csvUpload, parseMappingField).
 */

/** Largest file a background import takes (1,000,000 contacts are ~150 MB). */
export const MAX_IMPORT_BYTES = 2 * 1024 * 1024 * 1024;

/** A streamed body: what the idempotency hook hashes instead of the (unread) CSV itself. */
class CsvStream {
  constructor(readonly stream: NodeJS.ReadableStream) {}
  toJSON() {
    return 'text/csv stream';
  }
}

/** In the caller's own plugin scope: multipart (files up to maxBytes) and the text/csv parser for its routes only. */
export async function acceptCsvUploads(app: FastifyInstance, maxBytes: number) {
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 10 } });
  app.addContentTypeParser(['text/csv', 'application/csv'], (_req, payload, done) =>
    done(null, new CsvStream(payload)),
  );
}

/** A pass-through that fails (413) past maxBytes: the text/csv body has no other limit. */
export function byteLimit(maxBytes: number) {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes)
        done(new AppError('PayloadTooLargeError', `The CSV is larger than ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
}

export interface CsvUpload {
  stream: NodeJS.ReadableStream;
  /** Multipart fields sent before the file (options). */
  fields: Record<string, string>;
  fileName: string | null;
  isMultipart: boolean;
}

/** The request's CSV, not read yet: a text/csv body, or the multipart part `file` and the fields sent before it. */
export async function csvUpload(req: FastifyRequest): Promise<CsvUpload> {
  if (req.body instanceof CsvStream)
    return { stream: req.body.stream, fields: {}, fileName: null, isMultipart: false };
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
  return { stream: file.file, fields, fileName: file.filename?.slice(0, 255) || null, isMultipart: true };
}

export interface ReceivedFile {
  documentId: string;
  bytes: number;
  fileName: string | null;
  /** Multipart fields sent before the file (options). */
  fields: Record<string, string>;
}

/** Streams the request's CSV to the import's file; the caller then writes the job (or removes the file). */
export async function receiveCsv(req: FastifyRequest, config: Pick<Config, 'CRM_DATA_DIR'>, orgId: number) {
  const { stream: source, fields, fileName, isMultipart } = await csvUpload(req);
  const documentId = newDocumentId();
  const path = importFilePath(config, orgId, documentId);
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.part`;
  let bytes = 0;
  try {
    await pipeline(
      source,
      byteLimit(MAX_IMPORT_BYTES),
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          done(null, chunk);
        },
      }),
      createWriteStream(partial),
    );
    // busboy marks a file cut at its size limit instead of failing the stream.
    if ((source as { truncated?: boolean }).truncated)
      throw new AppError('PayloadTooLargeError', `The CSV is larger than ${MAX_IMPORT_BYTES} bytes`);
    await rename(partial, path);
  } catch (err) {
    await unlink(partial).catch(() => {});
    throw isMultipart ? asMultipartError(err) : err;
  }
  if (bytes === 0) {
    await unlink(path).catch(() => {});
    throw validationError('The CSV is empty', [{ path: ['file'], message: 'expected a header row' }]);
  }
  return { documentId, bytes, fileName, fields } satisfies ReceivedFile;
}

/** The options sent as multipart fields (strings), `mapping` parsed from its JSON. */
export function optionFields(fields: Record<string, string>) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = k === 'mapping' ? parseMappingField(v) : v;
  return out;
}

/** A `mapping` sent as a multipart field: a JSON object of strings (CSV header → field). */
export function parseMappingField(value: string): Record<string, string> {
  try {
    const mapping = JSON.parse(value);
    if (!mapping || typeof mapping !== 'object' || Object.values(mapping).some((x) => typeof x !== 'string'))
      throw new Error('not an object of strings');
    return mapping;
  } catch {
    throw validationError('Invalid mapping', [
      { path: ['mapping'], message: 'a JSON object: CSV header → field' },
    ]);
  }
}

/**
 * The job row and its queue job, in one transaction; the file is removed when that fails. Answers the job as
 * `GET` shows it.
 */
export async function createImportJob(
  ctx: TenantContext,
  jobs: Pick<Jobs, 'send'>,
  queue: Parameters<Jobs['send']>[0],
  config: Pick<Config, 'CRM_DATA_DIR'>,
  file: ReceivedFile,
  values: { kind: 'contacts' | 'cards'; boardId?: number; options: Record<string, unknown> },
) {
  try {
    return await ctx.transaction(async (tx) => {
      const [row] = await tx
        .insert(importJobs)
        .values({
          organizationId: ctx.orgId,
          documentId: file.documentId,
          kind: values.kind,
          boardId: values.boardId ?? null,
          options: values.options,
          createdByMembershipId: ctx.membershipId,
          fileName: file.fileName,
          bytesTotal: file.bytes,
        })
        .returning();
      await jobs.send<ImportJobData>(queue, { orgId: ctx.orgId, importId: row.id }, { tx });
      return toImportJob(row, []);
    });
  } catch (err) {
    await unlink(importFilePath(config, ctx.orgId, file.documentId)).catch(() => {});
    throw err;
  }
}

/** First failures shown in the job itself; the rest through `…/failures`. */
const FAILURES_SHOWN = 20;

export const importFailure = z.object({
  row: z.number().int().describe('data row, 1 = the first row after the header'),
  line: z.number().int().describe("the file's line where the row ends (1 = the header)"),
  field: z.string().nullable(),
  message: z.string(),
});

export const importJob = z.object({
  documentId: z.string(),
  kind: z.enum(['contacts', 'cards']),
  status: z.enum(IMPORT_STATUSES),
  fileName: z.string().nullable(),
  options: z.record(z.string(), z.unknown()),
  bytesTotal: z.number().int(),
  bytesDone: z.number().int().describe('bytes of the file committed: bytesDone / bytesTotal is the progress'),
  rowsTotal: z.number().int().nullable().describe('known once the import is done'),
  rowsDone: z.number().int().describe('rows processed (created, updated or failed), committed'),
  rowsCreated: z.number().int(),
  rowsUpdated: z.number().int(),
  rowsFailed: z.number().int(),
  failures: z
    .array(importFailure)
    .describe(`the first ${FAILURES_SHOWN}; all (up to ${MAX_FAILURES_KEPT}) through …/failures`),
  error: z.string().nullable().describe('why the whole import failed (status failed)'),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

export const importFailuresPage = paginatedSchema(importFailure);
export const importFailuresQuery = z.strictObject({ pagination: paginationSchema.optional() });
/** The start options sent as multipart fields instead (no defaults: they override the query string's). */
export const importFieldOptions = z.strictObject({
  delimiter: z.enum([',', ';', 'tab', 'auto']).optional(),
  mapping: z.record(z.string(), z.string()).optional(),
});
export const importStartQuery = z.strictObject({
  delimiter: z.enum([',', ';', 'tab', 'auto']).default('auto'),
  mapping: z
    .record(z.string(), z.string())
    .optional()
    .describe('CSV header to field (`ignore` skips the column), as the synchronous import takes it'),
});

type Row = typeof importJobs.$inferSelect;
type FailureRow = typeof importJobFailures.$inferSelect;

const toFailure = (f: FailureRow) => ({ row: f.row, line: f.line, field: f.field, message: f.message });

export function toImportJob(row: Row, failures: FailureRow[]): z.infer<typeof importJob> {
  return {
    documentId: row.documentId,
    kind: row.kind as 'contacts' | 'cards',
    status: row.status as z.infer<typeof importJob>['status'],
    fileName: row.fileName,
    options: row.options,
    bytesTotal: row.bytesTotal,
    bytesDone: row.status === 'done' ? row.bytesTotal : row.byteOffset,
    rowsTotal: row.rowsTotal,
    rowsDone: row.rowsDone,
    rowsCreated: row.rowsCreated,
    rowsUpdated: row.rowsUpdated,
    rowsFailed: row.rowsFailed,
    failures: failures.map(toFailure),
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    startedAt: iso(row.startedAt),
    finishedAt: iso(row.finishedAt),
  };
}

/** The organization's import job of this kind (and board), or a 404 (another organization's reads as none). */
async function findJob(tx: Tx, orgId: number, documentId: string, where: SQL) {
  const [row] = await tx
    .select()
    .from(importJobs)
    .where(and(eq(importJobs.organizationId, orgId), eq(importJobs.documentId, documentId), where));
  if (!row) throw notFound('Import');
  return row;
}

const ofKind = (kind: 'contacts' | 'cards', boardId?: number) =>
  boardId === undefined
    ? eq(importJobs.kind, kind)
    : (and(eq(importJobs.kind, kind), eq(importJobs.boardId, boardId)) as SQL);

export async function getImportJob(
  tx: Tx,
  orgId: number,
  documentId: string,
  kind: 'contacts' | 'cards',
  boardId?: number,
) {
  const row = await findJob(tx, orgId, documentId, ofKind(kind, boardId));
  const failures = await tx
    .select()
    .from(importJobFailures)
    .where(and(eq(importJobFailures.organizationId, orgId), eq(importJobFailures.importJobId, row.id)))
    .orderBy(asc(importJobFailures.row), asc(importJobFailures.seq))
    .limit(FAILURES_SHOWN);
  return toImportJob(row, failures);
}

export async function listImportFailures(
  tx: Tx,
  orgId: number,
  documentId: string,
  kind: 'contacts' | 'cards',
  query: z.infer<typeof importFailuresQuery>,
  boardId?: number,
) {
  const row = await findJob(tx, orgId, documentId, ofKind(kind, boardId));
  const w = pageWindow(query.pagination);
  const of = and(eq(importJobFailures.organizationId, orgId), eq(importJobFailures.importJobId, row.id));
  const rows = await tx
    .select()
    .from(importJobFailures)
    .where(of)
    .orderBy(asc(importJobFailures.row), asc(importJobFailures.seq))
    .limit(w.pageSize)
    .offset(w.offset);
  const total = w.withCount
    ? (await tx.select({ n: count() }).from(importJobFailures).where(of))[0].n
    : undefined;
  return { data: rows.map(toFailure), meta: { pagination: metaFor(w, total) } };
}

/** Stops a queued or running import after its current batch (the rows committed stay). */
export async function cancelImportJob(
  tx: Tx,
  orgId: number,
  documentId: string,
  kind: 'contacts' | 'cards',
  boardId?: number,
) {
  const row = await findJob(tx, orgId, documentId, ofKind(kind, boardId));
  if (row.status === 'queued' || row.status === 'running')
    await tx
      .update(importJobs)
      .set({ status: 'cancelled', finishedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(importJobs.organizationId, orgId), eq(importJobs.id, row.id)));
  return getImportJob(tx, orgId, documentId, kind, boardId);
}
