import { unlink } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Tx } from '../../platform/db/client.js';
import type { AppDeps, WorkerDeps } from '../../platform/deps.js';
import { AppError, validationError } from '../../platform/http/errors.js';
import { idParams } from '../../platform/http/schemas.js';
import {
  acceptCsvUploads,
  cancelImportJob,
  createImportJob,
  getImportJob,
  importFailuresPage,
  importFailuresQuery,
  importJob,
  importStartQuery,
  listImportFailures,
  mergeFieldOptions,
  receiveCsv,
} from '../../platform/imports/http.js';
import {
  type BatchOutcome,
  type ImportJobData,
  type ImportKind,
  importFilePath,
  importQueue,
  type RowFailure,
  type RunOptions,
  runImportJob,
} from '../../platform/imports/runner.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import {
  type Lookup,
  loadLookups,
  MATCH_KEYS,
  type MatchKey,
  mapColumns,
  type ParsedRow,
  parseRow,
  writeBatch,
} from './import.js';

/**
 * The background contacts import (docs/contacts.md, "Background import"): the synchronous import's column mapping,
 * row parsing and upsert, run by the platform's import runner (src/platform/imports/runner.ts) in batches that each
 * commit with the job's checkpoint. Duplicates are matched by the keys the request chose (cpf, cnpj, email, phone).
 */

export const contactImportQueue = importQueue('contact-import');

const matchBy = z
  .string()
  .transform((s, c) => {
    const keys = s
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    const bad = keys.find((k) => !(MATCH_KEYS as readonly string[]).includes(k));
    if (bad || keys.length === 0) {
      c.addIssue({ code: 'custom', message: `a comma-separated list of ${MATCH_KEYS.join(', ')}` });
      return z.NEVER;
    }
    return [...new Set(keys)] as MatchKey[];
  })
  .describe(
    'What a row is matched to an existing contact by, in order: `cpf,cnpj,email` (default), any of cpf, cnpj, email, phone',
  );

export const contactImportStartQuery = importStartQuery.extend({ matchBy: matchBy.optional() });
/** The same options sent as multipart fields (strings; mapping as JSON), over the query string's. */
const fieldOptions = z.strictObject({
  delimiter: z.enum([',', ';', 'tab', 'auto']).optional(),
  mapping: z.record(z.string(), z.string()).optional(),
  matchBy: matchBy.optional(),
});

interface State {
  targets: (string | null)[];
  lookup: Lookup;
  match: MatchKey[];
}

const optionsOf = (o: Record<string, unknown>) => ({
  mapping: o.mapping as Record<string, string> | undefined,
  match: (o.matchBy as MatchKey[] | undefined) ?? ['cpf', 'cnpj', 'email'],
});

export const contactImportKind: ImportKind<State> = {
  queue: contactImportQueue,
  async prepare(tx, ctx, job, header) {
    requireRole(ctx, 'member');
    const { mapping, match } = optionsOf(job.options);
    return { targets: mapColumns(header, mapping), lookup: await loadLookups(tx, ctx.orgId), match };
  },
  async writeBatch(tx, ctx, state, rows) {
    // As the synchronous import: the timeline's foreign-key checks with plans that see this batch's rows.
    await tx.execute(sql`set local plan_cache_mode = force_custom_plan`);
    const failures: RowFailure[] = [];
    const parsed: ParsedRow[] = [];
    for (const r of rows) {
      const p = parseRow(r.record, state.targets, state.lookup, { row: r.row, line: r.line });
      if ('message' in p) failures.push(p);
      else parsed.push(p);
    }
    const outcome = await writeParsed(tx, ctx, state, parsed);
    return { ...outcome, failures: [...failures, ...outcome.failures].sort((a, b) => a.row - b.row) };
  },
};

/** The batch in a savepoint; when the database refuses it (a cpf another contact holds…), row by row. */
async function writeParsed(
  tx: Tx,
  ctx: TenantContext,
  state: State,
  parsed: ParsedRow[],
): Promise<BatchOutcome> {
  const attempt = (rows: ParsedRow[]) =>
    tx.transaction(async (sp) => {
      const result = { created: 0, updated: 0 };
      const failures: RowFailure[] = [];
      await writeBatch(
        sp as unknown as Tx,
        ctx,
        rows,
        new Map(),
        state.lookup,
        false,
        result,
        (e) => failures.push(e),
        state.match,
      );
      return { ...result, failures };
    });
  try {
    return await attempt(parsed);
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500 || parsed.length === 1) throw err;
  }
  const total: BatchOutcome = { created: 0, updated: 0, failures: [] };
  for (const row of parsed) {
    try {
      const one = await attempt([row]);
      total.created += one.created;
      total.updated += one.updated;
      total.failures.push(...one.failures);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const first = (err.details.errors as { path: string[] }[] | undefined)?.[0];
      total.failures.push({
        row: row.row,
        line: row.line,
        field: first?.path[0] ?? null,
        message: err.message,
      });
    }
  }
  return total;
}

