import { type SQL, sql } from 'drizzle-orm';
import PgBoss from 'pg-boss';
import type { Config } from '../../config.js';
import { type Database, preparedRows, type Tx } from '../db/client.js';

/**
 * Background jobs on pg-boss, over the service's own database connection on both backends:
 * PGlite (one connection, through an adapter) and PostgreSQL (the service's pool). Areas see only
 * this small interface: they define queues, enqueue (optionally inside their own transaction, so a
 * job exists exactly when the row that needs it does) and register handlers.
 */

/** How often each worker process re-queues the periodic jobs (a no-op while one is waiting). */
const PERIODIC_KEEPER_MS = 10_000;
export interface QueueDef {
  name: string;
  /** Attempts after the first failure (default 5). */
  retryLimit?: number;
  /** Seconds before the first retry; doubles each time with backoff (default 30). */
  retryDelay?: number;
  retryBackoff?: boolean;
  /** A job still active after this long (its worker died) is failed and retried (default CRM_JOBS_EXPIRE_SECONDS). */
  expireInSeconds?: number;
  /** pg-boss queue policy; `short`: at most one job waiting (created) at a time (periodic jobs). */
  policy?: 'standard' | 'short' | 'singleton' | 'stately';
  /** Workers of this queue per process (default 1): handlers that mostly wait on a provider run side by side. */
  concurrency?: number;
  /**
   * Jobs a worker takes per fetch (default 1). Above 1 each job of the batch fails (and is retried) on its own —
   * run side by side by `work`, handed over together to a `workBatch` handler — and a full batch fetches again at
   * once instead of waiting for the next poll.
   */
  batchSize?: number;
}

export interface SendOptions {
  /** Do not run before this instant. */
  startAfter?: Date;
  /** Enqueue inside this transaction: the job is committed or rolled back with it. */
  tx?: Tx;
  /** At most one queued job with this key per queue. */
  singletonKey?: string;
}

export interface JobInfo {
  id: string;
  name: string;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  retryCount: number;
  data: unknown;
  output: unknown;
  startAfter: Date;
}

export interface JobMeta {
  id: string;
  retryCount: number;
  retryLimit: number;
}

export type JobHandler<T> = (data: T, job: JobMeta) => Promise<void>;

/**
 * A fetched batch at once (queues with a batchSize): the outcome of each job in the batch's order, undefined when
 * done, else the error that fails it (retried with the queue's backoff, then failed). A throw fails them all.
 */
export type BatchHandler<T> = (batch: BatchJob<T>[]) => Promise<(Error | undefined)[]>;

export type BatchJob<T> = JobMeta & { data: T };

export interface Jobs {
  send<T extends object>(queue: QueueDef, data: T, opts?: SendOptions): Promise<string>;
  /** Jobs of one queue in one statement (no ids answered): a webhook's several leads. */
  sendMany<T extends object>(queue: QueueDef, data: T[], opts?: Pick<SendOptions, 'tx'>): Promise<void>;
  /** Same as send with startAfter: the job waits until `at`. */
  schedule<T extends object>(
    queue: QueueDef,
    data: T,
    at: Date,
    opts?: Omit<SendOptions, 'startAfter'>,
  ): Promise<string>;
  cancel(queue: QueueDef, id: string, opts?: { tx?: Tx }): Promise<void>;
  /**
   * Registers the queue and its handler (before start: start creates the queues). The handler runs in
   * processes started with workers: true.
   */
  work<T>(queue: QueueDef, handler: JobHandler<T>): Promise<void>;
  /** As work, the handler taking each fetched batch whole (work that costs less done for several jobs together). */
  workBatch<T>(queue: QueueDef, handler: BatchHandler<T>): Promise<void>;
  getJob(queue: QueueDef, id: string): Promise<JobInfo | null>;
  /** Wakes this process's workers of the queue now (after enqueueing work someone waits for); no-op without any. */
  nudge(queue: QueueDef): void;
  /**
   * A periodic job (before start): `handler` runs about every `everySeconds` in one worker process of the
   * cluster at a time. The queue holds one waiting occurrence (policy `short`): each run queues the next, and
   * every worker process queues one on start and every PERIODIC_KEEPER_MS (a duplicate is dropped), so a chain
   * lost with a killed process restarts within seconds.
   */
  every(queue: QueueDef, everySeconds: number, handler: () => Promise<void>): Promise<void>;
  /** Installs pg-boss's schema (idempotent); with workers: true also supervises and runs handlers. */
  start(opts: { workers: boolean }): Promise<void>;
  stop(opts?: { graceful?: boolean }): Promise<void>;
  /** Runs `fn` when the queue stops (before pg-boss does): for what a handler opened, e.g. a LISTEN connection. */
  onStop(fn: () => Promise<void>): void;
}

