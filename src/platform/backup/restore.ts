import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import pg from 'pg';
import type { Config } from '../../config.js';
import { DatabaseLockedError, lockDataDir, openDatabase } from '../db/client.js';
import { migrateDatabase } from '../db/migrate.js';
import type { ModuleRegistration } from '../modules.js';
import { SOFTWARE_VERSION } from '../version.js';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  buildSchemaVersion,
  type Manifest,
  PGLITE_ENTRY,
  POSTGRES_ENTRY,
  pgTool,
  serverMajor,
  uploadsRoot,
} from './backup.js';
import { readTar } from './tar.js';

/** The names a backup may hold: anything else (a path outside, a link) is refused before it is written. */
const ENTRY =
  /^(manifest\.json|database\/postgres\.dump|database\/pgdata(\/[A-Za-z0-9_][A-Za-z0-9_.-]*)+|uploads\/[1-9]\d{0,15}\/[a-z0-9]{24})$/;

export class BackupRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupRefusedError';
  }
}

/**
 * Reads a backup through, checks every entry against the manifest (size and sha256, nothing missing, nothing
 * more) and answers the manifest; with `dest`, writes the entries under it.
 */
export async function readBackup(file: string, dest?: string): Promise<Manifest> {
  const seen = new Map<string, { size: number; sha256: string }>();
  let manifestText: string | undefined;
  const source = createReadStream(file).pipe(createGunzip());
  try {
    for await (const entry of readTar(source)) {
      const path = entry.path.replace(/\/$/, '');
      if (!ENTRY.test(path)) throw new BackupRefusedError(`${file} holds an unexpected entry: ${entry.path}`);
      if (entry.type === 'directory') {
        if (dest) await mkdir(join(dest, path), { recursive: true, mode: 0o700 });
        continue;
      }
      if (!ENTRY.test(entry.path))
        throw new BackupRefusedError(`${file} holds an unexpected entry: ${entry.path}`);
      if (seen.has(entry.path) || (entry.path === 'manifest.json' && manifestText !== undefined))
        throw new BackupRefusedError(`${file} holds ${entry.path} twice`);
      if (entry.path === 'manifest.json') {
        if (entry.size > 64 * 1024 * 1024) throw new BackupRefusedError('the manifest is implausibly large');
        const parts: Buffer[] = [];
        for await (const c of entry.body) parts.push(Buffer.from(c));
        manifestText = Buffer.concat(parts).toString('utf8');
        continue;
      }
      const hash = createHash('sha256');
      let size = 0;
      const out = dest ? join(dest, entry.path) : undefined;
      if (out) await mkdir(dirname(out), { recursive: true, mode: 0o700 });
      await pipeline(
        entry.body,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const c of chunks) {
            hash.update(c);
            size += c.length;
            if (out) yield c;
          }
        },
        out
          ? createWriteStream(out, { mode: 0o600 })
          : async (it: AsyncIterable<Buffer>) => {
              for await (const _ of it);
            },
      );
      seen.set(entry.path, { size, sha256: hash.digest('hex') });
    }
  } catch (err) {
    if (err instanceof BackupRefusedError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BackupRefusedError(`${file}: no such file`);
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR')
      throw new BackupRefusedError(`${file} is not a crm backup (not gzip data, or cut short)`);
    throw new BackupRefusedError(`${file} is not a complete crm backup: ${(err as Error).message}`);
  }
  if (manifestText === undefined)
    throw new BackupRefusedError(`${file} is not a crm backup (no manifest.json)`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(manifestText) as Manifest;
  } catch {
    throw new BackupRefusedError(`${file}: manifest.json is not JSON`);
  }
  if (manifest.format !== BACKUP_FORMAT || !Array.isArray(manifest.files))
    throw new BackupRefusedError(`${file} is not a crm backup (manifest format ${String(manifest.format)})`);
  if (manifest.formatVersion > BACKUP_FORMAT_VERSION)
    throw new BackupRefusedError(
      `${file} was written in backup format ${manifest.formatVersion} by crm-service ${manifest.software}; this build (${SOFTWARE_VERSION}) reads format ${BACKUP_FORMAT_VERSION}: restore it with crm-service ${manifest.software} or later`,
    );
  for (const f of manifest.files) {
    const got = seen.get(f.path);
    if (!got) throw new BackupRefusedError(`${file} is damaged: ${f.path} is missing`);
    if (got.size !== f.size || got.sha256 !== f.sha256)
      throw new BackupRefusedError(`${file} is damaged: ${f.path} does not match its sha256 in the manifest`);
    seen.delete(f.path);
  }
  if (seen.size)
    throw new BackupRefusedError(`${file} is damaged: ${[...seen.keys()][0]} is not in the manifest`);
  return manifest;
}

