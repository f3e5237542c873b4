import { chmodSync, existsSync, mkdirSync, unlinkSync } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join, relative } from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Database } from '../db/client.js';
import { type Manifest, writeBackup, writeFileAtomically } from './backup.js';

/**
 * The serving process's side of backups of the embedded database (docs/backups.md). The process that serves
 * holds the database (PGlite, one process), so it takes every backup: `crm backup FILE` asks it over a control
 * channel, a unix socket in the data directory that only this OS user can reach (`<CRM_DATA_DIR>/run/`, mode
 * 0700, the socket 0600), and the scheduled backups (CRM_BACKUP_INTERVAL) run here. One backup at a time.
 */

export const controlSocketPath = (config: Pick<Config, 'CRM_DATA_DIR'>) =>
  join(config.CRM_DATA_DIR, 'run', 'crm.sock');

/** A unix socket path is at most 107 bytes: a long absolute one is reached relative to the working directory. */
function reachable(path: string): string | undefined {
  if (Buffer.byteLength(path) <= 100) return path;
  const rel = relative(process.cwd(), path);
  return Buffer.byteLength(rel) <= 100 ? rel : undefined;
}

export interface BackupService {
  /** Takes a backup now (after any running one): what the control channel and the schedule call. */
  backup(out: Writable): Promise<Manifest>;
  stop(): Promise<void>;
}

export async function startBackupService(
  config: Config,
  db: Database,
  log: FastifyBaseLogger,
): Promise<BackupService | undefined> {
  if (db.kind !== 'pglite') {
    if (config.CRM_BACKUP_INTERVAL)
      log.warn(
        'CRM_BACKUP_INTERVAL schedules backups of the embedded database only: on PostgreSQL run `crm backup FILE` from a scheduler (docs/backups.md)',
      );
    return undefined;
  }
  if (config.CRM_DATA_DIR.startsWith('memory://')) return undefined;
  let chain: Promise<unknown> = Promise.resolve();
  const backup = (out: Writable): Promise<Manifest> => {
    const next = chain.then(() => writeBackup({ db, config }, out));
    chain = next.catch(() => {});
    return next;
  };
  const control = listenControl(config, backup, log);
  const schedule = config.CRM_BACKUP_INTERVAL ? startSchedule(config, backup, log) : undefined;
  return {
    backup,
    stop: async () => {
      await schedule?.stop();
      await control?.close();
      await chain;
    },
  };
}

// ---- the control channel: one JSON line asks, one JSON line answers, then the archive's bytes.

function listenControl(config: Config, backup: BackupService['backup'], log: FastifyBaseLogger) {
  const path = controlSocketPath(config);
  const at = reachable(path);
  if (!at) {
    log.warn(
      `the backup control socket path ${path} is too long for a unix socket: crm backup cannot reach this server`,
    );
    return undefined;
  }
  mkdirSync(join(config.CRM_DATA_DIR, 'run'), { recursive: true, mode: 0o700 });
  chmodSync(join(config.CRM_DATA_DIR, 'run'), 0o700);
  // This process holds the database lock: a socket left here is a dead server's.
  if (existsSync(path)) unlinkSync(path);
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let line = '';
    const onData = (chunk: Buffer) => {
      line += chunk.toString('utf8');
      const nl = line.indexOf('\n');
      if (nl === -1) {
        if (line.length > 4096) socket.destroy();
        return;
      }
      socket.off('data', onData);
      socket.pause();
      void answer(line.slice(0, nl), socket);
    };
    socket.on('data', onData);
  });
  const answer = async (text: string, socket: Socket) => {
    let op: string | undefined;
    try {
      op = (JSON.parse(text) as { op?: string }).op;
    } catch {}
    if (op === 'ping') {
      socket.end(`${JSON.stringify({ ok: true, pid: process.pid })}\n`);
      return;
    }
    if (op !== 'backup') {
      socket.end(`${JSON.stringify({ ok: false, error: `unknown request ${text.slice(0, 100)}` })}\n`);
      return;
    }
    socket.write(`${JSON.stringify({ ok: true, pid: process.pid })}\n`);
    try {
      const manifest = await backup(socket);
      log.info(
        {
          backup: 'control channel',
          bytes: manifest.files.reduce((n, f) => n + f.size, 0),
          snapshotMs: manifest.snapshotMs,
        },
        'backup streamed to crm backup',
      );
    } catch (err) {
      log.error({ err }, 'backup over the control channel failed');
      socket.destroy();
    }
  };
  // The socket is born 0600 (umask for the bind, which happens within listen()), then checked again.
  const umask = process.umask(0o177);
  try {
    server.listen(at);
  } finally {
    process.umask(umask);
  }
  server.once('listening', () => chmodSync(path, 0o600));
  server.on('error', (err) => log.error({ err }, `backup control socket ${path}`));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What `crm backup` does while a server runs: asks it for the archive and writes it into `out`. */
