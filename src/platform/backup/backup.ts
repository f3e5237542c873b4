import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { mkdir, open, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Config, databaseOptions } from '../../config.js';
import type { Database } from '../db/client.js';
import { documentIdPattern } from '../db/ids.js';
import { buildMigrations } from '../db/migrate.js';
import { SOFTWARE_VERSION } from '../version.js';
import { TarWriter, type WrittenFile } from './tar.js';

/**
 * Backups of both backends in one format (docs/backups.md): a gzipped tar holding the database
 * (`database/pgdata.tar`, the embedded database's data directory, or `database/postgres.dump`, pg_dump's custom
 * format), the uploaded files (`uploads/<organization id>/<file documentId>`) and, last, `manifest.json`:
 * software version, schema migration, backend, time, and every other entry with its size and sha256, checked
 * on restore.
 */

const run = promisify(execFile);

export const BACKUP_FORMAT = 'crm-backup';
export const BACKUP_FORMAT_VERSION = 1;
/** The embedded database's data directory, file by file (its empty directories too: PostgreSQL needs them). */
export const PGLITE_ENTRY = 'database/pgdata';
export const POSTGRES_ENTRY = 'database/postgres.dump';

export interface SchemaVersion {
  /** The last migration's tag (drizzle/meta/_journal.json), e.g. `0000_init`. */
  migration: string;
  /** Its `when` (drizzle records it as the migration's created_at, and migrates what is newer). */
  when: number;
  /** Migrations applied. */
  count: number;
}

export interface Manifest {
  format: typeof BACKUP_FORMAT;
  formatVersion: number;
  software: string;
  backend: 'pglite' | 'postgres';
  schema: SchemaVersion;
  createdAt: string;
  database: { path: string; tool: string; serverVersion?: string };
  /** How long the embedded database was held for the snapshot (its writes waited that long). */
  snapshotMs: number;
  files: WrittenFile[];
}

/** The schema this build migrates to: its last migration. */
export function buildSchemaVersion(): SchemaVersion {
  const entries = buildMigrations();
  const last = entries[entries.length - 1]!;
  return { migration: last.tag, when: last.when, count: entries.length };
}

/** The schema a database is at: the last migration drizzle recorded in it (null: never migrated). */
export async function databaseSchemaVersion(db: Database): Promise<SchemaVersion | null> {
  return schemaVersionOf(
    async (text) => ((await db.system.execute(sql.raw(text))) as unknown as { rows: any[] }).rows,
  );
}

async function schemaVersionOf(query: (text: string) => Promise<any[]>): Promise<SchemaVersion | null> {
  const exists = await query("select to_regclass('drizzle.__drizzle_migrations') is not null as ok");
  if (!exists[0]?.ok) return null;
  const [row] = await query(
    'select max(created_at)::text as "when", count(*)::int as count from drizzle.__drizzle_migrations',
  );
  if (!row?.when) return null;
  const when = Number(row.when);
  const tag =
    buildMigrations().find((e) => e.when === when)?.tag ??
    `unknown migration of ${new Date(when).toISOString()}`;
  return { migration: tag, when, count: Number(row.count) };
}

// ---- uploaded files

export const uploadsRoot = (config: Pick<Config, 'CRM_DATA_DIR'>) => join(config.CRM_DATA_DIR, 'uploads');

/**
 * Hard-links every stored upload (`<org>/<documentId>`, the only names uploads get) into `staging`, synchronously:
 * called while the snapshot holds the database, so no file a snapshot row references can be removed before it is
 * linked (files are removed only after the delete of their row committed). A link costs no copy; across
 * file systems it falls back to copying.
 */
export function linkUploads(uploads: string, staging: string): string[] {
  const linked: string[] = [];
  let orgs: string[];
  try {
    orgs = readdirSync(uploads);
  } catch {
    return linked;
  }
  for (const org of orgs.filter((d) => /^[1-9]\d{0,15}$/.test(d))) {
    let names: string[];
    try {
      names = readdirSync(join(uploads, org));
    } catch {
      continue;
    }
    mkdirSync(join(staging, org), { recursive: true });
    for (const name of names.filter((n) => documentIdPattern.test(n))) {
      const from = join(uploads, org, name);
      const to = join(staging, org, name);
      try {
        linkSync(from, to);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') continue; // removed meanwhile: its row was gone before the snapshot
        if (code !== 'EXDEV' && code !== 'EPERM') throw err;
        copyFileSync(from, to);
      }
      linked.push(`${org}/${name}`);
    }
  }
  return linked;
}

// ---- the snapshots

interface Snapshot {
  backend: 'pglite' | 'postgres';
  schema: SchemaVersion;
  database: {
    dataDir?: { files: DataFile[]; dirs: string[] };
    file?: string;
    tool: string;
    serverVersion?: string;
  };
  /** Upload keys linked into `<staging>/uploads`. */
  uploads: string[];
  snapshotMs: number;
}

/** A file of the embedded database's data directory, read while the snapshot holds the database. */
interface DataFile {
  rel: string;
  data: Buffer;
  mtime: Date;
}