/** The queue's handler (src/modules/contacts/registration.ts). */
export async function registerContactImportWorker(deps: WorkerDeps) {
  await deps.jobs.work<ImportJobData>(contactImportQueue, async (data) => {
    await runImportJob(deps, contactImportKind, data);
  });
}

/** For tests: one run of a job with the test hooks of RunOptions. */
export const runContactImport = (
  deps: Pick<WorkerDeps, 'db' | 'config' | 'jobs'>,
  data: ImportJobData,
  opts?: RunOptions,
) => runImportJob(deps, contactImportKind, data, opts);

const tags = ['Contacts'];

/** Own scope: multipart and the text/csv parser apply to these routes only. */
export const contactImportJobRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  await acceptCsvUploads(app);

  app.post(
    '/contacts/imports',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        operationId: 'startContactImport',
        summary: 'Start a background CSV import of contacts (large files); 202 with the import job',
        description:
          'The CSV as the multipart part `file` (options as multipart fields before it) or a text/csv body, options ' +
          'in the query string: `delimiter`, `mapping` (as `POST /contacts/import`), `matchBy`. The file is stored, ' +
          "then imported by a background job in batches that each commit with the job's progress (resumed after a " +
          'restart); follow it with `GET /contacts/imports/{id}`. Rows with errors are reported with their line and ' +
          'skipped. Small files: `POST /contacts/import` answers at once.',
        querystring: contactImportStartQuery,
        response: { 202: importJob },
      },
    },
    async (req, reply) => {
      requireRole(req.tenant, 'member');
      const file = await receiveCsv(req, deps.config, req.tenant.orgId);
      let options: z.infer<typeof contactImportStartQuery>;
      try {
        const parsed = fieldOptions.safeParse(mergeFieldOptions({}, file.fields));
        if (!parsed.success)
          throw validationError(
            'Invalid import options',
            parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
          );
        options = { ...req.query, ...parsed.data };
      } catch (err) {
        await unlink(importFilePath(deps.config, req.tenant.orgId, file.documentId)).catch(() => {});
        throw err;
      }
      const job = await createImportJob(req.tenant, deps.jobs, contactImportQueue, deps.config, file, {
        kind: 'contacts',
        options,
      });
      deps.jobs.nudge(contactImportQueue);
      return reply.status(202).send(job);
    },
  );

  app.get(
    '/contacts/imports/:id',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags,
        operationId: 'getContactImport',
        summary: 'A background contacts import: status, progress, the first failures',
        description:
          'status queued|running|done|failed|cancelled; rowsDone (committed), rowsCreated, rowsUpdated, rowsFailed, ' +
          'bytesDone of bytesTotal; the first failures with their line and reason (all: `…/failures`).',
        params: idParams,
        response: { 200: importJob },
      },
    },
    async (req) =>
      req.tenant.transaction((tx) => getImportJob(tx, req.tenant.orgId, req.params.id, 'contacts')),
  );

  app.get(
    '/contacts/imports/:id/failures',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags,
        operationId: 'listContactImportFailures',
        summary: "A background contacts import's skipped rows, by row: line, field and reason (paginated)",
        description:
          'Every row the import skipped (up to 10,000 kept; rowsFailed counts all), ordered by row: the data row number, ' +
          "the file's line where it ends, the field at fault (null when none) and the reason.",
        params: idParams,
        querystring: importFailuresQuery,
        response: { 200: importFailuresPage },
      },
    },
    async (req) =>
      req.tenant.transaction((tx) =>
        listImportFailures(tx, req.tenant.orgId, req.params.id, 'contacts', req.query),
      ),
  );

  app.post(
    '/contacts/imports/:id/cancel',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        operationId: 'cancelContactImport',
        summary: 'Cancel a background contacts import (the batches committed stay)',
        description:
          'A queued or running import stops after the batch being written (its rows stay written); the stored file ' +
          'is removed. An import already finished is answered as it is.',
        params: idParams,
        response: { 200: importJob },
      },
    },
    async (req) => {
      requireRole(req.tenant, 'member');
      const job = await req.tenant.transaction((tx) =>
        cancelImportJob(tx, req.tenant.orgId, req.params.id, 'contacts'),
      );
      if (job.status === 'cancelled')
        await unlink(importFilePath(deps.config, req.tenant.orgId, job.documentId)).catch(() => {});
      return job;
    },
  );
};
