import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { modules } from '../../src/modules.js';
import { type Database, openDatabase, queryRows } from '../../src/platform/db/client.js';
import {
  buildMigrations,
  DatabaseNewerThanBuildError,
  migrateDatabase,
} from '../../src/platform/db/migrate.js';
import { SOFTWARE_VERSION } from '../../src/platform/version.js';
import { adminQuery, withDatabase } from '../helpers/pg-admin.js';

/**
 * An older build started on a database a newer build migrated refuses to start, naming both versions, before
 * the fingerprint fast path; the CLI prints the message, not a stack. On the backend of the suite: a data
 * directory of its own on PGlite, a database of its own on PostgreSQL (DATABASE_URL).
 */
const run = promisify(execFile);
const bin = join(import.meta.dirname, '../../bin/crm.js');
const serverUrl = process.env.DATABASE_URL;
const dbName = `crm_downgrade_${process.pid}`;
const dataDir = mkdtempSync(join(tmpdir(), 'crm-downgrade-'));
const databaseUrl = serverUrl ? withDatabase(serverUrl, dbName) : undefined;
const newest = buildMigrations().at(-1)!;
const future = { hash: 'f'.repeat(64), when: newest.when + 86_400_000 };

const admin = (statement: string) => adminQuery(serverUrl!, statement);

const open = () => openDatabase({ databaseUrl, dataDir: join(dataDir, 'db'), poolSize: 2 });

async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await open();
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function crm(args: string[]) {
  const env = {
    ...process.env,
    CRM_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? '',
    PORT: '0',
    CRM_LOG_LEVEL: 'silent',
  };
  if (!databaseUrl) delete (env as Record<string, string | undefined>).DATABASE_URL;
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

beforeAll(async () => {
  if (serverUrl) {
    await admin(`drop database if exists ${dbName} with (force)`);
    await admin(`create database ${dbName}`);
  }
}, 60_000);

afterAll(async () => {
  if (serverUrl) await admin(`drop database if exists ${dbName} with (force)`);
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`downgrade refusal (${serverUrl ? 'PostgreSQL' : 'PGlite'})`, () => {
  test('a migration records the software version and newest migration; a newer database is refused', async () => {
    await withDb(async (db) => {
      await migrateDatabase(db, modules);
      const [state] = await queryRows<{ software_version: string; last_migration: string }>(
        db.system,
        sql`select software_version, last_migration from crm_schema_state where id = 1`,
      );
      expect(state).toEqual({ software_version: SOFTWARE_VERSION, last_migration: newest.tag });
      // A second start takes the fast path and still passes the check.
      await migrateDatabase(db, modules);
      // What a newer build leaves: one more migration row, its version and migration in the state row. The
      // fingerprint still matches this build, so only a check ahead of the fast path sees it.
      await db.system.execute(
        sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${future.hash}, ${future.when})`,
      );
      await db.system.execute(
        sql`update crm_schema_state set software_version = '9.1.0', last_migration = '0042_future' where id = 1`,
      );
      const refused = await migrateDatabase(db, modules).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(DatabaseNewerThanBuildError);
      const message = (refused as Error).message;
      expect(message).toContain('last migrated by crm-service 9.1.0 (newest migration 0042_future)');
      expect(message).toContain(`this build is crm-service ${SOFTWARE_VERSION}`);
      expect(message).toContain(`whose newest migration is ${newest.tag}`);
      expect(message).toContain(`one made at ${new Date(future.when).toISOString()}`);
      // Nothing was written: the state row still names the newer build.
      const [after] = await queryRows<{ software_version: string }>(
        db.system,
        sql`select software_version from crm_schema_state where id = 1`,
      );
      expect(after.software_version).toBe('9.1.0');
    });
  });

  test('`crm migrate` and `crm serve` print the message and exit 1, without a stack', async () => {
    for (const args of [['migrate'], ['serve']]) {
      const res = await crm(args);
      expect(res.code, `${args[0]}: ${res.stdout} ${res.stderr}`).toBe(1);
      expect(res.stderr).toMatch(/^crm: This database was last migrated by crm-service 9\.1\.0 /);
      expect(res.stderr).toContain(`this build is crm-service ${SOFTWARE_VERSION}`);
      expect(res.stderr).not.toMatch(/\n\s+at /);
      expect(res.stdout).not.toContain('listening on');
    }
  }, 120_000);

  test('a released migration applied with other SQL is refused too; without unknown rows the build starts', async () => {
    await withDb(async (db) => {
      await db.system.execute(sql`delete from drizzle.__drizzle_migrations where hash = ${future.hash}`);
      await db.system.execute(
        sql`update drizzle.__drizzle_migrations set hash = ${'0'.repeat(64)} where created_at = ${newest.when}`,
      );
      await expect(migrateDatabase(db, modules)).rejects.toThrow(`${newest.tag} with different SQL`);
      await db.system.execute(
        sql`update drizzle.__drizzle_migrations set hash = ${newest.hash} where created_at = ${newest.when}`,
      );
      await migrateDatabase(db, modules);
      const [state] = await queryRows<{ software_version: string }>(
        db.system,
        sql`select software_version from crm_schema_state where id = 1`,
      );
      expect(state.software_version).toBe(SOFTWARE_VERSION);
    });
  });
});