/** Belong to the process that has the directory open, never to a copy. */
const PROCESS_FILES = new Set(['.crm.lock', 'postmaster.pid']);

function readDataDir(dir: string): { files: DataFile[]; dirs: string[] } {
  const files: DataFile[] = [];
  const dirs: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        dirs.push(path);
        walk(path);
      } else if (e.isFile() && !PROCESS_FILES.has(path)) {
        const full = join(dir, path);
        files.push({ rel: path, data: readFileSync(full), mtime: statSync(full).mtime });
      }
    }
  };
  walk('');
  return { files, dirs };
}

/** A simple-query protocol message (PGlite's execProtocol takes no lock: for use under the locks held). */
function queryMessage(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`);
  const msg = Buffer.alloc(5 + body.length);
  msg.write('Q', 0, 'latin1');
  msg.writeInt32BE(4 + body.length, 1);
  body.copy(msg, 5);
  return new Uint8Array(msg);
}

/**
 * The embedded database, in the process that holds it. PGlite runs one statement at a time: every query and
 * transaction first takes its transaction mutex (a drizzle transaction holds it from BEGIN to COMMIT), then
 * its query mutex (pglite/src/base.ts). Holding both, no transaction is open and nothing writes: a CHECKPOINT
 * writes every change to the data files, then the data directory is read into memory and the uploads are
 * linked, and the locks are released. That copy is the state after the last commit, a cleanly checkpointed
 * directory. (PGlite's own dumpDataDir takes only the query mutex, so it could copy the files between two
 * statements of an open transaction, and packs a tar in memory while it holds it: measured 2 to 4 times slower
 * than reading the files, docs/backups.md.) A CHECKPOINT before taking the locks keeps the one under them short.
 */
async function snapshotPglite(db: Database, config: Config, staging: string): Promise<Snapshot> {
  const pglite = db.pglite!;
  const schema = await databaseSchemaVersion(db);
  if (!schema) throw new Error('the embedded database has never been migrated: nothing to back up');
  const dataDir = databaseOptions(config).dataDir;
  await pglite.exec('CHECKPOINT');
  const internals = pglite as unknown as { _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> };
  let snapshotMs = 0;
  const { copy, uploads } = await internals._runExclusiveTransaction(() =>
    pglite.runExclusive(async () => {
      const started = performance.now();
      await pglite.execProtocol(queryMessage('CHECKPOINT'));
      const copy = readDataDir(dataDir);
      const uploads = linkUploads(uploadsRoot(config), join(staging, 'uploads'));
      snapshotMs = performance.now() - started;
      return { copy, uploads };
    }),
  );
  return {
    backend: 'pglite',
    schema,
    database: { dataDir: copy, tool: 'PGlite data directory' },
    uploads,
    snapshotMs,
  };
}

/** A PostgreSQL client program (pg_dump, pg_restore) no older than the server: Debian's versioned one first. */
export async function pgTool(
  name: 'pg_dump' | 'pg_restore',
  serverMajor: number,
): Promise<{ path: string; version: string }> {
  const candidates = [`/usr/lib/postgresql/${serverMajor}/bin/${name}`, name];
  for (const path of candidates) {
    if (path.includes('/') && !existsSync(path)) continue;
    try {
      const { stdout } = await run(path, ['--version']);
      const version = stdout.trim();
      const major = Number(/(\d+)(?:\.\d+)?/.exec(version.replace(/^[^)]*\)\s*/, ''))?.[1]);
      if (major >= serverMajor) return { path, version };
      throw new Error(
        `${name} is version ${major} (${version}) and the PostgreSQL server is ${serverMajor}: ${name} must be at least the server's version. Install the matching client (Debian: apt-get install postgresql-client-${serverMajor}).`,
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
  }
  throw new Error(
    `${name} was not found: backups and restores on PostgreSQL use PostgreSQL's own tools. Install the client of the server's version (Debian: apt-get install postgresql-client-${serverMajor}).`,
  );
}

export async function serverMajor(client: pg.Client | pg.Pool): Promise<{ major: number; version: string }> {
  const res = await client.query<{ n: string; v: string }>(
    "select current_setting('server_version_num') as n, current_setting('server_version') as v",
  );
  return { major: Math.floor(Number(res.rows[0]!.n) / 10000), version: res.rows[0]!.v };
}

/**
 * PostgreSQL: pg_dump (the tool made for a consistent, restorable copy of everything: tables, sequences,
 * functions, triggers, policies, extensions, the job queue's schema) reading one snapshot. The snapshot is
 * exported by a REPEATABLE READ transaction that first locks card_files in SHARE mode: while it is held no file
 * row can be deleted or added, so the uploads linked then are exactly those the snapshot's rows reference (a
 * file is removed only after its row's delete commits). A second transaction adopts the snapshot and exports it
 * again for pg_dump, so the lock is released as soon as the links exist (milliseconds), not after the dump.
 */
