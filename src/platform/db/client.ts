import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres/session';
import type { PgDatabase, PgDialect, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { type FirstQueryBegin, firstQueryBegin } from './first-query-begin.js';
import { REPLICA_CONNECT_TIMEOUT_MS, ReplicaReads } from './replica.js';

export type Db = PgDatabase<PgQueryResultHKT>;
export type Tx = PgTransaction<PgQueryResultHKT, Record<string, never>, any>;
export type Executor = Db | Tx;

export interface Database {
  kind: 'pglite' | 'postgres';
  /** Drizzle on the connection's own role: only for platform queries that span tenants. */
  system: Db;
  /**
   * One transaction as the non-superuser `crm_app` with `app.organization_id` set: RLS applies. `commitEarly`:
   * nothing runs in the transaction after `fn`, so `fn` may send the commit with its last statement
   * (commitWithNext); off by default (a dry run rolls back after fn, an idempotent request records its key).
   */
  tenantTransaction<T>(
    orgId: number,
    fn: (tx: Tx) => Promise<T>,
    opts?: TenantTransactionOptions,
  ): Promise<T>;
  /**
   * Told each tenant transaction's duration and whether it committed (the process's metrics,
   * src/platform/metrics): while the set is empty nothing is timed.
   */
  transactionObservers: Set<TransactionObserver>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
  /** The PGlite instance, when embedded (pg-boss adapter, tests). */
  pglite?: PGlite;
  pool?: pg.Pool;
  /**
   * PostgreSQL connections that need a session of their own, held across transactions: LISTEN (inbox live
   * updates, the events wake-up) and session advisory locks (migration, maintenance). DATABASE_DIRECT_URL's
   * small pool when set (DATABASE_URL then reaches the server through a transaction pooler, which hands each
   * transaction any server connection); else `pool` itself.
   */
  sessionPool?: pg.Pool;
  /**
   * CRM_JOBS_NAMESPACE of this process (PostgreSQL): sent as the session setting `crm.jobs_namespace`, so the
   * events wake-up a commit sends names it and processes of another namespace on the same database (the test
   * suite's workers) are not woken by it.
   */
  namespace?: string;
  /**
   * DATABASE_REPLICA_URL's pool: a streaming hot standby of the primary, for reads that may lag only (never a
   * write: its transactions are `read only`). With `replicaReads`, which says when a read may go there.
   */
  replica?: pg.Pool;
  /** Routing of the reads that may lag between `replica` and the primary (db/replica.ts); with `replica` only. */
  replicaReads?: ReplicaReads;
}

export interface TenantTransactionOptions {
  commitEarly?: boolean;
}

export type TransactionObserver = (seconds: number, committed: boolean) => void;
type TenantTransaction = Database['tenantTransaction'];

/**
 * tenantTransaction timed for its observers. The hot path: with none, the call goes straight through; with some,
 * two clock reads and a callback each, on the same promise (no extra async frame).
 */
function observed(run: TenantTransaction, observers: Set<TransactionObserver>): TenantTransaction {
  return (orgId, fn, opts) => {
    if (observers.size === 0) return run(orgId, fn, opts);
    const start = performance.now();
    const report = (committed: boolean) => {
      const seconds = (performance.now() - start) / 1000;
      for (const observe of observers) observe(seconds, committed);
    };
    return run(orgId, fn, opts).then(
      (result) => {
        report(true);
        return result;
      },
      (error: unknown) => {
        report(false);
        throw error;
      },
    );
  };
}

// bigint and numeric come back as numbers: ids fit in 2^53 and money is numeric(14,2).
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface OpenOptions {
  databaseUrl?: string;
  /** PGlite data dir, or `memory://`. */
  dataDir: string;
  poolSize?: number;
  /** CRM_JOBS_NAMESPACE (default: the environment's). */
  namespace?: string;
  /** DATABASE_DIRECT_URL: the server itself, for the connections that need a session (Database.sessionPool). */
  directUrl?: string;
  /**
   * DATABASE_PREPARED_STATEMENTS (default true): false behind a transaction pooler (PgBouncer before 1.21, or
   * without max_prepared_statements), which does not keep a connection's named statements from one transaction
   * to the next: every statement is then sent unnamed.
   */
  preparedStatements?: boolean;
  /** DATABASE_REPLICA_URL: a streaming hot standby for the reads that may lag (Database.replica). */
  replicaUrl?: string;
  /** CRM_REPLICA_MAX_LAG_MS: past this lag the standby is not read (default 1000). */
  replicaMaxLagMs?: number;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const namespace = opts.namespace ?? process.env.CRM_JOBS_NAMESPACE ?? '';
  if (!/^[A-Za-z0-9_]*$/.test(namespace))
    throw new Error('CRM_JOBS_NAMESPACE: letters, digits and underscores only');
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10, namespace, opts)
    : openPglite(opts.dataDir);
}

