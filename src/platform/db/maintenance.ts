import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import type { Config } from '../../config.js';
import { pruneIdempotencyKeys } from '../idempotency/plugin.js';
import type { ModuleRegistration } from '../modules.js';
import { type Database, type Db, queryRows } from './client.js';
import { MIGRATION_LOCK } from './migrate.js';

/**
 * The service's own bookkeeping, every CRM_DB_MAINTENANCE_SECONDS in each worker process: the modules' maintenance
 * tasks, expired idempotency keys, and a VACUUM of the small churning tables when nothing else vacuums. What each
 * step does and why: docs/decisions.md "The service's own database maintenance".
 */

/** The platform's own tables step 3 vacuums (pg-boss's appear once the queue has started). */
export const PLATFORM_BOOKKEEPING_TABLES = ['idempotency_keys', 'pgboss.job', 'pgboss.archive'] as const;

/** The tables step 3 vacuums (those that exist): the modules' (ModuleRegistration.bookkeepingTables), then the platform's. */
export const bookkeepingTables = (modules: readonly ModuleRegistration[]): string[] => [
  ...modules.flatMap((m) => m.bookkeepingTables ?? []),
  ...PLATFORM_BOOKKEEPING_TABLES,
];

/** Session advisory lock: one maintenance run at a time across the processes sharing the database. */
export const MAINTENANCE_LOCK = 727_003;

export interface ServerSettings {
  /** `server_version_num`, e.g. 150020. */
  version: number;
  autovacuum: boolean;
  trackCounts: boolean;
  maxConnections: number;
  superuser: boolean;
  /** Bookkeeping tables this role may not VACUUM (not their owner). */
  notOwned: string[];
}

/** `tables`: the bookkeeping tables (bookkeepingTables), whose ownership is checked. */
export async function readServerSettings(
  database: Database,
  tables: readonly string[],
): Promise<ServerSettings> {
  const [row] = await queryRows<Omit<ServerSettings, 'notOwned'>>(
    database.system,
    sql`select current_setting('server_version_num')::int as "version",
               current_setting('autovacuum') = 'on' as "autovacuum",
               current_setting('track_counts') = 'on' as "trackCounts",
               current_setting('max_connections')::int as "maxConnections",
               (select rolsuper from pg_roles where rolname = current_user) as "superuser"`,
  );
  const notOwned = await queryRows<{ name: string }>(
    database.system,
    sql`select t.name from unnest(${sql.raw(`array['${tables.join("','")}']`)}) as t(name)
        join pg_class c on c.oid = to_regclass(t.name)
        where not pg_has_role(current_user, c.relowner, 'USAGE')`,
  );
  return { ...row, notOwned: notOwned.map((r) => r.name) };
}

/**
 * Whether step 3 runs. PGlite reports autovacuum on but runs no autovacuum daemon (one single-user backend).
 */
export function selfVacuum(database: Database, settings: ServerSettings): boolean {
  return database.kind === 'pglite' || !settings.autovacuum || !settings.trackCounts;
}

/**
 * The start-up warnings about the server's settings (PostgreSQL only; empty when all is as docs/postgresql.md
 * expects). `maintains`: this process runs the maintenance (it runs the background workers); `tables`: the
 * bookkeeping tables it vacuums (bookkeepingTables).
 */
export function settingsWarnings(
  settings: ServerSettings,
  config: Config,
  maintains: boolean,
  tables: readonly string[],
): string[] {
  const warnings: string[] = [];
  if (settings.version < 150000)
    warnings.push(
      `PostgreSQL ${Math.floor(settings.version / 10000)} is older than the 15 the service is built and tested on`,
    );
  if (!settings.autovacuum || !settings.trackCounts) {
    const off = [!settings.autovacuum && 'autovacuum', !settings.trackCounts && 'track_counts']
      .filter(Boolean)
      .join(' and ');
    const who = maintains ? 'This process' : 'The processes running the background workers (crm worker)';
    warnings.push(
      `${off} is off on this PostgreSQL server: nothing vacuums or analyzes tables. ${who} VACUUMs the service's ` +
        `own bookkeeping tables (${tables.join(', ')}) every ${config.CRM_DB_MAINTENANCE_SECONDS} s. ` +
        'Every other table (cards, contacts, comments, audit_log, …) accumulates dead rows and stale planner ' +
        'statistics until you turn autovacuum on (with track_counts) or schedule `vacuumdb --analyze` yourself ' +
        '(docs/postgresql.md).',
    );
  }
  if (settings.notOwned.length)
    warnings.push(
      `The database role does not own ${settings.notOwned.join(', ')}: the service cannot VACUUM them ` +
        '(run the service as the schema owner, docs/postgresql.md).',
    );
  const needed = config.DATABASE_POOL_SIZE * config.CRM_PROCESSES;
  if (needed > settings.maxConnections - 3)
    warnings.push(
      `max_connections is ${settings.maxConnections}: ${config.CRM_PROCESSES} API process(es) × ` +
        `DATABASE_POOL_SIZE ${config.DATABASE_POOL_SIZE} may not get their connections (worker processes and ` +
        'reserved superuser slots need some too)',
    );
  return warnings;
}