function refuseNewerSchema(manifest: Manifest) {
  const build = buildSchemaVersion();
  if (manifest.schema.when > build.when)
    throw new BackupRefusedError(
      `This backup's schema is newer than this build: it was taken by crm-service ${manifest.software} at migration ${manifest.schema.migration}, and this build is crm-service ${SOFTWARE_VERSION}, whose newest migration is ${build.migration}. Restore it with crm-service ${manifest.software} or later.`,
    );
}

function refuseOtherBackend(manifest: Manifest, backend: 'pglite' | 'postgres') {
  const name = (b: string) => (b === 'pglite' ? 'the embedded database' : 'PostgreSQL');
  if (manifest.backend !== backend)
    throw new BackupRefusedError(
      `This is a backup of ${name(manifest.backend)} and this configuration uses ${name(backend)}${backend === 'postgres' ? ' (DATABASE_URL is set)' : ' (DATABASE_URL is not set)'}: a backup restores into the backend it was taken from.`,
    );
}

const hasFiles = (dir: string) => {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).some((e) => e.isFile());
  } catch {
    return false;
  }
};

/** Puts `fresh` where `target` is, the old one moved into `trash` first (removed by the caller). */
async function swapIn(fresh: string, target: string, trash: string) {
  if (existsSync(target)) await rename(target, trash);
  if (existsSync(fresh)) await rename(fresh, target);
  else await mkdir(target, { recursive: true });
}

export interface RestoreResult {
  manifest: Manifest;
  /** Whether a database or uploads were replaced (--force). */
  replaced: boolean;
}

/**
 * `crm restore FILE [--force]`: into the embedded database of CRM_DATA_DIR, or DATABASE_URL's database, plus
 * the uploads directory; then migrates (a backup of an older schema is upgraded). Refuses: a server running on
 * the embedded data directory (or sessions on the PostgreSQL database), a database or uploads that are not
 * empty without `force`, a backup of a newer schema or of the other backend, a damaged backup.
 */
export async function restoreBackup(
  config: Config,
  file: string,
  force: boolean,
  /** What the restored database is migrated with (src/modules.ts). */
  modules: readonly ModuleRegistration[],
): Promise<RestoreResult> {
  return config.DATABASE_URL
    ? restorePostgres(config, file, force, modules)
    : restorePglite(config, file, force, modules);
}

async function restorePglite(
  config: Config,
  file: string,
  force: boolean,
  modules: readonly ModuleRegistration[],
): Promise<RestoreResult> {
  const dbDir = join(config.CRM_DATA_DIR, 'db');
  const uploads = uploadsRoot(config);
  const hadDb = existsSync(join(dbDir, 'PG_VERSION'));
  let release: () => void;
  try {
    release = lockDataDir(dbDir);
  } catch (err) {
    if (err instanceof DatabaseLockedError) {
      const pid = /pid (\d+)/.exec(err.message)?.[1];
      throw new BackupRefusedError(
        `A server (pid ${pid}) is running on the embedded database in ${dbDir}: stop it, then restore (a restore replaces the database the server holds open).`,
      );
    }
    throw err;
  }
  const work = join(config.CRM_DATA_DIR, `.restore-${process.pid}`);
  try {
    const occupied = hadDb || hasFiles(uploads);
    if (occupied && !force)
      throw new BackupRefusedError(
        `${config.CRM_DATA_DIR} already holds ${hadDb ? 'an embedded database' : 'uploaded files'}: crm restore --force replaces ${hadDb && hasFiles(uploads) ? 'them' : 'it'} with the backup (take a backup of it first if it matters).`,
      );
    await rm(work, { recursive: true, force: true });
    const manifest = await readBackup(file, work);
    refuseOtherBackend(manifest, 'pglite');
    refuseNewerSchema(manifest);
    const fresh = join(work, PGLITE_ENTRY);
    if (!existsSync(join(fresh, 'PG_VERSION')))
      throw new BackupRefusedError(`${file} holds no embedded database`);
    // Opened and migrated where it was unpacked: a backup that does not start never replaces anything.
    const db = await openDatabase({ dataDir: fresh });
    try {
      await migrateDatabase(db, modules);
    } finally {
      await db.close();
    }
    writeFileSync(join(fresh, '.crm.lock'), String(process.pid));
    await swapIn(fresh, dbDir, join(work, 'replaced-db'));
    await swapIn(join(work, 'uploads'), uploads, join(work, 'replaced-uploads'));
    return { manifest, replaced: occupied };
  } finally {
    await rm(work, { recursive: true, force: true });
    release();
  }
}

