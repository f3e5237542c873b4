import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg as osLoad, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { type Config, databaseOptions, loadConfig } from '../src/config.js';
import { modules } from '../src/modules.js';
import { type Database, openDatabase, queryRows } from '../src/platform/db/client.js';
import { startMaintenance } from '../src/platform/db/maintenance.js';
import { migrateDatabase } from '../src/platform/db/migrate.js';
import { startJobs } from '../src/workers.js';

export const benchDir = dirname(fileURLToPath(import.meta.url));
export const rootDir = join(benchDir, '..');
export const resultsDir = join(benchDir, 'results');

/** mulberry32: a tiny seeded PRNG, so the same seed always produces the same data set. */
export function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = ReturnType<typeof mulberry32>;

export const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)];
export const int = (rng: Rng, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));

/** Picks by weight: `[[value, weight], …]`. */
export function weighted<T>(rng: Rng, entries: readonly (readonly [T, number])[]): T {
  const total = entries.reduce((s, [, w]) => s + w, 0);
  let r = rng() * total;
  for (const [v, w] of entries) {
    r -= w;
    if (r < 0) return v;
  }
  return entries[entries.length - 1][0];
}

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** A documentId (24 lowercase alphanumerics, the service's format) drawn from the seeded PRNG. */
export function seededDocumentId(rng: Rng): string {
  let out = '';
  for (let i = 0; i < 24; i++) out += alphabet[Math.floor(rng() * 36)];
  return out;
}

/** `--name value` / `--flag` options of a bench command. */
export function parseFlags(argv: string[]): Record<string, string | true> {
  const out: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const [k, inline] = a.slice(2).split('=', 2);
    if (inline !== undefined) out[k] = inline;
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) out[k] = argv[++i];
    else out[k] = true;
  }
  return out;
}

export const numberFlag = (flags: Record<string, string | true>, name: string, fallback: number) => {
  const v = flags[name];
  if (v === undefined || v === true) return fallback;
  const n = Number(String(v).replace(/_/g, ''));
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number`);
  return n;
};

export function benchConfig() {
  return loadConfig();
}

export function backendName(): 'pglite' | 'postgres' {
  return benchConfig().DATABASE_URL ? 'postgres' : 'pglite';
}

export async function openBenchDatabase(poolSize?: number): Promise<Database> {
  const opts = databaseOptions(benchConfig());
  return openDatabase({ ...opts, poolSize: poolSize ?? opts.poolSize });
}

/** The seed's record, one per database (PostgreSQL database name, or PGlite data dir). */
export const metaPath = () => {
  const config = benchConfig();
  const where = config.DATABASE_URL
    ? new URL(config.DATABASE_URL).pathname.slice(1)
    : databaseOptions(config).dataDir.replace(/^\.?\/*/, '');
  return join(resultsDir, `seed-meta-${backendName()}-${where.replace(/[^a-zA-Z0-9_-]+/g, '_')}.json`);
};

export interface SeedMeta {
  backend: 'pglite' | 'postgres';
  seededAt: string;
  options: Record<string, number>;
  counts: Record<string, number>;
  token: string;
  org: { slug: string; id: number };
  board: {
    documentId: string;
    id: number;
    phases: { documentId: string; slug: string; id: number; order: number }[];
    fields: { documentId: string; slug: string; type: string }[];
    tags: { documentId: string; slug: string }[];
  };
  /** cards of the main board the move benchmark picks from */
  moveCards: string[];
  segment: { documentId: string; name: string };
  contactQuery: string;
  titleQuery: string;
  fieldFilter: { slug: string; value: string };
}

export function writeMeta(meta: SeedMeta) {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(metaPath(), `${JSON.stringify(meta, null, 2)}\n`);
}

export function readMeta(): SeedMeta {
  try {
    return JSON.parse(readFileSync(metaPath(), 'utf8')) as SeedMeta;
  } catch {
    throw new Error(
      `${metaPath()} not found: run \`npm run bench:seed\` first (same CRM_DATA_DIR / DATABASE_URL)`,
    );
  }
}

/**
 * Load-insensitive figures for a bench on a shared machine: statements sent to PostgreSQL (every
 * `pg.Client#query`, i.e. one round trip each, BEGIN/COMMIT included) and this process's CPU time, between
 * `start()` and `stop()`. PGlite runs the same statements in-process (not counted: its query path is private).
 */