type Executor = { executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }> };

/** pg-boss's SQL on PGlite: parameterless (possibly multi-statement) SQL through exec, the rest through query. */
export function pgliteExecutor(database: Database): Executor {
  const pglite = database.pglite!;
  return {
    async executeSql(text, values) {
      if (values && values.length > 0) {
        const res = await pglite.query<any>(text, values);
        return { rows: res.rows };
      }
      try {
        const results = await pglite.exec(text);
        const withRows = [...results].reverse().find((r) => r.fields.length > 0);
        return { rows: withRows?.rows ?? [] };
      } catch (err) {
        // A failed BEGIN…COMMIT script would leave the single shared connection in an aborted transaction.
        if (/^\s*BEGIN/i.test(text)) await pglite.exec('ROLLBACK').catch(() => {});
        throw err;
      }
    },
  };
}

function poolExecutor(database: Database): Executor {
  const pool = database.pool!;
  return { executeSql: async (text, values) => pool.query(text, values as any[]) };
}

/** pg-boss's SQL texts split at their `$n` references: a few constant statements, split once each. */
const splitTexts = new Map<string, { parts: string[]; refs: number[] }>();

/**
 * Runs pg-boss's `$n` SQL on a drizzle transaction (either driver): enqueue atomically with a write. Prepared
 * under a name derived from the text, as the service's hot statements are (preparedRows): a webhook that enqueues
 * a job per call has PostgreSQL parse and plan pg-boss's insert once per connection, not once per call.
 */
export function txExecutor(tx: Tx): Executor {
  return {
    async executeSql(text, values = []) {
      let split = splitTexts.get(text);
      if (!split) {
        split = { parts: [], refs: [] };
        let last = 0;
        for (const m of text.matchAll(/\$(\d+)/g)) {
          split.parts.push(text.slice(last, m.index));
          split.refs.push(Number(m[1]));
          last = m.index! + m[0].length;
        }
        split.parts.push(text.slice(last));
        splitTexts.set(text, split);
      }
      const chunks: SQL[] = [sql.raw(split.parts[0])];
      split.refs.forEach((ref, i) => {
        chunks.push(sql`${sql.param(values[ref - 1])}`, sql.raw(split.parts[i + 1]));
      });
      return { rows: await preparedRows<any>(tx, sql.join(chunks)) };
    },
  };
}

/** A queue's name in pg-boss under a namespace (CRM_JOBS_NAMESPACE): for tests and reports reading pgboss.job. */
export function queueNameIn(namespace: string, name: string): string {
  return namespace ? `${namespace}__${name}` : name;
}

const queueDefaults = { retryLimit: 5, retryDelay: 30, retryBackoff: true };

