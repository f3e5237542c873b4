import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { modules } from '../../src/modules.js';
import { type Database, queryRows } from '../../src/platform/db/client.js';
import { migrateDatabase } from '../../src/platform/db/migrate.js';
import { scratchDatabase } from '../helpers/pg-admin.js';

/**
 * The LEAKPROOF marks the migration puts on pg_catalog's functions (textlike, arraycontains, …: without them RLS
 * keeps every search off its index) live in the database's catalog, which a dump does not carry: a restore into a
 * new cluster has the service's fingerprint but not the marks. The next start as a superuser must see that and put
 * them back, not take the fast path (src/platform/db/migrate.ts, docs/postgresql.md). PostgreSQL only: PGlite's
 * catalog is the data directory itself.
 */
const serverUrl = process.env.DATABASE_URL;
const dbName = `crm_leakproof_${process.pid}`;

const marks = (db: Database) =>
  queryRows<{ name: string; leakproof: boolean }>(
    db.system,
    sql`select p.oid::regprocedure::text as name, p.proleakproof as leakproof from pg_proc p
        where p.oid in (to_regprocedure('textlike(text,text)'), to_regprocedure('arraycontains(anyarray,anyarray)'),
                        to_regprocedure('public.crm_trgm_keys(bigint,text)'))
        order by 1`,
  );

describe.skipIf(!serverUrl)('LEAKPROOF marks after a restore (PostgreSQL)', () => {
  let db: Database;
  let scratch: Awaited<ReturnType<typeof scratchDatabase>> | undefined;

  beforeAll(async () => {
    scratch = await scratchDatabase(serverUrl!, dbName);
    db = scratch.db;
    await migrateDatabase(db, modules);
  });

  afterAll(async () => {
    await scratch?.drop();
  });

  test('marks lost behind the service are put back at the next start', async () => {
    expect((await marks(db)).map((m) => m.leakproof)).toEqual([true, true, true]);
    // What a dump restored into a new cluster looks like: pg_catalog's functions as the cluster made them.
    await db.system.execute(sql.raw('alter function textlike(text,text) not leakproof'));
    await db.system.execute(sql.raw('alter function arraycontains(anyarray,anyarray) not leakproof'));
    expect((await marks(db)).filter((m) => !m.leakproof)).toHaveLength(2);
    await migrateDatabase(db, modules);
    expect(await marks(db)).toEqual([
      { name: 'arraycontains(anyarray,anyarray)', leakproof: true },
      { name: 'crm_trgm_keys(bigint,text)', leakproof: true },
      { name: 'textlike(text,text)', leakproof: true },
    ]);
  });
});