export function statementMeter() {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  let statements = 0;
  const texts = new Map<string, number>();
  let cpu0 = process.cpuUsage();
  let t0 = performance.now();
  return {
    start() {
      statements = 0;
      texts.clear();
      proto.query = function (this: unknown, ...args: unknown[]) {
        statements++;
        if (process.env.BENCH_STATEMENTS) {
          const q = args[0] as string | { text?: string };
          const text = (typeof q === 'string' ? q : (q?.text ?? '?')).replace(/\s+/g, ' ').slice(0, 90);
          texts.set(text, (texts.get(text) ?? 0) + 1);
        }
        return original.apply(this, args);
      };
      cpu0 = process.cpuUsage();
      t0 = performance.now();
    },
    stop() {
      proto.query = original;
      const cpu = process.cpuUsage(cpu0);
      // BENCH_STATEMENTS=1: the most frequent statements (their first 90 characters), on stderr.
      if (process.env.BENCH_STATEMENTS)
        for (const [text, n] of [...texts].sort((a, b) => b[1] - a[1]).slice(0, 30))
          console.error(`${String(n).padStart(7)}  ${text}`);
      return { statements, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0 };
    },
  };
}

/**
 * CPU time of the PostgreSQL server processes serving this bench's database (its backends in pg_stat_activity,
 * read from /proc: Linux, server on this machine), between `start()` and `stop()`: on a machine whose cores the
 * service and its database share, the database's share of a unit of work. A backend that ends before `stop()` is
 * not counted (the pools keep theirs open through a run). Null when not measurable (PGlite, another host).
 */