function tenantTransactionOn(db: Db) {
  return <T>(orgId: number, fn: (tx: Tx) => Promise<T>) =>
    db.transaction(async (tx) => {
      await preparedRows(
        tx,
        sql`select set_config('role', 'crm_app', true), set_config('app.organization_id', ${String(orgId)}, true)`,
      );
      return fn(tx as Tx);
    });
}

/**
 * tenantTransactionOn for PostgreSQL in two round trips fewer: `begin` and the two settings go as one
 * simple-query message (the organization id is a safe integer, written as a literal), instead of drizzle's
 * `begin` and then the settings, and that message leaves in the same socket write as the transaction's first
 * statement (first-query-begin.ts). Every tenant request runs one of these; a round trip saved is the database's
 * work per message and the request's latency more than the service's CPU. The transaction object is drizzle's
 * own, built the way its `transaction()` builds it (drizzle-orm/node-postgres/session.js, 0.45): savepoints,
 * `tx.rollback()` and the rollback on error behave the same; tests of every module run through it. A `fn` that
 * runs no statement opens no transaction (nothing to commit or roll back).
 */
function pgTenantTransaction(db: Db, pool: pg.Pool, readOnly = false) {
  const internals = db as unknown as {
    dialect: PgDialect;
    session: { schema: unknown; options: unknown };
  };
  return async <T>(
    orgId: number,
    fn: (tx: Tx) => Promise<T>,
    opts?: TenantTransactionOptions,
  ): Promise<T> => {
    if (!Number.isSafeInteger(orgId)) throw new Error(`tenantTransaction: invalid organization id ${orgId}`);
    const client = await pool.connect();
    const opening = firstQueryBegin(
      client,
      `begin${readOnly ? ' read only' : ''}; select set_config('role', 'crm_app', true), set_config('app.organization_id', '${orgId}', true)`,
    );
    // Set when the connection cannot be trusted any more (its rollback failed): the pool discards it.
    let broken: Error | undefined;
    try {
      const session = new NodePgSession(
        opening.client,
        internals.dialect,
        internals.session.schema as never,
        internals.session.options as never,
      );
      const tx = new NodePgTransaction(internals.dialect, session, internals.session.schema as never);
      deferrers.set(tx, opening);
      if (opts?.commitEarly) earlyCommits.add(tx);
      try {
        const result = await fn(tx as unknown as Tx);
        // Settings or a deferred write that failed abort the transaction: the statements behind them failed too,
        // unless fn swallowed their errors, and `commit` then answers ROLLBACK without an error. Refuse it here
        // (the deferred writes still queued leave with the commit, so look after it too).
        if (opening.beginError) throw opening.beginError;
        await opening.end('commit');
        if (opening.deferredError) throw opening.deferredError;
        return result;
      } catch (error) {
        // Rolls back what was begun; after a commit already sent (commitWithNext), waits for its answer, so
        // nothing is in flight when the connection goes back to the pool.
        await opening.end('rollback')?.catch((err: Error) => {
          broken = err;
        });
        // The settings' or the deferred write's own error, rather than the "transaction is aborted" of the
        // statement behind them; fn's own error otherwise.
        throw opening.beginError ?? (abortedByEarlier(error) ? (opening.deferredError ?? error) : error);
      }
    } finally {
      opening.done();
      client.release(broken);
    }
  };
}

/** Whether a statement failed only because an earlier one had aborted the transaction (SQLSTATE 25P02). */
function abortedByEarlier(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } } | undefined;
  return e?.code === '25P02' || e?.cause?.code === '25P02';
}

/** The pipelined client of each PostgreSQL tenant transaction (the root one: a savepoint's is another object). */
const deferrers = new WeakMap<object, FirstQueryBegin>();
/** The tenant transactions whose owner runs nothing after fn (TenantTransactionOptions.commitEarly). */
const earlyCommits = new WeakSet<object>();