async function restorePostgres(
  config: Config,
  file: string,
  force: boolean,
  modules: readonly ModuleRegistration[],
): Promise<RestoreResult> {
  const url = config.DATABASE_URL!;
  const uploads = uploadsRoot(config);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let ended = false;
  const work = join(config.CRM_DATA_DIR, `.restore-${process.pid}`);
  try {
    const {
      rows: [info],
    } = await client.query<{ db: string; others: number; tables: number }>(
      `select current_database() as db,
              (select count(*)::int from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()) as others,
              (select count(*)::int from pg_class c join pg_namespace n on n.oid = c.relnamespace
                where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
                  and n.nspname not like 'pg\\_toast%') as tables`,
    );
    if (info!.others > 0)
      throw new BackupRefusedError(
        `${info!.others} other session(s) are connected to the database ${info!.db} (a running crm serve or crm worker?): stop them before restoring into it.`,
      );
    const occupied = info!.tables > 0 || hasFiles(uploads);
    if (occupied && !force)
      throw new BackupRefusedError(
        `The database ${info!.db} is not empty (${info!.tables} tables)${hasFiles(uploads) ? ` or ${uploads} holds files` : ''}: crm restore --force replaces its contents with the backup (take a backup of it first if it matters).`,
      );
    const server = await serverMajor(client);
    const tool = await pgTool('pg_restore', server.major);
    await rm(work, { recursive: true, force: true });
    const manifest = await readBackup(file, work);
    refuseOtherBackend(manifest, 'postgres');
    refuseNewerSchema(manifest);
    if (info!.tables > 0 || force) {
      // Everything of the database's own schemas goes (the job queue's and drizzle's too); public comes back
      // as a new database has it.
      const { rows } = await client.query<{ name: string }>(
        `select nspname as name from pg_namespace
          where nspname not like 'pg\\_%' and nspname <> 'information_schema'`,
      );
      await client.query('begin');
      for (const { name } of rows) await client.query(`drop schema "${name.replace(/"/g, '""')}" cascade`);
      await client.query('create schema public authorization pg_database_owner');
      await client.query('grant usage on schema public to public');
      await client.query('commit');
    }
    try {
      await new Promise<void>((resolve, reject) =>
        execFile(
          tool.path,
          [
            '--no-owner',
            '--no-privileges',
            '--exit-on-error',
            '--single-transaction',
            '--dbname',
            url,
            join(work, POSTGRES_ENTRY),
          ],
          { maxBuffer: 16 * 1024 * 1024 },
          (err, _stdout, stderr) =>
            err ? reject(new Error(`pg_restore failed: ${(stderr || err.message).trim()}`)) : resolve(),
        ),
      );
    } catch (err) {
      throw new BackupRefusedError((err as Error).message);
    }
    ended = true;
    await client.end();
    const db = await openDatabase({ databaseUrl: url, dataDir: '', poolSize: 2 });
    try {
      await migrateDatabase(db, modules);
    } finally {
      await db.close();
    }
    await swapIn(join(work, 'uploads'), uploads, join(work, 'replaced-uploads'));
    return { manifest, replaced: occupied };
  } finally {
    if (!ended) await client.end().catch(() => {});
    await rm(work, { recursive: true, force: true });
  }
}