/**
 * What one maintenance run did (null: another process held the lock, nothing done): each module task's count
 * under its `report` field (e.g. `folded`: card-count and report deltas folded; `agentConfirmationsDeleted`:
 * agent confirmation requests expired for more than a day), then the platform's own.
 */
export interface MaintenanceReport {
  [report: string]: number | string[];
  idempotencyKeysDeleted: number;
  vacuumed: string[];
  ms: number;
}

/**
 * One run. On PostgreSQL it holds a connection of its own for the run (the session lock, and VACUUM cannot run
 * inside a transaction block: each statement here is its own transaction).
 */
export async function runMaintenance(
  database: Database,
  modules: readonly ModuleRegistration[],
  opts: { vacuum: boolean },
): Promise<MaintenanceReport | null> {
  const started = performance.now();
  const sessions = database.sessionPool ?? database.pool;
  if (!sessions) return runSteps(database.system, (text) => database.system.execute(sql.raw(text)), opts);
  // Session locks: on the server itself (DATABASE_DIRECT_URL), never through a transaction pooler.
  const client = await sessions.connect();
  try {
    // Another process migrating (its policy DDL locks every tenant table in one transaction) would deadlock with
    // the fold: skip this run while a migration holds its lock, and make a migration wait for a running one.
    const free = await client.query('select pg_try_advisory_lock_shared($1) as ok', [MIGRATION_LOCK]);
    if (!free.rows[0].ok) return null;
    try {
      const { rows } = await client.query('select pg_try_advisory_lock($1) as ok', [MAINTENANCE_LOCK]);
      if (!rows[0].ok) return null;
      try {
        const db = drizzleNodePg(client) as unknown as Db;
        return await runSteps(db, (text) => client.query(text), opts);
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MAINTENANCE_LOCK]);
      }
    } finally {
      await client.query('select pg_advisory_unlock_shared($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }

  async function runSteps(db: Db, exec: (text: string) => Promise<unknown>, o: { vacuum: boolean }) {
    // The modules' tasks (the cards module's two folds first: src/modules.ts's order), in order.
    const counts: Record<string, number> = {};
    for (const task of modules.flatMap((m) => m.maintenance ?? []))
      counts[task.report] = (counts[task.report] ?? 0) + (await task.run(db));
    const idempotencyKeysDeleted = await pruneIdempotencyKeys(db);
    const vacuumed: string[] = [];
    if (o.vacuum) {
      const existing = await queryRows<{ name: string }>(
        db,
        sql`select t.name from unnest(${sql.raw(`array['${bookkeepingTables(modules).join("','")}']`)}) as t(name)
            where to_regclass(t.name) is not null`,
      );
      vacuumed.push(...existing.map((r) => r.name));
      // SKIP_LOCKED: a table another process is vacuuming (or altering) waits for the next run.
      if (vacuumed.length) await exec(`VACUUM (SKIP_LOCKED) ${vacuumed.join(', ')}`);
    }
    return {
      ...counts,
      idempotencyKeysDeleted,
      vacuumed,
      ms: Math.round(performance.now() - started),
    };
  }
}

export interface Logger {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Logs the settings warnings (PostgreSQL, once) and, when `run` is set, starts the periodic maintenance (a
 * first run at once: the backlog of a previous process's life). Returns its stop.
 */
export async function startMaintenance(
  database: Database,
  modules: readonly ModuleRegistration[],
  config: Config,
  log: Logger,
  run: boolean,
): Promise<{ stop(): Promise<void> }> {
  let vacuum = database.kind === 'pglite';
  if (database.kind === 'postgres') {
    const tables = bookkeepingTables(modules);
    const settings = await readServerSettings(database, tables);
    for (const w of settingsWarnings(settings, config, run, tables)) log.warn({ database: 'postgresql' }, w);
    vacuum = selfVacuum(database, settings);
  }
  if (!run) return { stop: async () => {} };
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    // A run longer than the interval (a large backlog) is not stacked on.
    running ??= runMaintenance(database, modules, { vacuum })
      .then((report) => {
        if (report) log.debug({ maintenance: report }, 'database maintenance');
      })
      .catch((err) => {
        if (!stopped) log.error({ err }, 'database maintenance failed');
      })
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, config.CRM_DB_MAINTENANCE_SECONDS * 1000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
