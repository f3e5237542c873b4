/**
 * A cluster of the service on one machine, from Debian's packages (issue 34, docs/scaling.md): HAProxy in front of
 * N API processes (`crm serve`, CRM_WORKERS=external) and, on a frontend of its own, K agent servers (`crm-mcp` in
 * HTTP mode, multi-user, sharing MCP_CRM_STATE_SECRET), M `crm worker` processes, PgBouncer 1.18 in transaction
 * mode between them and PostgreSQL (LISTEN, session locks and pg-boss's sessions on DATABASE_DIRECT_URL), the
 * streaming replica when scripts/cluster/pg-pair.ts exists (DATABASE_REPLICA_URL), and a Redis of its own for the
 * rate limits. Everything listens on 127.0.0.1 on free ports, keeps its files in one temporary directory, and is
 * stopped by pid by `stop()` (or SIGINT/SIGTERM/exit of `npm run cluster`).
 *
 *   npm run cluster [-- --apis 3 --workers 2 --mcps 2 --port 8080 --worktree]
 *
 * Without the pair it uses the PostgreSQL server at CLUSTER_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/
 * postgres) with a database of its own, created here and dropped at the end.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { redisArgs, writeHaproxyConfig, writePgBouncerConfig } from './config-files.js';
import { freePort } from './pg-pair.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HAPROXY = '/usr/sbin/haproxy';
const PGBOUNCER = '/usr/sbin/pgbouncer';
const REDIS = '/usr/bin/redis-server';

export interface ClusterOptions {
  apis?: number;
  workers?: number;
  /** Agent servers (crm-mcp, HTTP) behind HAProxy's `mcp` frontend (default 2; 0: none). */
  mcps?: number;
  /** HAProxy's port (0: a free one). */
  port?: number;
  /** Environment of every API and worker process (on top of the cluster's own). */
  env?: Record<string, string>;
  /**
   * The checkout whose code runs: default a copy of the last commit (`git archive HEAD`, the TypeScript sources
   * through tsx), so that files being edited in the working tree cannot break a run; `worktree`: this checkout's
   * files as they are (its dist/ when built).
   */
  code?: 'head' | 'worktree';
  /** Server connections PgBouncer keeps to PostgreSQL (its pool_size). */
  poolerPoolSize?: number;
  /** Use the primary + hot standby of scripts/cluster/pg-pair.ts when it exists (default true). */
  replica?: boolean;
  log?: (msg: string) => void;
}

export interface Proc {
  name: string;
  child: ChildProcess;
  pid: number;
  port?: number;
  logFile: string;
}

export interface Cluster {
  dir: string;
  url: string;
  statsUrl: string;
  directUrl: string;
  poolerUrl: string;
  poolerAdminUrl: string;
  replicaUrl?: string;
  redisUrl: string;
  apis: Proc[];
  workers: Proc[];
  /** The agent servers' frontend on HAProxy (its /mcp), when there are agent servers. */
  mcpUrl?: string;
  mcps: Proc[];
  haproxy: Proc;
  pgbouncer: Proc;
  redis: Proc;
  /** Every pid started (children of this process), for checks that nothing is left. */
  pids(): number[];
  /** The environment the API and worker processes run with. */
  env: Record<string, string>;
  startApi(index: number): Promise<Proc>;
  startWorker(index: number): Promise<Proc>;
  startMcp(index: number): Promise<Proc>;
  /** Stops it, waits `downMs`, runs `whileDown`, starts it again on the same port. */
  restartPgBouncer(downMs?: number, whileDown?: () => Promise<void>): Promise<void>;
  restartRedis(downMs?: number, whileDown?: () => Promise<void>): Promise<void>;
  /** Stops the standby (pg-pair), if there is one; a function to bring it back, if the pair offers one. */
  stopReplica?: () => Promise<void>;
  startReplica?: () => Promise<void>;
  /** HAProxy's view of each server: `api1 UP`, `mcp1 UP`, … (its stats CSV). */
  serverStates(): Promise<Record<string, string>>;
  /** PgBouncer's SHOW POOLS row of the service's pool. */
  pools(): Promise<Record<string, string | number>[]>;
  /** PostgreSQL backend pids of the cluster's database (for CPU accounting). */
  backendPids(): Promise<number[]>;
  stop(): Promise<void>;
}

// One way to pick a free loopback port for both scripts (pg-pair.ts has no dependency on this file).
export { freePort };

