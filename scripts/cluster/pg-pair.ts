/**
 * A PostgreSQL primary and a streaming hot standby of it, from Debian's binaries (/usr/lib/postgresql/N/bin), in a
 * temporary directory, on free loopback ports, for the replica tests (test/helpers/pg-replica.ts) and the cluster
 * harness (scripts/cluster/cluster.ts): DATABASE_URL on `primaryUrl`, DATABASE_REPLICA_URL on `replicaUrl`.
 *
 * initdb and postgres refuse to run as root: as root both run as the `postgres` OS user (the temporary directory
 * handed over to it). Both servers are children of this process, with their sockets in the temporary directory,
 * and are stopped by their own pids (the machine's own cluster is never touched). Settings for a throwaway pair:
 * fsync off, a small shared_buffers, `wal_level = replica`, trust for 127.0.0.1 (replication included).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** The newest Debian PostgreSQL bin directory that has initdb and pg_basebackup, or null. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (['initdb', 'pg_basebackup', 'postgres'].every((b) => existsSync(join(bin, b)))) return bin;
  }
  return null;
}

/** Why a pair cannot start here (tests say so and skip), or null. */
export function pgPairMissing(): string | null {
  if (!postgresBinDir())
    return 'no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb, pg_basebackup): replica tests skipped';
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root without a `postgres` OS user to run initdb as: replica tests skipped';
    }
  }
  return null;
}

export interface PairOptions {
  /** The database created on the primary, which both URLs name (default `crm`). */
  database?: string;
  /** Extra postgresql.conf lines of both servers. */
  settings?: Record<string, string | number>;
  log?: (msg: string) => void;
}

export interface PgServer {
  url: string;
  port: number;
  pid: number;
  dataDir: string;
  running(): boolean;
  /** Its log so far. */
  log(): string;
  /** Fast shutdown by pid (SIGINT), then immediate shutdown (SIGQUIT) if it lingers 5 s. */
  stop(): Promise<void>;
}

export interface PgPair {
  dir: string;
  primaryUrl: string;
  replicaUrl: string;
  primary: PgServer;
  replica: PgServer;
  /** Every pid started. */
  pids(): number[];
  /** Stops the standby only (the fault "the replica is down"). */
  stopReplica(): Promise<void>;
  /** Starts the standby again (same data directory and port) after stopReplica. */
  startReplica(): Promise<void>;
  /** pg_wal_replay_pause() / pg_wal_replay_resume() on the standby (the fault "the replica lags"). */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Waits until the standby has replayed everything the primary has written so far. */
  waitForReplay(timeoutMs?: number): Promise<void>;
  /** Stops both and removes the directory. */
  stop(): Promise<void>;
}

interface Owner {
  uid?: number;
  gid?: number;
}

function osUser(): Owner {
  if (process.getuid?.() !== 0) return {};
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
  };
}