/**
 * Runs a write nobody reads the answer of (an outbox or audit row) as late as it can: on PostgreSQL, in a tenant
 * transaction, it leaves in the same socket write as the transaction's next statement or its commit (one round
 * trip fewer, first-query-begin.ts), and if it fails the transaction fails with its error. Elsewhere (PGlite, a
 * savepoint's transaction, the system connection) it runs at once. Either way it runs in order with the
 * transaction's other statements. `prepared`: for a text that never varies (prepared under its name).
 */
export async function deferStatement(ex: Executor, query: SQL, prepared = false): Promise<void> {
  const opening = deferrers.get(ex);
  if (!opening) {
    await ex.execute(query);
    return;
  }
  const { dialect } = ex as unknown as { dialect: { sqlToQuery(sql: SQL): Query } };
  const q = dialect.sqlToQuery(query);
  opening.defer({ ...(prepared ? { name: statementName(q.sql) } : {}), text: q.sql, values: q.params });
}

/**
 * For work that knows its last statement: on PostgreSQL, in a tenant transaction opened with `commitEarly`, the
 * commit leaves in the same socket write as the next statement (one round trip fewer; the transaction's helper
 * still awaits the commit before answering), and any statement after that one fails loudly. Call it right before
 * the call that runs the transaction's last statement; if that call runs none, the transaction commits as usual.
 * Elsewhere (PGlite, a savepoint's transaction, a transaction without `commitEarly`) a no-op.
 */
export function commitWithNext(ex: Executor): void {
  if (earlyCommits.has(ex)) deferrers.get(ex)?.commitWithNext();
}

async function openPostgres(
  url: string,
  poolSize: number,
  namespace: string,
  opts: Pick<OpenOptions, 'directUrl' | 'preparedStatements' | 'replicaUrl' | 'replicaMaxLagMs'>,
): Promise<Database> {
  const options = namespace ? { options: `-c crm.jobs_namespace=${namespace}` } : {};
  const pool = new pg.Pool({ connectionString: url, max: poolSize, ...options });
  // The one switch for every named statement (preparedRows, deferStatement, pg-boss's in a transaction): names
  // are dropped where node-pg sends them. Prepared statements on, the connections are left as they are.
  if (opts.preparedStatements === false) pool.on('connect', unnamedStatements);
  // LISTEN and two or three session locks at a time (Database.sessionPool).
  const sessionPool = opts.directUrl
    ? new pg.Pool({ connectionString: opts.directUrl, max: 4, ...options })
    : pool;
  // An idle connection the server ends (a restart, an administrator, a pooler) is dropped by the pool, which says so
  // on 'error': without a listener that event would end the process.
  // The standby: as many connections as the primary's pool, given up on quickly when it does not answer (the
  // read then goes to the primary: db/replica.ts).
  const replica = opts.replicaUrl
    ? new pg.Pool({
        connectionString: opts.replicaUrl,
        max: poolSize,
        connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS,
      })
    : undefined;
  if (replica && opts.preparedStatements === false) replica.on('connect', unnamedStatements);
  for (const p of new Set([pool, sessionPool, ...(replica ? [replica] : [])])) {
    p.on('error', (err) => console.error(`database: an idle connection was lost: ${err.message}`));
    // A connection lost while checked out (a PgBouncer or server restart mid-transaction) emits 'error' on its
    // client as well as failing the statement in flight; the pool listens only while it is idle, so without this
    // the event ended the process (every API process and a worker, at one PgBouncer restart: docs/scaling.md).
    // The caller gets the statement's error; the pool discards the dead client at its release.
    p.on('connect', (client) => client.on('error', () => {}));
  }
  const db = drizzleNodePg(pool) as unknown as Db;
  const transactionObservers = new Set<TransactionObserver>();
  return {
    kind: 'postgres',
    system: db,
    pool,
    sessionPool,
    namespace,
    tenantTransaction: observed(pgTenantTransaction(db, pool), transactionObservers),
    transactionObservers,
    ...(replica && {
      replica,
      // Read only on the standby, with the same role and organization setting: RLS holds there too.
      replicaReads: new ReplicaReads(
        pool,
        replica,
        opts.replicaMaxLagMs ?? 1000,
        pgTenantTransaction(db, replica, true),
      ),
    }),
    ping: () => ping(db),
    close: async () => {
      await pool.end();
      if (sessionPool !== pool) await sessionPool.end();
      await replica?.end();
    },
  };
}

