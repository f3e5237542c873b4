import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Tx } from '../../platform/db/client.js';
import type { AppDeps, WorkerDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import { idParams } from '../../platform/http/schemas.js';
import {
  acceptCsvUploads,
  importFieldOptions,
  importJob,
  importStartQuery,
  MAX_IMPORT_BYTES,
} from '../../platform/imports/http.js';
import { registerImportJobRoutes, startImportJob } from '../../platform/imports/job-routes.js';
import {
  type BatchOutcome,
  type ImportJobData,
  type ImportKind,
  importQueue,
  type RowFailure,
  type RunDeps,
  type RunOptions,
  runImportJob,
} from '../../platform/imports/runner.js';
import { workImportQueue } from '../../platform/imports/worker.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import {
  forgetPlans,
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
const fieldOptions = importFieldOptions.extend({ matchBy: matchBy.optional() });

interface State {
  targets: (string | null)[];
  lookup: Lookup;
  match: MatchKey[];
}

const optionsOf = (o: Record<string, unknown>) => ({
  mapping: o.mapping as Record<string, string> | undefined,
  match: (o.matchBy as MatchKey[] | undefined) ?? ['cpf', 'cnpj', 'email'],
});

export const contactImportKind: ImportKind<State, ParsedRow> = {
  queue: contactImportQueue,
  async prepare(tx, ctx, job, header) {
    requireRole(ctx, 'member');
    const { mapping, match } = optionsOf(job.options);
    return { targets: mapColumns(header, mapping), lookup: await loadLookups(tx, ctx.orgId), match };
  },
  parse: (state, r) => parseRow(r.record, state.targets, state.lookup, { row: r.row, line: r.line }),
  async writeBatch(tx, ctx, state, parsed) {
    // As the synchronous import: the timeline's foreign-key checks planned for the table's size of now.
    await forgetPlans(tx);
    return writeParsed(tx, ctx, state, parsed);
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
export const registerContactImportWorker = (deps: WorkerDeps) => workImportQueue(deps, contactImportKind);

/** For tests: one run of a job with the test hooks of RunOptions. */
export const runContactImport = (deps: RunDeps, data: ImportJobData, opts?: RunOptions) =>
  runImportJob(deps, contactImportKind, data, opts);

const tags = ['Contacts'];

/** Own scope: multipart and the text/csv parser apply to these routes only. */
export const contactImportJobRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  await acceptCsvUploads(app, MAX_IMPORT_BYTES);

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
      const job = await startImportJob(req, deps, {
        kind: 'contacts',
        queue: contactImportQueue,
        fieldOptions,
        query: req.query,
      });
      return reply.status(202).send(job);
    },
  );

  registerImportJobRoutes(app, {
    kind: 'contacts',
    config: deps.config,
    path: '/contacts/imports/:id',
    params: idParams,
    tags,
    operationIds: {
      get: 'getContactImport',
      failures: 'listContactImportFailures',
      cancel: 'cancelContactImport',
    },
    updates: true,
    // Reading needs no role beyond the scope; cancelling, a member's (as starting).
    locate: async (ctx, params, write) => {
      if (write) requireRole(ctx, 'member');
      return { importId: params.id };
    },
  });
};
