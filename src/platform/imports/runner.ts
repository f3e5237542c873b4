import { createReadStream } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { and, eq, sql } from 'drizzle-orm';
import type { Config, Plan } from '../../config.js';
import { type Database, queryRows, type Tx } from '../db/client.js';
import type { Jobs, QueueDef } from '../jobs/jobs.js';
import type { Role, TenantContext } from '../tenancy/context.js';
import { importJobFailures, importJobs } from './table.js';

/**
 * The background CSV import (docs/decisions.md, "Background imports"), shared by the contacts and cards imports.
 * The file is read from storage as a stream starting at the checkpoint (never loaded whole: memory is one batch),
 * parsed with csv-parse, and written in batches: each batch is one tenant transaction that writes its rows, records
 * their failures and advances the job's checkpoint (byte offset and line after the batch's last record). A run
 * killed at any point resumes from the last committed checkpoint, so each row is written exactly once. A run works
 * for at most SLICE_MS, then queues its own continuation: a job never outlives the queue's expiry, and a job whose
 * process died is expired and retried within minutes. Before each batch the run checks, under the row's lock, that
 * the checkpoint is still the one it started from and the job still running: a second run (an expired job
 * retried while the first was only slow) or a cancel stops it.
 *
 * Two batches overlap: while one is written (its transaction waits on the database), the next is read and its rows
 * parsed (the kind's `parse`, pure work), so Node's share and the database's run side by side on a machine's two
 * cores instead of one after the other. A batch's transaction starts only once the previous one committed, so the
 * checkpoints still follow each other and a kill loses at most the batch being read.
 */

export type ImportJobRow = typeof importJobs.$inferSelect;

/** The rows of a batch: the CSV record, its data row number (1 = first after the header) and its file line. */
export interface ImportRecord {
  record: string[];
  row: number;
  line: number;
}

export interface RowFailure {
  row: number;
  line: number;
  field: string | null;
  message: string;
}

export interface BatchOutcome {
  created: number;
  updated: number;
  failures: RowFailure[];
}

/** What a kind of import (contacts, cards) does with the file's header and with each batch of rows. */
export interface ImportKind<S, P> {
  queue: QueueDef;
  /**
   * Reads the header and the job's options (at each run, resumed ones too); an AppError fails the whole import
   * with its message (no such column, no such board…).
   */
  prepare(tx: Tx, ctx: TenantContext, job: ImportJobRow, header: string[]): Promise<S>;
  /**
   * One row's pure work, outside any transaction (run while the previous batch is written): what writeBatch gets
   * for it, or the row's failure (reported, the row skipped).
   */
  parse(state: S, row: ImportRecord): P | RowFailure;
  /** Writes a batch's parsed rows in the batch's transaction; rows it skips are reported as failures, never thrown. */
  writeBatch(tx: Tx, ctx: TenantContext, state: S, rows: P[], job: ImportJobRow): Promise<BatchOutcome>;
}

const isFailure = <P>(p: P | RowFailure): p is RowFailure =>
  typeof p === 'object' && p !== null && 'message' in p && 'line' in p;

export interface ImportJobData {
  orgId: number;
  importId: number;
}

/** Rows per batch: one transaction each (PGlite's one connection serves reads between batches). */
export const importBatchSize = (db: Database) => (db.kind === 'pglite' ? 1000 : 2000);
/** A run's working time before it hands over to a continuation job. */
const SLICE_MS = 60_000;
/** Failures kept per job (with line and reason); beyond, only counted. */
export const MAX_FAILURES_KEPT = 10_000;

export const importsDir = (config: Pick<Config, 'CRM_DATA_DIR'>) => join(config.CRM_DATA_DIR, 'imports');
/** `<CRM_DATA_DIR>/imports/<organization id>/<documentId>.csv`: built from ids only. */
export const importFilePath = (config: Pick<Config, 'CRM_DATA_DIR'>, orgId: number, documentId: string) =>
  join(importsDir(config), String(orgId), `${documentId}.csv`);

/** The queue definition of a kind: short runs (SLICE_MS), retried soon after a process died. */
export const importQueue = (name: string): QueueDef => ({
  name,
  retryLimit: 20,
  retryDelay: 5,
  retryBackoff: false,
  expireInSeconds: 300,
});

class Superseded extends Error {}