export async function requestBackup(config: Config, out: Writable): Promise<void> {
  const path = controlSocketPath(config);
  const at = reachable(path);
  if (!at)
    throw new Error(
      `the control socket path ${path} is too long for a unix socket: run crm backup from a directory nearer it`,
    );
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(at);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
  socket.write(`${JSON.stringify({ op: 'backup' })}\n`);
  const chunks = socket[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let head = Buffer.alloc(0);
  let nl = -1;
  while (nl === -1) {
    const next = await chunks.next();
    if (next.done) throw new Error('the server closed the control channel without an answer (see its log)');
    head = Buffer.concat([head, next.value]);
    nl = head.indexOf(10);
    if (nl === -1 && head.length > 4096)
      throw new Error('the control channel answered something else than a server');
  }
  const answer = JSON.parse(head.subarray(0, nl).toString('utf8')) as { ok: boolean; error?: string };
  if (!answer.ok) {
    socket.destroy();
    throw new Error(`the server refused the backup: ${answer.error}`);
  }
  const first = head.subarray(nl + 1);
  // A server that fails mid-way closes the channel: the archive then lacks its end, which the check after
  // writing (crm backup reads the file back) reports.
  await pipeline(async function* () {
    if (first.length) yield first;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      yield next.value;
    }
  }, out);
}

// ---- scheduled backups

export const SCHEDULED_PREFIX = 'crm-backup-';

export const backupDir = (config: Pick<Config, 'CRM_DATA_DIR' | 'CRM_BACKUP_DIR'>) =>
  config.CRM_BACKUP_DIR ?? join(config.CRM_DATA_DIR, 'backups');

/** `crm-backup-2026-11-27T17-30-00-123Z.tar.gz`: sorts in time order, no characters a shell or Windows minds. */
export const scheduledName = (at: Date) =>
  `${SCHEDULED_PREFIX}${at.toISOString().replace(/[:.]/g, '-')}.tar.gz`;

/**
 * Every CRM_BACKUP_INTERVAL seconds after the previous one finished (so runs never overlap), a backup into
 * backupDir (temp file, then rename), then the scheduled backups beyond CRM_BACKUP_KEEP removed, oldest first.
 * Only files named by the schedule are ever removed. A log line per backup.
 */
function startSchedule(config: Config, backup: BackupService['backup'], log: FastifyBaseLogger) {
  const dir = backupDir(config);
  const intervalMs = config.CRM_BACKUP_INTERVAL! * 1000;
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    const started = Date.now();
    const file = join(dir, scheduledName(new Date(started)));
    try {
      const manifest = await writeFileAtomically(file, (out) => backup(out));
      const removed = await rotate(dir, config.CRM_BACKUP_KEEP);
      log.info(
        {
          backup: file,
          ms: Date.now() - started,
          snapshotMs: manifest.snapshotMs,
          files: manifest.files.length,
          removed,
        },
        'scheduled backup written',
      );
    } catch (err) {
      log.error({ err, backup: file }, 'scheduled backup failed');
    }
  };
  const plan = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(() => {
        running = undefined;
        plan();
      });
    }, intervalMs);
    timer.unref();
  };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  plan();
  log.info(
    `scheduled backups every ${config.CRM_BACKUP_INTERVAL}s into ${dir}, keeping ${config.CRM_BACKUP_KEEP}`,
  );
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** Removes the scheduled backups beyond the newest `keep`; answers the names removed. */
export async function rotate(dir: string, keep: number): Promise<string[]> {
  const names = (await readdir(dir))
    .filter((n) => n.startsWith(SCHEDULED_PREFIX) && n.endsWith('.tar.gz'))
    .sort();
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const name of old) await unlink(join(dir, name)).catch(() => {});
  return old;
}
