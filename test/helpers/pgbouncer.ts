import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

/** Why the PgBouncer tests cannot run here (they then say they are skipped), or null. */
export function pgbouncerMissing(): string | null {
  if (!process.env.DATABASE_URL) return 'DATABASE_URL is not set: PgBouncer tests skipped';
  if (!existsSync(PGBOUNCER))
    return 'pgbouncer is not installed (Debian package `pgbouncer`): PgBouncer tests skipped';
  return null;
}

export interface PgBouncer {
  /** postgres:// URL of one of the pooled databases, through the pooler. */
  url(alias: string): string;
  /** Its log so far (what it said when a test fails). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Debian's PgBouncer (1.18) in transaction pooling mode on a loopback ephemeral port, a child process of the
 * test with its ini, auth file and log in a temporary directory. Each alias is a pool of `size` server
 * connections to `server`'s database. PgBouncer refuses to run as root: as root it is started with
 * `-u postgres` (it drops to that user), the directory handed over to it.
 */
export async function startPgBouncer(server: string, pools: Record<string, number>): Promise<PgBouncer> {
  const target = new URL(server);
  const user = decodeURIComponent(target.username || 'postgres');
  const password = decodeURIComponent(target.password);
  const dbname = decodeURIComponent(target.pathname.slice(1));
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  const port = await freePort();
  const logfile = join(dir, 'pgbouncer.log');
  const ini = join(dir, 'pgbouncer.ini');
  const host = target.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  writeFileSync(
    ini,
    [
      '[databases]',
      ...Object.entries(pools).map(
        ([alias, size]) =>
          `${alias} = host=${host} port=${target.port || 5432} dbname=${dbname} pool_size=${size}`,
      ),
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'pool_mode = transaction',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `logfile = ${logfile}`,
      'max_client_conn = 200',
      '',
    ].join('\n'),
  );
  // trust: the user must still be listed; its password is what PgBouncer logs in to the server with.
  writeFileSync(join(dir, 'users.txt'), `"${user}" "${password}"\n`);
  writeFileSync(logfile, '');
  const args = ['-q', ini];
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    for (const f of [dir, ini, logfile, join(dir, 'users.txt')]) chownSync(f, uid, gid);
    args.unshift('-u', 'postgres');
  }
  const child: ChildProcess = spawn(PGBOUNCER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  const log = () => `${output}${existsSync(logfile) ? readFileSync(logfile, 'utf8') : ''}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (/listening on 127\.0\.0\.1:\d+/.test(log())) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`pgbouncer exited ${code}: ${log()}`));
    });
    setTimeout(() => {
      clearInterval(timer);
      reject(new Error(`pgbouncer did not start: ${log()}`));
    }, 15_000).unref();
  });
  const auth = password
    ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}`
    : encodeURIComponent(user);
  return {
    url: (alias) => `postgres://${auth}@127.0.0.1:${port}/${alias}`,
    log,
    async stop() {
      if (child.exitCode === null && child.pid) {
        const exited = new Promise((r) => child.once('exit', r));
        // 1.18: SIGTERM is its immediate shutdown (clients are cut off); SIGKILL if it hangs anyway.
        process.kill(child.pid, 'SIGTERM');
        const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