export interface RunDeps {
  db: Database;
  config: Pick<Config, 'CRM_DATA_DIR'>;
  jobs: Pick<Jobs, 'send'>;
}

export interface RunOptions {
  /** Test hook: called after each committed batch; a throw stops the run there (a simulated kill). */
  afterBatch?: (job: { rowsDone: number }) => void | Promise<void>;
  /** Rows per batch (default importBatchSize). */
  batchSize?: number;
  /** Working time before a continuation job is queued (default SLICE_MS). */
  sliceMs?: number;
}

/** The member who started the import, as a request context: the rows pass the same checks as their API calls. */
async function creatorContext(
  db: Database,
  orgId: number,
  membershipId: number,
): Promise<TenantContext | null> {
  const rows = await queryRows<{
    user_id: number;
    document_id: string;
    role: string;
    slug: string;
    plan: string;
  }>(
    db.system,
    sql`select m.user_id, m.document_id, m.role, o.slug, o.plan from memberships m
        join organizations o on o.id = m.organization_id
        where m.organization_id = ${orgId} and m.id = ${membershipId}`,
  );
  const m = rows[0];
  if (!m) return null;
  return {
    orgId,
    orgSlug: m.slug,
    plan: m.plan as Plan,
    userId: Number(m.user_id),
    membershipId,
    membershipDocumentId: m.document_id,
    role: m.role as Role,
    scopes: null,
    idempotency: null,
    dryRun: false,
    transaction: (fn) => db.tenantTransaction(orgId, fn),
  };
}

const finished = (status: string) => status === 'done' || status === 'failed' || status === 'cancelled';

async function lockJob(tx: Tx, orgId: number, importId: number) {
  const [job] = await tx
    .select()
    .from(importJobs)
    .where(and(eq(importJobs.organizationId, orgId), eq(importJobs.id, importId)))
    .for('update');
  return job as ImportJobRow | undefined;
}

async function finish(
  db: Database,
  config: RunDeps['config'],
  job: ImportJobRow,
  status: 'done' | 'failed',
  error: string | null,
) {
  await db.tenantTransaction(job.organizationId, async (tx) => {
    const now = await lockJob(tx, job.organizationId, job.id);
    if (!now || finished(now.status)) return;
    await tx
      .update(importJobs)
      .set({
        status,
        error,
        finishedAt: new Date(),
        updatedAt: new Date(),
        ...(status === 'done' ? { rowsTotal: now.rowsDone } : {}),
      })
      .where(and(eq(importJobs.organizationId, job.organizationId), eq(importJobs.id, job.id)));
  });
  await unlink(importFilePath(config, job.organizationId, job.documentId)).catch(() => {});
}

/** The job, marked running unless it already is; null when it is gone or already finished. */
async function markRunning(db: Database, orgId: number, importId: number) {
  return db.tenantTransaction(orgId, async (tx) => {
    const row = await lockJob(tx, orgId, importId);
    if (!row || finished(row.status)) return null;
    if (row.status === 'running') return row;
    const [updated] = await tx
      .update(importJobs)
      .set({ status: 'running', startedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(importJobs.organizationId, orgId), eq(importJobs.id, importId)))
      .returning();
    return updated as ImportJobRow;
  });
}

/**
 * The first run's checkpoint past the header, with the delimiter it used (kept for the resumed runs); null when
 * another run stored it first (this one is superseded).
 */
async function checkpointPastHeader(
  db: Database,
  orgId: number,
  importId: number,
  first: { byteOffset: number; line: number; delimiter: string },
): Promise<ImportJobRow | null> {
  return db
    .tenantTransaction(orgId, async (tx) => {
      const [row] = await tx
        .update(importJobs)
        .set({ ...first, updatedAt: new Date() })
        .where(
          and(
            eq(importJobs.organizationId, orgId),
            eq(importJobs.id, importId),
            eq(importJobs.byteOffset, 0),
          ),
        )
        .returning();
      if (!row) throw new Superseded();
      return row as ImportJobRow;
    })
    .catch((err) => {
      if (err instanceof Superseded) return null;
      throw err;
    });
}