export function createJobs(database: Database, config: Config): Jobs {
  const db = database.kind === 'pglite' ? pgliteExecutor(database) : poolExecutor(database);
  const ns = config.CRM_JOBS_NAMESPACE;
  /** The queue under this process's namespace: every pg-boss call below uses the namespaced name. */
  const named = <Q extends { name: string }>(queue: Q): Q =>
    ns ? { ...queue, name: `${ns}__${queue.name}` } : queue;
  let boss: PgBoss | undefined;
  let workersOn = false;
  const handlers = new Map<string, { queue: QueueDef; handler: BatchHandler<any> }>();
  const periodic: QueueDef[] = [];
  let keeper: NodeJS.Timeout | undefined;
  const queues = new Map<string, Promise<void>>();
  const stopHooks: (() => Promise<void>)[] = [];

  const started = () => {
    if (!boss) throw new Error('The job queue is not started');
    return boss;
  };

  const ensureQueue = (queue: QueueDef) => {
    let ready = queues.get(queue.name);
    if (!ready) {
      ready = (async () => {
        const b = started();
        // The definition in code is the truth: an existing queue takes the current retry policy.
        const options = { expireInSeconds: config.CRM_JOBS_EXPIRE_SECONDS, ...queueDefaults, ...queue };
        // Processes starting together create the same queues: pg-boss's DDL can then deadlock (40P01) or
        // collide; the loser retries and finds the queue made.
        for (let attempt = 1; ; attempt++) {
          try {
            if (await b.getQueue(queue.name)) await b.updateQueue(queue.name, options);
            else await b.createQueue(queue.name, options);
            return;
          } catch (err) {
            if (attempt >= 10 || !isConcurrencyError(err)) throw err;
            await new Promise((r) => setTimeout(r, 50 * attempt + Math.random() * 100));
          }
        }
      })();
      ready.catch(() => queues.delete(queue.name));
      queues.set(queue.name, ready);
    }
    return ready;
  };

  const workerIds = new Map<string, string[]>();
  const runWorker = async (queue: QueueDef, handler: BatchHandler<any>) => {
    await ensureQueue(queue);
    const batchSize = Math.max(1, queue.batchSize ?? 1);
    for (let i = 0; i < Math.max(1, queue.concurrency ?? 1); i++) {
      const b = started();
      let workerId = '';
      workerId = await b.work(
        queue.name,
        { pollingIntervalSeconds: config.CRM_JOBS_POLL_SECONDS, batchSize, includeMetadata: true },
        async (batch) => {
          const outcomes = await handler(
            batch.map((job) => ({
              id: job.id,
              retryCount: job.retryCount,
              retryLimit: job.retryLimit,
              data: job.data,
            })),
          );
          // A lone job's error fails it through pg-boss (with the error as its output). In a batch, pg-boss
          // completes the jobs still active afterwards: the ones failed here keep their retry.
          if (batch.length === 1 && outcomes[0]) throw outcomes[0];
          await Promise.all(
            batch.map((job, i) => {
              const err = outcomes[i];
              return err ? b.fail(queue.name, job.id, { message: err.message ?? String(err) }) : undefined;
            }),
          );
          if (batch.length === batchSize && batchSize > 1) b.notifyWorker(workerId);
        },
      );
      workerIds.set(queue.name, [...(workerIds.get(queue.name) ?? []), workerId]);
    }
  };

  /** Queues the next occurrence of a periodic job; none when one is already waiting (policy short). */
  const queueNext = async (queue: QueueDef, startAfter?: Date) => {
    await ensureQueue(queue);
    await started().send(queue.name, {}, { startAfter } as PgBoss.SendOptions);
  };

  const jobs: Jobs = {
    async send(q, data, opts = {}) {
      const queue = named(q);
      // Inside a transaction the queue must exist already: on PGlite the one connection is busy with it.
      if (opts.tx && !queues.has(queue.name))
        throw new Error(`Queue ${queue.name} is not registered (jobs.work) before the queue started`);
      await ensureQueue(queue);
      const id = await started().send(queue.name, data, {
        startAfter: opts.startAfter,
        singletonKey: opts.singletonKey,
        db: opts.tx ? txExecutor(opts.tx) : undefined,
      } as PgBoss.SendOptions);
      if (!id) throw new Error(`Job not enqueued on ${queue.name} (singleton already queued)`);
      return id;
    },
    async sendMany(q, data, opts = {}) {
      const queue = named(q);
      if (data.length === 0) return;
      if (opts.tx && !queues.has(queue.name))
        throw new Error(`Queue ${queue.name} is not registered (jobs.work) before the queue started`);
      await ensureQueue(queue);
      // The queue's own retry and expiry settings apply (pg-boss reads them from its queue row).
      await started().insert(
        data.map((d) => ({ name: queue.name, data: d })),
        { db: opts.tx ? txExecutor(opts.tx) : undefined } as never,
      );
    },
    schedule: (queue, data, at, opts = {}) => jobs.send(queue, data, { ...opts, startAfter: at }),
    async cancel(q, id, opts = {}) {
      const queue = named(q);
      await started().cancel(queue.name, id, { db: opts.tx ? txExecutor(opts.tx) : undefined } as any);
    },
    work: <T>(queue: QueueDef, handler: JobHandler<T>) =>
      jobs.workBatch<T>(queue, (batch) =>
        Promise.all(
          batch.map(({ data, ...meta }) =>
            handler(data, meta).then(
              () => undefined,
              (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
            ),
          ),
        ),
      ),
    async workBatch(q, handler) {
      const queue = named(q);
      handlers.set(queue.name, { queue, handler });
      if (workersOn) await runWorker(queue, handler);
    },
    async every(queue, everySeconds, handler) {
      // The next occurrence is the retry of a failed one.
      const def: QueueDef = named({ retryLimit: 0, ...queue, policy: 'short' });
      periodic.push(def);
      // work() names it again: hand it the plain name.
      await jobs.work({ ...def, name: queue.name }, async () => {
        try {
          await handler();
        } finally {
          await queueNext(def, new Date(Date.now() + everySeconds * 1000));
        }
      });
      if (workersOn) await queueNext(def);
    },
    nudge(queue) {
      for (const id of workerIds.get(named(queue).name) ?? []) boss?.notifyWorker(id);
    },
    async getJob(queue, id) {
      const job = await started().getJobById(named(queue).name, id, { includeArchive: true });
      return job ? (job as unknown as JobInfo) : null;
    },
    async start({ workers }) {
      if (boss) return;
      const b = new PgBoss({
        db,
        schema: 'pgboss',
        migrate: true,
        supervise: workers,
        schedule: false,
        maintenanceIntervalSeconds: config.CRM_JOBS_MAINTENANCE_SECONDS,
      });
      b.on('error', (err) => console.error(`jobs: ${err.message}`));
      await b.start();
      boss = b;
      // Concurrent GRANTs from several processes can collide ("tuple concurrently updated"): retry once.
      await grantEnqueue(db).catch(() => grantEnqueue(db));
      for (const { queue } of handlers.values()) await ensureQueue(queue);
      workersOn = workers;
      if (workers) {
        for (const { queue, handler } of handlers.values()) await runWorker(queue, handler);
        for (const queue of periodic) await queueNext(queue);
        // A worker killed during a periodic run takes the run's `queueNext` with it: the chain would stop until a
        // process starts. Every worker re-queues each periodic job now and then (a waiting one makes it a no-op).
        keeper = setInterval(() => {
          for (const queue of periodic)
            queueNext(queue).catch((err) => console.error(`jobs: ${queue.name}: ${(err as Error).message}`));
        }, PERIODIC_KEEPER_MS);
        keeper.unref();
      }
    },
    onStop(fn) {
      stopHooks.push(fn);
    },
    async stop({ graceful = true } = {}) {
      clearInterval(keeper);
      for (const fn of stopHooks.splice(0)) await fn().catch(() => {});
      const b = boss;
      if (!b) return;
      boss = undefined;
      workersOn = false;
      queues.clear();
      workerIds.clear();
      await b.stop({ graceful, wait: true, close: false, timeout: 10_000 });
      // A handler still running when the hooks above ran may have registered one (the events listener a periodic
      // run starts): it would otherwise hold its connection past the stop.
      for (const fn of stopHooks.splice(0)) await fn().catch(() => {});
    },
  };
  return jobs;
}

/**
 * Tenant transactions run as crm_app: let it enqueue and cancel (never delete or read other rows'
 * payloads through the API; jobs carry ids, not tenant data), so jobs are written atomically with rows.
 */
function isConcurrencyError(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  // deadlock, serialization failure, unique violation (queue created meanwhile), "tuple concurrently updated"
  return code === '40P01' || code === '40001' || code === '23505' || code === 'XX000';
}

async function grantEnqueue(db: Executor) {
  await db.executeSql(`
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'crm_app') THEN
        GRANT USAGE ON SCHEMA pgboss TO crm_app;
        GRANT SELECT ON pgboss.queue TO crm_app;
        GRANT SELECT, INSERT, UPDATE ON pgboss.job TO crm_app;
      END IF;
    END $$;`);
}