async function snapshotPostgres(config: Config, staging: string): Promise<Snapshot> {
  const url = config.DATABASE_URL!;
  const holder = new pg.Client({ connectionString: url });
  const reader = new pg.Client({ connectionString: url });
  await holder.connect();
  await reader.connect();
  try {
    const server = await serverMajor(holder);
    const tool = await pgTool('pg_dump', server.major);
    await holder.query('begin isolation level repeatable read');
    await holder.query("set local lock_timeout = '60s'");
    await holder.query('lock table card_files in share mode');
    const first = await holder.query<{ s: string }>('select pg_export_snapshot() as s');
    const started = performance.now();
    const uploads = linkUploads(uploadsRoot(config), join(staging, 'uploads'));
    await reader.query('begin isolation level repeatable read read only');
    await reader.query(`set transaction snapshot '${first.rows[0]!.s.replace(/'/g, '')}'`);
    const second = await reader.query<{ s: string }>('select pg_export_snapshot() as s');
    await holder.query('commit');
    const snapshotMs = performance.now() - started;
    const schema = await readSchema(reader);
    if (!schema) throw new Error('the database has never been migrated: nothing to back up');
    const file = join(staging, 'postgres.dump');
    try {
      await run(
        tool.path,
        ['--format=custom', `--snapshot=${second.rows[0]!.s}`, '--file', file, '--dbname', url],
        {
          maxBuffer: 16 * 1024 * 1024,
        },
      );
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`pg_dump failed: ${(e.stderr || e.message).trim()}`);
    }
    await reader.query('commit');
    return {
      backend: 'postgres',
      schema,
      database: { file, tool: tool.version, serverVersion: server.version },
      uploads,
      snapshotMs,
    };
  } finally {
    await holder.end().catch(() => {});
    await reader.end().catch(() => {});
  }
}

function readSchema(client: pg.Client): Promise<SchemaVersion | null> {
  return schemaVersionOf(async (text) => (await client.query(text)).rows);
}

// ---- writing

/**
 * Takes a consistent snapshot of the database and the uploads and streams the archive into `out` (the file a
 * backup is written to, or the control channel's socket). Staging (upload links, pg_dump's file) lives in the
 * data directory, on the uploads' file system, and is removed after.
 */
export async function writeBackup(
  source: { db?: Database; config: Config },
  out: Writable,
): Promise<Manifest> {
  const { config } = source;
  const staging = join(config.CRM_DATA_DIR, `.backup-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(join(staging, 'uploads'), { recursive: true, mode: 0o700 });
  try {
    const snap = config.DATABASE_URL
      ? await snapshotPostgres(config, staging)
      : await snapshotPglite(source.db!, config, staging);
    const gzip = createGzip({ level: 6 });
    const piping = pipeline(gzip, out);
    const tar = new TarWriter(gzip);
    const files: WrittenFile[] = [];
    const createdAt = new Date();
    try {
      if (snap.database.dataDir) {
        for (const dir of snap.database.dataDir.dirs)
          await tar.addDirectory(`${PGLITE_ENTRY}/${dir}`, createdAt);
        for (const f of snap.database.dataDir.files)
          files.push(await tar.addBuffer(`${PGLITE_ENTRY}/${f.rel}`, f.data, f.mtime));
      } else {
        const info = await stat(snap.database.file!);
        files.push(await tar.addFile(POSTGRES_ENTRY, snap.database.file!, info.size, createdAt));
      }
      for (const key of snap.uploads) {
        const path = join(staging, 'uploads', key);
        const info = statSync(path);
        files.push(await tar.addFile(`uploads/${key}`, path, info.size, info.mtime));
      }
      const manifest: Manifest = {
        format: BACKUP_FORMAT,
        formatVersion: BACKUP_FORMAT_VERSION,
        software: SOFTWARE_VERSION,
        backend: snap.backend,
        schema: snap.schema,
        createdAt: createdAt.toISOString(),
        database: {
          path: snap.database.dataDir ? PGLITE_ENTRY : POSTGRES_ENTRY,
          tool: snap.database.tool,
          ...(snap.database.serverVersion ? { serverVersion: snap.database.serverVersion } : {}),
        },
        snapshotMs: Math.round(snap.snapshotMs),
        files,
      };
      await tar.addBuffer('manifest.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), createdAt);
      await tar.finish();
      await piping;
      return manifest;
    } catch (err) {
      gzip.destroy(err as Error);
      await piping.catch(() => {});
      throw err;
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Writes a file atomically: into a temporary file beside it (mode 0600: a backup holds every secret the
 * database does), flushed, then renamed over the target. A failure leaves no partial file.
 */
export async function writeFileAtomically<T>(
  target: string,
  produce: (out: Writable) => Promise<T>,
): Promise<T> {
  await mkdir(dirname(target), { recursive: true });
  const temp = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    const stream = createWriteStream(temp, { flags: 'wx', mode: 0o600 });
    const closed = new Promise<void>((resolve, reject) => {
      stream.once('close', resolve);
      stream.once('error', reject);
    });
    const result = await produce(stream);
    await closed;
    const handle = await open(temp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    return result;
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
}