/** Spawns `cmd` with its output in `<dir>/<name>.log`; rejects if it exits before `ready()` holds. */
async function spawnLogged(
  dir: string,
  name: string,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: () => Promise<boolean>,
  // Generous: on a shared two-core machine under load, tsx start-up of five processes takes minutes.
  timeoutMs = 300_000,
): Promise<Proc> {
  const logFile = join(dir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(cmd, args, { cwd: env.CRM_CLUSTER_CODE ?? ROOT, env, stdio: ['ignore', fd, fd] });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `${name} exited (${child.exitCode ?? child.signalCode}): ${readFileSync(logFile, 'utf8').slice(-2000)}`,
      );
    if (await ready().catch(() => false)) return { name, child, pid: child.pid!, logFile };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not start in ${timeoutMs} ms: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
export async function stopProc(p: Proc | undefined, graceMs = 15_000) {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  try {
    process.kill(p.pid, 'SIGTERM');
  } catch {}
  const timer = setTimeout(() => {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {}
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/** kill -9, resolves once it has exited. */
export async function killProc(p: Proc) {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  process.kill(p.pid, 'SIGKILL');
  await exited;
}

async function httpOk(url: string) {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.ok;
}

interface Database {
  directUrl: string;
  replicaUrl?: string;
  stopReplica?: () => Promise<void>;
  startReplica?: () => Promise<void>;
  pids?: () => number[];
  close(): Promise<void>;
}

/** The primary (+ replica) of scripts/cluster/pg-pair.ts when it exists, else a database of our own on 5432. */
async function openPostgres(replica: boolean, log: (m: string) => void): Promise<Database> {
  const pairFile = join(ROOT, 'scripts', 'cluster', 'pg-pair.ts');
  if (replica && existsSync(pairFile)) {
    const mod = (await import(pathToFileURL(pairFile).href)) as Record<string, any>;
    if (typeof mod.startPrimaryWithReplica === 'function') {
      const pair = await mod.startPrimaryWithReplica({ log });
      const directUrl: string = pair.primaryUrl ?? pair.primary?.url ?? pair.url;
      const replicaUrl: string | undefined = pair.replicaUrl ?? pair.replica?.url;
      log(`PostgreSQL primary ${directUrl}, hot standby ${replicaUrl ?? '(none)'} (pg-pair.ts)`);
      return {
        directUrl,
        replicaUrl,
        stopReplica: pair.stopReplica?.bind(pair) ?? pair.replica?.stop?.bind(pair.replica),
        startReplica: pair.startReplica?.bind(pair),
        pids: () => pair.pids?.() ?? [],
        close: () => (pair.stop ?? pair.close).call(pair),
      };
    }
  }
  const admin = process.env.CLUSTER_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `crm_cluster_${process.pid}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`drop database if exists ${name}`);
  await c.query(`create database ${name}`);
  await c.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  log(`PostgreSQL ${url.href} (a database of its own; no replica: scripts/cluster/pg-pair.ts is absent)`);
  return {
    directUrl: url.href,
    async close() {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`drop database if exists ${name} with (force)`);
      await d.end();
    },
  };
}

/** Redis on `port` (its command line: config-files.ts); ready once its log says so. */
async function startRedis(dir: string, port: number): Promise<Proc> {
  const p = await spawnLogged(dir, 'redis', REDIS, redisArgs(dir, port), process.env, async () =>
    readFileSync(join(dir, 'redis.log'), 'utf8').includes('Ready to accept connections'),
  );
  p.port = port;
  return p;
}

/** PgBouncer on `port`; ready once its log, past `logOffset` (what an earlier start wrote), says it listens. */
async function startPgBouncer(dir: string, args: string[], port: number, logOffset: number): Promise<Proc> {
  const p = await spawnLogged(dir, 'pgbouncer', PGBOUNCER, args, process.env, async () =>
    /listening on 127\.0\.0\.1:\d+/.test(readFileSync(join(dir, 'pgbouncer.file.log'), 'utf8').slice(logOffset)),
  );
  p.port = port;
  return p;
}

/** HAProxy on `port` in front of the API processes (its configuration: config-files.ts); ready once it answers. */
async function startHaproxy(
  dir: string,
  port: number,
  statsPort: number,
  apiPorts: number[],
  mcp: { port: number; ports: number[] },
): Promise<Proc> {
  const cfg = writeHaproxyConfig(dir, port, statsPort, apiPorts, mcp);
  const p = await spawnLogged(dir, 'haproxy', HAPROXY, ['-f', cfg, '-db'], process.env, () =>
    httpOk(`http://127.0.0.1:${port}/api/ready`),
  );
  p.port = port;
  return p;
}

/**
 * A copy of the last commit's code in `<dir>/code` (`git archive HEAD`, with this checkout's node_modules), so that
 * files being edited in the working tree cannot break a run. Answers its directory.
 */
function copyHeadCode(dir: string, log: (m: string) => void): string {
  const codeDir = join(dir, 'code');
  mkdirSync(codeDir);
  execFileSync('sh', [
    '-c',
    `git -C '${ROOT}' archive HEAD bin src drizzle package.json tsconfig.json | tar -x -C '${codeDir}'`,
  ]);
  symlinkSync(join(ROOT, 'node_modules'), join(codeDir, 'node_modules'));
  // CLUSTER_CODE_EXTRA: working-tree files laid over the commit (a commit that names a file not yet committed).
  for (const f of (process.env.CLUSTER_CODE_EXTRA ?? '').split(',').filter(Boolean)) {
    mkdirSync(dirname(join(codeDir, f)), { recursive: true });
    copyFileSync(join(ROOT, f), join(codeDir, f));
  }
  log(`code: ${execFileSync('git', ['-C', ROOT, 'log', '-1', '--format=%h %s']).toString().trim().slice(0, 100)}`);
  return codeDir;
}

/**
 * The environment of the API and worker processes: this process's, then the cluster's own, then `extra`
 * (ClusterOptions.env).
 */
function serviceEnv(
  dir: string,
  db: Database,
  urls: { poolerUrl: string; redisUrl: string; codeDir: string },
  extra: Record<string, string> | undefined,
): Record<string, string> {
  const env: Record<string, string> = {
    ...(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >),
    HOST: '127.0.0.1',
    DATABASE_URL: urls.poolerUrl,
    DATABASE_DIRECT_URL: db.directUrl,
    DATABASE_PREPARED_STATEMENTS: 'false',
    ...(db.replicaUrl ? { DATABASE_REPLICA_URL: db.replicaUrl } : {}),
    REDIS_URL: urls.redisUrl,
    CRM_WORKERS: 'external',
    CRM_DATA_DIR: join(dir, 'data'),
    CRM_JWT_SECRET: randomBytes(32).toString('hex'),
    CRM_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    CRM_LOG_LEVEL: 'warn',
    CRM_LOG_FORMAT: 'json',
    // HAProxy checks every second and needs 3 failures: the process keeps serving that long after SIGTERM.
    CRM_SHUTDOWN_DELAY_SECONDS: '3.5',
    CRM_CLUSTER_CODE: urls.codeDir,
    ...(urls.codeDir === ROOT ? {} : { CRM_FROM_SOURCE: '1' }),
    ...extra,
  };
  delete env.npm_lifecycle_event; // serve.ts follows an npm parent only when started by npm itself
  delete env.PORT;
  return env;
}

/** HAProxy's view of each server: `api1 UP`, `mcp1 UP`, … (its stats CSV). */
async function haproxyServerStates(statsUrl: string): Promise<Record<string, string>> {
  const csv = await (await fetch(`${statsUrl};csv`)).text();
  const out: Record<string, string> = {};
  for (const line of csv.split('\n')) {
    const f = line.split(',');
    if ((f[0] === 'crm' && f[1]?.startsWith('api')) || (f[0] === 'crm-mcp' && f[1]?.startsWith('mcp')))
      out[f[1]!] = f[17] ?? '?';
  }
  return out;
}

/** PostgreSQL backend pids of the database at `directUrl` (but the one asking). */
async function databaseBackendPids(directUrl: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: directUrl });
  await c.connect();
  try {
    const r = await c.query(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return r.rows.map((x) => Number(x.pid));
  } finally {
    await c.end();
  }
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const log = opts.log ?? ((m: string) => console.error(`[cluster] ${m}`));
  const nApis = opts.apis ?? 3;
  const nWorkers = opts.workers ?? 2;
  const nMcps = opts.mcps ?? 2;
  const dir = mkdtempSync(join(tmpdir(), 'crm-cluster-'));
  const procs: Proc[] = [];
  let db: Database | undefined;
  const track = (p: Proc) => {
    procs.push(p);
    return p;
  };
  const stopAll = async () => {
    // The service first (it drains through the pooler), then the parts under it.
    const order = ['haproxy', 'mcp', 'api', 'worker', 'pgbouncer', 'redis'];
    for (const kind of order)
      await Promise.all(procs.filter((p) => p.name.startsWith(kind)).map((p) => stopProc(p)));
    await Promise.all(procs.map((p) => stopProc(p)));
    await db?.close().catch((err) => log(`database cleanup: ${(err as Error).message}`));
    db = undefined;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const codeDir = (opts.code ?? 'head') === 'head' ? copyHeadCode(dir, log) : ROOT;
    db = await openPostgres(opts.replica ?? true, log);
    const direct = new URL(db.directUrl);

    // ---- Redis (its own, never the machine's 6379)
    const redisPort = await freePort();
    let redis = track(await startRedis(dir, redisPort));
    const redisUrl = `redis://127.0.0.1:${redisPort}`;

    // ---- PgBouncer 1.18, transaction mode; its admin console for SHOW POOLS
    const bouncerPort = await freePort();
    const bouncer = writePgBouncerConfig(dir, direct, bouncerPort, opts.poolerPoolSize ?? 20);
    let pgbouncer = track(await startPgBouncer(dir, bouncer.args, bouncerPort, 0));
    const { poolerUrl, poolerAdminUrl } = bouncer;

    // ---- the service's environment
    const env = serviceEnv(dir, db, { poolerUrl, redisUrl, codeDir }, opts.env);
    mkdirSync(env.CRM_DATA_DIR!, { recursive: true });

    const apis: Proc[] = [];
    const workers: Proc[] = [];
    const apiPorts: number[] = [];
    for (let i = 0; i < nApis; i++) apiPorts.push(await freePort());
    const startApi = async (i: number) => {
      const port = apiPorts[i]!;
      const p = track(
        await spawnLogged(
          dir,
          `api${i + 1}`,
          process.execPath,
          ['bin/crm.js', 'serve'],
          { ...env, PORT: String(port) },
          () => httpOk(`http://127.0.0.1:${port}/api/ready`),
        ),
      );
      p.port = port;
      apis[i] = p;
      return p;
    };
    const startWorker = async (i: number) => {
      const name = `worker${i + 1}`;
      const p = track(
        await spawnLogged(dir, name, process.execPath, ['bin/crm.js', 'worker'], env, async () =>
          readFileSync(join(dir, `${name}.log`), 'utf8').includes('CRM worker running'),
        ),
      );
      workers[i] = p;
      return p;
    };
    // The first API process migrates alone (the others would wait on its lock anyway), then the rest together.
    await startApi(0);
    await Promise.all([
      ...Array.from({ length: nApis - 1 }, (_, i) => startApi(i + 1)),
      ...Array.from({ length: nWorkers }, (_, i) => startWorker(i)),
    ]);

    // ---- HAProxy: round robin, health check on /api/ready every second; the agent servers on a frontend of their own
    const port = opts.port || (await freePort());
    const statsPort = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const mcpPorts: number[] = [];
    for (let i = 0; i < nMcps; i++) mcpPorts.push(await freePort());
    const mcpFrontend = nMcps > 0 ? await freePort() : 0;
    const haproxy = track(
      await startHaproxy(dir, port, statsPort, apiPorts, { port: mcpFrontend, ports: mcpPorts }),
    );
    const statsUrl = `http://127.0.0.1:${statsPort}/stats`;

    // ---- the agent servers: crm-mcp over HTTP, multi-user (each client brings its token), the service through
    // HAProxy; one MCP_CRM_STATE_SECRET, so a confirmation started on one is finished on another.
    const mcpUrl = nMcps > 0 ? `http://127.0.0.1:${mcpFrontend}` : undefined;
    const mcpEnv: Record<string, string> = {
      ...env,
      MCP_CRM_API_URL: url,
      MCP_CRM_HTTP_HOST: '127.0.0.1',
      MCP_CRM_STATE_SECRET: randomBytes(32).toString('hex'),
      ...(mcpUrl ? { MCP_CRM_PUBLIC_URL: mcpUrl } : {}),
    };
    const mcps: Proc[] = [];
    const startMcp = async (i: number) => {
      const mcpPort = mcpPorts[i]!;
      const p = track(
        await spawnLogged(
          dir,
          `mcp${i + 1}`,
          process.execPath,
          ['bin/crm-mcp.js'],
          { ...mcpEnv, MCP_CRM_HTTP_PORT: String(mcpPort) },
          () => httpOk(`http://127.0.0.1:${mcpPort}/health`),
        ),
      );
      p.port = mcpPort;
      mcps[i] = p;
      return p;
    };
    await Promise.all(Array.from({ length: nMcps }, (_, i) => startMcp(i)));

    const admin = async <T>(sqlText: string) => {
      const c = new pg.Client({ connectionString: poolerAdminUrl });
      await c.connect();
      try {
        return (await c.query(sqlText)).rows as T[];
      } finally {
        await c.end();
      }
    };
    const cluster: Cluster = {
      dir,
      url,
      statsUrl,
      directUrl: db.directUrl,
      poolerUrl,
      poolerAdminUrl,
      replicaUrl: db.replicaUrl,
      redisUrl,
      apis,
      workers,
      mcpUrl,
      mcps,
      haproxy,
      get pgbouncer() {
        return pgbouncer;
      },
      get redis() {
        return redis;
      },
      env,
      pids: () => [...procs.map((p) => p.pid), ...(db?.pids?.() ?? [])],
      startApi,
      startWorker,
      startMcp,
      async restartPgBouncer(downMs = 1000, whileDown) {
        await stopProc(pgbouncer);
        await sleep(downMs);
        await whileDown?.();
        const logOffset = readFileSync(join(dir, 'pgbouncer.file.log'), 'utf8').length;
        pgbouncer = track(await startPgBouncer(dir, bouncer.args, bouncerPort, logOffset));
      },
      async restartRedis(downMs = 1000, whileDown) {
        await stopProc(redis);
        await sleep(downMs);
        await whileDown?.();
        writeFileSync(join(dir, 'redis.log'), '');
        redis = track(await startRedis(dir, redisPort));
      },
      stopReplica: db.stopReplica,
      startReplica: db.startReplica,
      serverStates: () => haproxyServerStates(statsUrl),
      pools: () => admin<Record<string, string | number>>('SHOW POOLS'),
      backendPids: async () => databaseBackendPids(db!.directUrl),
      stop: stopAll,
    };
    return cluster;
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Pids among `pids` still alive (not zombies). */
export function alive(pids: number[]): number[] {
  return pids.filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
      return false;
    }
  });
}

// ---- npm run cluster

async function main() {
  const argv = process.argv.slice(2);
  const flag = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const cluster = await startCluster({
    apis: Number(flag('apis') ?? 3),
    workers: Number(flag('workers') ?? 2),
    mcps: Number(flag('mcps') ?? 2),
    port: Number(flag('port') ?? 0),
    code: argv.includes('--worktree') ? 'worktree' : 'head',
  });
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${why}: stopping everything the cluster started`);
    const pids = cluster.pids();
    await cluster.stop();
    const left = alive(pids);
    console.log(left.length ? `still running: ${left.join(', ')}` : `stopped (${pids.length} processes)`);
    process.exit(left.length ? 1 : 0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // Last resort (an exception, process.exit elsewhere): SIGKILL whatever is still running, synchronously.
  process.on('exit', () => {
    for (const pid of alive(cluster.pids()))
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
  });
  const line = (k: string, v: string) => console.log(`  ${k.padEnd(24)} ${v}`);
  console.log('\nCRM cluster running (Ctrl-C stops it):');
  line('API (HAProxy)', cluster.url);
  line('HAProxy stats', cluster.statsUrl);
  for (const a of cluster.apis) line(`${a.name} (pid ${a.pid})`, `http://127.0.0.1:${a.port}`);
  for (const w of cluster.workers) line(`${w.name} (pid ${w.pid})`, 'crm worker');
  if (cluster.mcpUrl) line('agent servers (HAProxy)', `${cluster.mcpUrl}/mcp`);
  for (const m of cluster.mcps) line(`${m.name} (pid ${m.pid})`, `http://127.0.0.1:${m.port}/mcp`);
  line('PgBouncer (transaction)', cluster.poolerUrl);
  line('PgBouncer admin', cluster.poolerAdminUrl);
  line('PostgreSQL (direct)', cluster.directUrl);
  line('replica', cluster.replicaUrl ?? '(none: scripts/cluster/pg-pair.ts absent)');
  line('Redis', cluster.redisUrl);
  line('logs and config', cluster.dir);
  if (argv.includes('--smoke')) await stop('--smoke');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