export function databaseCpuMeter(db: Database) {
  const backends = async () =>
    (
      await queryRows<{ pid: number }>(
        db.system,
        sql`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      )
    ).map((r) => Number(r.pid));
  /** utime + stime of a process in ms (fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 10 ms). */
  const cpuOf = (pid: number) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return undefined;
    }
  };
  let before = new Map<number, number>();
  let measurable = false;
  return {
    async start() {
      if (db.kind !== 'postgres') return;
      const pids = await backends();
      before = new Map(pids.flatMap((pid) => (cpuOf(pid) === undefined ? [] : [[pid, cpuOf(pid)!]])));
      measurable = pids.length > 0 && before.size === pids.length;
    },
    /** ms of database CPU since start (backends that connected meanwhile: all of theirs). */
    async stop(): Promise<number | null> {
      if (!measurable) return null;
      let ms = 0;
      for (const pid of await backends()) ms += (cpuOf(pid) ?? 0) - (before.get(pid) ?? 0);
      return ms;
    },
  };
}

/** The 1-minute load average, for the figures' context. */
export const loadAverage = () => osLoad()[0].toFixed(1);
/** The q-quantile of `xs` (nearest rank); NaN when empty. */
export const percentile = (xs: number[], q: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] : Number.NaN;

/** Runs `task(i)` for i = 0 … count − 1, `concurrency` at a time (a fixed pool of loops taking the next index). */
export async function inPool(concurrency: number, count: number, task: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export type BenchRequest = (
  method: string,
  url: string,
  payload?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: any }>;

/**
 * The service in this process for a throughput bench: the embedded database (or DATABASE_URL), migrated, the job
 * workers and the database maintenance running (as `crm serve` runs them: the folds of the running counts, and the
 * VACUUM of the bookkeeping tables where nothing else vacuums), the app answering `req` through inject; and a fresh
 * user with an organization `slug` whose headers are `h`.
 */
export async function startBenchApp(config: Config, slug: string) {
  const db = await openDatabase({
    databaseUrl: process.env.DATABASE_URL,
    dataDir: 'memory://',
    poolSize: 10,
  });
  await migrateDatabase(db, modules);
  const background = await startJobs(config, db, true);
  const app = await buildApp({ config, db, background });
  await app.ready();
  const maintenance = await startMaintenance(db, modules, config, app.log, true);
  const req: BenchRequest = async (method, url, payload, headers = {}) => {
    const res = await app.inject({
      method: method as 'GET',
      url: `/api${url}`,
      payload: payload as object,
      headers,
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };
  const reg = await req('POST', '/auth/local/register', {
    username: slug,
    email: `${slug}@x.test`,
    password: 'correct-horse-battery',
  });
  const auth = { authorization: `Bearer ${reg.body.jwt}` };
  await req('POST', '/organizations', { data: { name: 'Bench', slug } }, auth);
  const h = { ...auth, 'x-tenant-id': slug };
  return {
    db,
    app,
    background,
    req,
    h,
    async close() {
      await maintenance.stop();
      await app.close();
      await background.jobs.stop();
      await db.close();
    },
  };
}

/**
 * The service as its own process (`bin/crm.js serve`) on 127.0.0.1:`port`, so a bench's load generator does not
 * share its event loop: workers external unless `env` says otherwise; resolves once /api/health answers.
 */
export async function startServiceProcess(
  port: number,
  env: Record<string, string> = {},
  /** The checkout whose build serves (bench/ab.ts compares two). */
  dir = rootDir,
  /** Node's own options before the script (bench/prof.ts: `--cpu-prof`). */
  nodeArgs: string[] = [],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeArgs, 'bin/crm.js', 'serve'], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_ENABLED: 'false',
      CRM_LOG_LEVEL: 'warn',
      CRM_WORKERS: 'external',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.ok) return child;
    } catch {}
    await sleep(500);
  }
  child.kill('SIGTERM');
  throw new Error('the service did not answer /api/health in 300 s');
}

export async function stopService(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(30_000).then(() => child.kill('SIGKILL'))]);
  await exited;
}

/** CPU ms a process (and its children) has used so far, from /proc; undefined where there is none. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = (Number(fields[11]) + Number(fields[12])) * 10;
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
    return own + children.reduce((sum, c) => sum + (processCpuMs(Number(c)) ?? 0), 0);
  } catch {
    return undefined;
  }
}

/** A BenchRequest over HTTP to a service at `base` (keep-alive connections of Node's fetch). */
export function httpRequest(base: string): BenchRequest {
  return async (method, url, payload, headers = {}) => {
    const res = await fetch(`${base}/api${url}`, {
      method,
      headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      // A string is sent as it is (a signed webhook's raw body), anything else as JSON.
      body:
        payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}

/** A fresh user with an organization `slug`: the headers its requests carry. */
export async function registerBenchOrg(req: BenchRequest, slug: string) {
  const reg = await req('POST', '/auth/local/register', {
    username: slug,
    email: `${slug}@x.test`,
    password: 'correct-horse-battery',
  });
  if (reg.status !== 200) throw new Error(`register → ${reg.status} ${JSON.stringify(reg.body)}`);
  const auth = { authorization: `Bearer ${reg.body.jwt}` };
  const org = await req('POST', '/organizations', { data: { name: 'Bench', slug } }, auth);
  if (org.status !== 201) throw new Error(`organization → ${org.status} ${JSON.stringify(org.body)}`);
  return { ...auth, 'x-tenant-id': slug };
}

/** CPU ms used so far by every `postgres` process of this machine (the local server: its backends included). */
export function postgresCpuMs(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('postgres')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {}
  }
  return total;
}

/**
 * The deployed shape for a bench (PostgreSQL, DATABASE_URL): the API as its own process (`bin/crm.js serve`,
 * workers external) and one `bin/crm.js worker`, both with `env`; a fresh user with the organization `slug`,
 * requests over HTTP, and a small pool of this process's own for the bench's reads.
 */
export async function startSplitService(port: number, env: Record<string, string>, slug: string) {
  const api = await startServiceProcess(port, env);
  const worker: ChildProcess = spawn(process.execPath, ['bin/crm.js', 'worker'], {
    cwd: rootDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Running once it says so (its handlers started): a burst sent before would measure its start-up.
  const running = new Promise<void>((resolve, reject) => {
    worker.once('exit', (code) => reject(new Error(`the worker exited with code ${code}`)));
    worker.stdout!.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      if (chunk.toString().includes('CRM worker running')) resolve();
    });
  });
  const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: 'memory://', poolSize: 2 });
  const req = httpRequest(`http://127.0.0.1:${port}`);
  const h = await registerBenchOrg(req, slug);
  await running;
  return {
    db,
    req,
    h,
    pids: { api: api.pid, worker: worker.pid },
    /** CPU ms the API and worker processes have used so far (from /proc). */
    cpuMs: () => (processCpuMs(api.pid) ?? 0) + (processCpuMs(worker.pid) ?? 0),
    async close() {
      await stopService(api);
      await stopService(worker);
      await db.close();
    },
  };
}

/** Removes what the write benchmarks created, so every run measures the same data set. */
export async function removeCreatedCards(meta: SeedMeta): Promise<string> {
  const db = await openBenchDatabase(1);
  try {
    const res = await db.tenantTransaction(meta.org.id, (tx) =>
      tx.execute(
        sql`delete from cards where organization_id = ${meta.org.id} and board_id = ${meta.board.id} and title = 'bench create'`,
      ),
    );
    return `removed ${(res as unknown as { rowCount?: number; affectedRows?: number }).rowCount ?? (res as { affectedRows?: number }).affectedRows ?? '?'} cards created by the run`;
  } finally {
    await db.close();
  }
}

/** The machine a result was measured on, as the results' JSON records it. */
export const machineInfo = () => ({
  cpus: cpus().length,
  model: cpus()[0]?.model,
  memGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
});