/** The delimiter of the header line: the one of `; tab ,` that splits it the most (as the synchronous import). */
async function detectDelimiter(path: string, chosen: string | undefined): Promise<string> {
  if (chosen === 'tab') return '\t';
  if (chosen && chosen !== 'auto') return chosen;
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const head = buf.subarray(0, bytesRead).toString('utf8').split(/\r?\n/, 1)[0];
    return [';', '\t', ','].reduce(
      (best, d) => (head.split(d).length > head.split(best).length ? d : best),
      ',',
    );
  } finally {
    await fh.close();
  }
}

function parser(path: string, start: number, delimiter: string) {
  const input = createReadStream(path, { start, highWaterMark: 64 * 1024 });
  const p = parse({
    delimiter,
    bom: start === 0,
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
  });
  input.on('error', (err) => p.destroy(err));
  return {
    input,
    records: input.pipe(p) as AsyncIterable<{ record: string[]; info: { bytes: number; lines: number } }>,
  };
}

/** The header record and where it ends. */
async function readHeader(path: string, delimiter: string) {
  const { input, records } = parser(path, 0, delimiter);
  try {
    for await (const { record, info } of records)
      return { header: record, bytes: info.bytes, lines: info.lines };
    return null;
  } finally {
    input.destroy();
  }
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * What a run needs before its batches: the creator's context, the file's delimiter and header, the kind's state.
 * Null when the import cannot go on (its creator left, its file is gone, malformed or empty, the kind refuses its
 * header or options): the job is then finished as failed.
 */
async function openRun<S, P>(deps: RunDeps, kind: ImportKind<S, P>, orgId: number, job: ImportJobRow) {
  const { db, config } = deps;
  const path = importFilePath(config, orgId, job.documentId);
  const ctx = await creatorContext(db, orgId, job.createdByMembershipId);
  if (!ctx) {
    await finish(db, config, job, 'failed', 'the member who started the import is no longer a member');
    return null;
  }
  let delimiter: string;
  let head: Awaited<ReturnType<typeof readHeader>>;
  try {
    delimiter = job.delimiter ?? (await detectDelimiter(path, job.options.delimiter as string | undefined));
    head = await readHeader(path, delimiter);
  } catch (err) {
    const gone = (err as { code?: string }).code === 'ENOENT';
    await finish(
      db,
      config,
      job,
      'failed',
      gone ? 'the uploaded file is gone' : `Malformed CSV: ${message(err)}`,
    );
    return null;
  }
  if (!head) {
    await finish(db, config, job, 'failed', 'The CSV is empty: expected a header row');
    return null;
  }
  let state: S;
  try {
    state = await db.tenantTransaction(orgId, (tx) => kind.prepare(tx, ctx, job, head.header));
  } catch (err) {
    if (!isClientError(err)) throw err;
    await finish(db, config, job, 'failed', describe(err));
    return null;
  }
  return { ctx, path, delimiter, head, state };
}

/**
 * One run of an import job (the queue's handler): resumes from the checkpoint and goes on until the file ends
 * (done), the slice ends (a continuation is queued), the job is cancelled or superseded, or a whole-import
 * error (failed). Errors of the database itself are thrown: the job is retried and resumes.
 */
export async function runImportJob<S, P>(
  deps: RunDeps,
  kind: ImportKind<S, P>,
  data: ImportJobData,
  opts: RunOptions = {},
): Promise<'done' | 'failed' | 'continued' | 'stopped'> {
  const { db, config } = deps;
  const { orgId, importId } = data;
  const began = Date.now();
  let job = await markRunning(db, orgId, importId);
  if (!job) return 'stopped';
  const opened = await openRun(deps, kind, orgId, job);
  if (!opened) return 'failed';
  const { ctx, path, delimiter, head, state } = opened;
  if (job.byteOffset === 0) {
    const past = await checkpointPastHeader(db, orgId, importId, {
      byteOffset: head.bytes,
      line: head.lines,
      delimiter,
    });
    if (!past) return 'stopped';
    job = past;
  }
  const size = opts.batchSize ?? importBatchSize(db);
  const sliceMs = opts.sliceMs ?? SLICE_MS;
  const start = job.byteOffset;
  const baseLine = job.line;
  let checkpoint = { byteOffset: job.byteOffset, line: job.line, rowsDone: job.rowsDone };
  type Point = typeof checkpoint;
  /** The batch being read: its rows parsed as they arrive, the failures of parsing, where it ends. */
  let batch = { rows: [] as P[], failures: [] as RowFailure[], size: 0, end: checkpoint };

  /** Writes a batch and moves the checkpoint to its end, in one transaction; false when no longer ours. */
  const commit = async (done: typeof batch) => {
    if (done.size === 0) return true;
    const expected = checkpoint;
    const next: Point = done.end;
    try {
      await db.tenantTransaction(orgId, async (tx) => {
        const now = await lockJob(tx, orgId, importId);
        if (now?.status !== 'running' || now.byteOffset !== expected.byteOffset) throw new Superseded();
        const outcome = done.rows.length
          ? await kind.writeBatch(tx, ctx, state, done.rows, now)
          : { created: 0, updated: 0, failures: [] };
        const failures = [...done.failures, ...outcome.failures].sort((x, y) => x.row - y.row);
        const room = Math.max(0, MAX_FAILURES_KEPT - now.rowsFailed);
        const kept = failures.slice(0, room);
        if (kept.length)
          await tx.insert(importJobFailures).values(
            kept.map((f, i) => ({
              organizationId: orgId,
              importJobId: importId,
              row: f.row,
              line: f.line,
              field: f.field,
              message: f.message.slice(0, 1000),
              seq: i,
            })),
          );
        await tx
          .update(importJobs)
          .set({
            byteOffset: next.byteOffset,
            line: next.line,
            rowsDone: next.rowsDone,
            rowsCreated: sql`${importJobs.rowsCreated} + ${outcome.created}`,
            rowsUpdated: sql`${importJobs.rowsUpdated} + ${outcome.updated}`,
            rowsFailed: sql`${importJobs.rowsFailed} + ${failures.length}`,
            updatedAt: new Date(),
          })
          .where(and(eq(importJobs.organizationId, orgId), eq(importJobs.id, importId)));
      });
    } catch (err) {
      if (err instanceof Superseded) return false;
      throw err;
    }
    checkpoint = next;
    await opts.afterBatch?.({ rowsDone: next.rowsDone });
    return true;
  };

  /** The batch being written while the next is read (at most one). */
  let writing: Promise<boolean> | null = null;
  const settle = async () => {
    const w = writing;
    writing = null;
    // A failed write is awaited here (and rethrown); one that started and was never awaited would go unhandled.
    return w ? await w : true;
  };

  const { input, records } = parser(path, start, delimiter);
  try {
    try {
      for await (const { record, info } of records) {
        const row = batch.end.rowsDone + 1;
        const parsed = kind.parse(state, { record, row, line: baseLine + info.lines });
        if (isFailure(parsed)) batch.failures.push(parsed);
        else batch.rows.push(parsed);
        batch.size++;
        batch.end = { byteOffset: start + info.bytes, line: baseLine + info.lines, rowsDone: row };
        if (batch.size < size) continue;
        // The previous batch committed (and the job is still ours) before this one is written.
        if (!(await settle())) return 'stopped';
        if (Date.now() - began >= sliceMs) {
          await deps.jobs.send(kind.queue, data);
          return 'continued';
        }
        writing = commit(batch);
        // Handled at settle(); until then a rejection must not count as unhandled.
        writing.catch(() => {});
        batch = { rows: [], failures: [], size: 0, end: batch.end };
      }
    } catch (err) {
      // csv-parse's own errors (an unclosed quote…) end the import; the rows before stay written.
      if (!(err as { code?: string }).code?.startsWith('CSV_')) {
        await settle().catch(() => {});
        throw err;
      }
      if (!(await settle()) || !(await commit(batch))) return 'stopped';
      await finish(db, config, job, 'failed', `Malformed CSV after line ${checkpoint.line}: ${message(err)}`);
      return 'failed';
    }
    if (!(await settle()) || !(await commit(batch))) return 'stopped';
  } finally {
    await settle().catch(() => {});
    input.destroy();
  }
  await finish(db, config, job, 'done', null);
  return 'done';
}

function isClientError(err: unknown) {
  const status =
    (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** An AppError as one line: its message and its field errors. */
function describe(err: unknown) {
  const errors = (err as { details?: { errors?: { path: (string | number)[]; message: string }[] } }).details
    ?.errors;
  const fields = errors?.map((e) => `${e.path.join('.')}: ${e.message}`).join('; ');
  return fields ? `${message(err)} (${fields})` : message(err);
}