function run(bin: string, args: string[], owner: Owner) {
  try {
    execFileSync(bin, args, { ...owner, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
  } catch (err) {
    const e = err as { stderr?: Buffer; stdout?: Buffer; message: string };
    throw new Error(`${bin} failed: ${e.stderr?.toString() || e.stdout?.toString() || e.message}`);
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** `postgres -D dataDir` as a child of this process; resolves once it answers on its port. */
async function startServer(
  bin: string,
  dataDir: string,
  port: number,
  database: string,
  owner: Owner,
): Promise<PgServer> {
  const logFile = `${dataDir}.log`;
  const fd = openSync(logFile, 'a');
  if (owner.uid !== undefined) chownSync(logFile, owner.uid, owner.gid!);
  const child: ChildProcess = spawn(join(bin, 'postgres'), ['-D', dataDir], {
    ...owner,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, LC_ALL: 'C' },
  });
  closeSync(fd);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const url = `postgres://postgres@127.0.0.1:${port}/${database}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`postgres (${dataDir}) exited at start: ${log()}`);
    const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    try {
      await c.connect();
      await c.query('select 1');
      await c.end();
      break;
    } catch (err) {
      await c.end().catch(() => {});
      if (Date.now() > deadline) throw new Error(`postgres (${dataDir}) did not start: ${err}\n${log()}`);
      await sleep(100);
    }
  }
  const pid = child.pid!;
  return {
    url,
    port,
    pid,
    dataDir,
    running: () => !exited,
    log,
    async stop() {
      if (exited) return;
      const gone = new Promise((r) => child.once('exit', r));
      process.kill(pid, 'SIGINT');
      const timer = setTimeout(() => !exited && process.kill(pid, 'SIGQUIT'), 5_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

async function query<T = Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows as T[];
  } finally {
    await c.end();
  }
}

/** A WAL position `X/Y` as a number (bigint). */
export const lsnValue = (lsn: string) => {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
};

/** The primary's data directory: initdb, the throwaway pair's settings (`extra` on top), trust for 127.0.0.1. */
function initPrimary(
  bin: string,
  dir: string,
  primaryDir: string,
  primaryPort: number,
  extra: PairOptions['settings'],
  owner: Owner,
) {
  run(
    join(bin, 'initdb'),
    ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    owner,
  );
  const settings = {
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${dir}'`,
    wal_level: 'replica',
    max_wal_senders: 5,
    max_connections: 100,
    shared_buffers: "'32MB'",
    fsync: 'off',
    full_page_writes: 'off',
    hot_standby: 'on',
    hot_standby_feedback: 'on',
    wal_keep_size: "'128MB'",
    ...extra,
  };
  appendFileSync(
    join(primaryDir, 'postgresql.conf'),
    `\n${Object.entries(settings)
      .map(([k, v]) => `${k} = ${v}`)
      .join('\n')}\nport = ${primaryPort}\n`,
  );
  appendFileSync(
    join(primaryDir, 'pg_hba.conf'),
    '\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n',
  );
}

/**
 * The standby's data directory: a base backup of the running primary with its recovery settings (-R: standby.signal,
 * primary_conninfo).
 */
function backUpStandby(bin: string, primaryPort: number, replicaDir: string, replicaPort: number, owner: Owner) {
  run(
    join(bin, 'pg_basebackup'),
    ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-X', 'stream', '-R', '--checkpoint=fast', '--no-sync'],
    owner,
  );
  appendFileSync(join(replicaDir, 'postgresql.conf'), `\nport = ${replicaPort}\n`);
}

export async function startPrimaryWithReplica(opts: PairOptions = {}): Promise<PgPair> {
  const missing = pgPairMissing();
  if (missing) throw new Error(missing);
  const bin = postgresBinDir()!;
  const database = opts.database ?? 'crm';
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`pg-pair: invalid database name ${database}`);
  const log = opts.log ?? (() => {});
  const owner = osUser();
  const dir = mkdtempSync(join(tmpdir(), 'crm-pg-pair-'));
  if (owner.uid !== undefined) chownSync(dir, owner.uid, owner.gid!);
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const servers: PgServer[] = [];
  try {
    const [primaryPort, replicaPort] = [await freePort(), await freePort()];
    initPrimary(bin, dir, primaryDir, primaryPort, opts.settings, owner);
    const primary = await startServer(bin, primaryDir, primaryPort, database, owner);
    servers.push(primary);
    log(`primary pid ${primary.pid} on 127.0.0.1:${primaryPort}`);
    await query(`postgres://postgres@127.0.0.1:${primaryPort}/postgres`, `create database ${database}`);

    backUpStandby(bin, primaryPort, replicaDir, replicaPort, owner);
    let replica = await startServer(bin, replicaDir, replicaPort, database, owner);
    servers.push(replica);
    log(`hot standby pid ${replica.pid} on 127.0.0.1:${replicaPort}`);

    const replicaAdmin = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
    const pair: PgPair = {
      dir,
      primaryUrl: primary.url,
      replicaUrl: replica.url,
      primary,
      get replica() {
        return replica;
      },
      pids: () => servers.map((s) => s.pid),
      stopReplica: () => replica.stop(),
      async startReplica() {
        if (replica.running()) return;
        replica = await startServer(bin, replicaDir, replicaPort, database, owner);
        servers.push(replica);
      },
      async pauseReplay() {
        await query(replicaAdmin, 'select pg_wal_replay_pause()');
      },
      async resumeReplay() {
        await query(replicaAdmin, 'select pg_wal_replay_resume()');
      },
      async waitForReplay(timeoutMs = 15_000) {
        const [{ lsn }] = await query<{ lsn: string }>(primary.url, 'select pg_current_wal_insert_lsn()::text as lsn');
        const target = lsnValue(lsn);
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const [{ replay }] = await query<{ replay: string | null }>(
            replicaAdmin,
            'select pg_last_wal_replay_lsn()::text as replay',
          );
          if (replay && lsnValue(replay) >= target) return;
          if (Date.now() > deadline) throw new Error(`standby did not replay ${lsn} in ${timeoutMs} ms (at ${replay})`);
          await sleep(20);
        }
      },
      async stop() {
        await Promise.all(servers.map((s) => s.stop().catch(() => {})));
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return pair;
  } catch (err) {
    for (const s of servers.reverse()) await s.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