/**
 * Makes a connection send every statement unnamed (DATABASE_PREPARED_STATEMENTS=false): node-pg then parses
 * it in the same round trip, as it does for any statement without a name. Behind a transaction pooler a named
 * one fails: node-pg prepares a name once per connection it knows, and the pooler hands the next transaction
 * another server connection, where it `does not exist` (or where another client's `already exists`).
 */
function unnamedStatements(client: pg.PoolClient) {
  const query = client.query;
  client.query = function (this: pg.PoolClient, config: unknown, ...rest: unknown[]) {
    // A query config object (drizzle's, ours), never a submittable (a Query or cursor built elsewhere).
    if (config && typeof config === 'object' && (config as { name?: string }).name && !('submit' in config)) {
      const { name: _, ...unnamed } = config as { name?: string };
      return (query as (...args: unknown[]) => unknown).call(this, unnamed, ...rest);
    }
    return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof client.query;
}

async function openPglite(dataDir: string): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  const release = inMemory ? () => {} : lockDataDir(dataDir);
  let client: PGlite;
  try {
    client = await PGlite.create(inMemory ? 'memory://' : dataDir, {
      parsers: { 20: (v: string) => Number(v), 1700: (v: string) => Number(v) },
      // Extensions migrate.ts creates (contact search index).
      extensions: { pg_trgm, btree_gin, unaccent },
    });
  } catch (err) {
    release();
    throw err;
  }
  const db = drizzlePglite(client) as unknown as Db;
  const transactionObservers = new Set<TransactionObserver>();
  return {
    kind: 'pglite',
    system: db,
    pglite: client,
    tenantTransaction: observed(tenantTransactionOn(db), transactionObservers),
    transactionObservers,
    ping: () => ping(db),
    close: async () => {
      await client.close();
      release();
    },
  };
}

async function ping(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}

/**
 * PGlite has no cross-process lock: two processes on one data dir corrupt it.
 * A lock file holding our pid refuses a second process; a stale one (dead pid) is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, '.crm.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        if (existsSync(lockPath) && readFileSync(lockPath, 'utf8') === String(process.pid))
          unlinkSync(lockPath);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lockPath, 'utf8'));
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new DatabaseLockedError(dataDir, pid);
      }
      unlinkSync(lockPath);
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}

export class DatabaseLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by another process (pid ${pid}, e.g. a running crm serve): ` +
        'the embedded database has one user at a time, so CLI admin verbs cannot run while the server does. ' +
        'Stop it first (or use the API), or set DATABASE_URL to share a PostgreSQL server between processes.',
    );
    this.name = 'DatabaseLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Raw rows of a statement whose text never varies with the data (lists as one `= any(array)` parameter, never
 * an `IN (…)` that grows), prepared once per connection on PostgreSQL under a name derived from its text: the
 * server then skips parsing and, after a few runs, planning. Same rows as queryRows; PGlite ignores the name.
 * For the statements every request runs (auth, tenant setup, board structure, counts, relations).
 */
export async function preparedRows<T>(ex: Executor, query: SQL): Promise<T[]> {
  const { session, dialect } = ex as unknown as {
    session: { prepareQuery(q: Query, fields: undefined, name: string, arrayMode: boolean): PreparedQuery };
    dialect: { sqlToQuery(sql: SQL): Query };
  };
  const q = dialect.sqlToQuery(query);
  const res = (await session.prepareQuery(q, undefined, statementName(q.sql), false).execute()) as {
    rows: T[];
  };
  return res.rows;
}

/**
 * The name a statement is prepared under on PostgreSQL: derived from its text (PGlite ignores names), hashed
 * once per text — the texts are the code's own few hundred statements, and a request runs several of them.
 */
const statementName = (text: string) => {
  let name = statementNames.get(text);
  if (name === undefined) {
    // A bound, in case a caller ever built texts from data: start over rather than grow without end.
    if (statementNames.size >= 2_000) statementNames.clear();
    name = `crm_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
    statementNames.set(text, name);
  }
  return name;
};
const statementNames = new Map<string, string>();

interface Query {
  sql: string;
  params: unknown[];
}
interface PreparedQuery {
  execute(): Promise<unknown>;
}

/** Raw rows of a SQL statement on either driver (both answer `{ rows }`). */
export async function queryRows<T>(ex: Executor, query: SQL): Promise<T[]> {
  const res = (await ex.execute(query)) as unknown as { rows: T[] };
  return res.rows;
}
