import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { describe, expect, test } from 'vitest';
import { queryRows } from '../../src/platform/db/client.js';
import { firstQueryBegin } from '../../src/platform/db/first-query-begin.js';
import { getApp, newTenant } from '../helpers/app.js';

const onPostgres = !!process.env.DATABASE_URL;

/** Socket writes of a pooled client while `fn` runs (the stream's write and writev, corked or not). */
async function writesDuring(client: pg.PoolClient, fn: () => Promise<unknown>) {
  const stream = (client as unknown as { connection: { stream: Record<string, unknown> } }).connection.stream;
  const own = ['_write', '_writev'] as const;
  const saved = own.map((k) => stream[k]);
  let writes = 0;
  for (const k of own)
    if (typeof stream[k] === 'function') {
      const original = stream[k] as (...a: unknown[]) => unknown;
      stream[k] = function (this: unknown, ...a: unknown[]) {
        writes++;
        return original.apply(this, a);
      };
    }
  try {
    await fn();
  } finally {
    own.forEach((k, i) => {
      stream[k] = saved[i];
    });
  }
  return writes;
}

describe.skipIf(!onPostgres)('a tenant transaction opens with its first statement (PostgreSQL)', () => {
  test('begin, the settings and the first statement leave in one write; the statement sees the settings', async () => {
    const { db } = await getApp();
    const client = await db.pool!.connect();
    try {
      const opening = firstQueryBegin(
        client,
        `begin; select set_config('app.organization_id', '4242', true)`,
      );
      expect(opening.begun).toBe(false);
      let seen: unknown;
      const writes = await writesDuring(client, async () => {
        const res = await opening.client.query(
          `select current_setting('app.organization_id') as org, now() = statement_timestamp() as fresh`,
        );
        seen = res.rows[0];
      });
      expect(writes).toBe(1);
      expect(opening.begun).toBe(true);
      expect(opening.beginError).toBeUndefined();
      expect((seen as { org: string }).org).toBe('4242');
      // In the transaction: the settings are local to it and end with it.
      const inTx = await opening.client.query('select now() <> statement_timestamp() as open');
      expect(inTx.rows[0].open).toBe(true);
      await opening.client.query('commit');
      opening.done();
      expect((client as unknown as { pipeline: boolean }).pipeline).toBe(false);
      const after = await client.query(`select current_setting('app.organization_id', true) as org`);
      expect(after.rows[0].org ?? '').toBe('');
    } finally {
      client.release();
    }
  });

  test('settings that fail abort the transaction: the first statement does not run, the error is kept', async () => {
    const { db } = await getApp();
    const client = await db.pool!.connect();
    try {
      const opening = firstQueryBegin(client, 'begin; select 1 / 0');
      await expect(
        opening.client.query('create temporary table first_query_begin_probe (x int)'),
      ).rejects.toMatchObject({ code: '25P02' });
      expect((opening.beginError as { code?: string }).code).toBe('22012');
      await opening.client.query('rollback');
      opening.done();
      const [{ exists }] = (
        await client.query(`select to_regclass('pg_temp.first_query_begin_probe') is not null as exists`)
      ).rows;
      expect(exists).toBe(false);
    } finally {
      client.release();
    }
  });

  test('tenantTransaction: a failing statement rolls back, a transaction without statements opens none', async () => {
    const { db } = await getApp();
    const t = await newTenant();
    const [{ id: orgId }] = await queryRows<{ id: number }>(
      db.system,
      sql`select id from organizations where slug = ${t.slug}`,
    );
    await expect(
      db.tenantTransaction(orgId, async (tx) => {
        await tx.execute(sql`select 1`);
        await tx.execute(sql`select 1 / 0`);
      }),
    ).rejects.toMatchObject({ cause: { code: '22012' } });
    expect(await db.tenantTransaction(orgId, async () => 'nothing read')).toBe('nothing read');
    const [row] = await db.tenantTransaction(orgId, (tx) =>
      queryRows<{ org: string; role: string }>(
        tx,
        sql`select current_setting('app.organization_id') as org, current_user as role`,
      ),
    );
    expect(row).toStrictEqual({ org: String(orgId), role: 'crm_app' });
  });
});
