import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { describe, expect, test } from 'vitest';
import {
  commitWithNext,
  type Database,
  deferStatement,
  queryRows,
  type Tx,
} from '../../src/platform/db/client.js';
import { firstQueryBegin } from '../../src/platform/db/first-query-begin.js';
import { recordEvent } from '../../src/platform/events/outbox.js';
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

/** The shared database and a new organization with its id. */
async function newOrg() {
  const { db } = await getApp();
  const t = await newTenant();
  const [{ id: orgId }] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${t.slug}`,
  );
  return { db, t, orgId };
}

/** A transaction whose first statement carries its commit (commitWithNext), then `then`. */
const afterTheCommit = (db: Database, orgId: number, then: (tx: Tx) => Promise<unknown>) =>
  db.tenantTransaction(
    orgId,
    async (tx) => {
      commitWithNext(tx);
      await tx.execute(sql`select 1`);
      await then(tx);
    },
    { commitEarly: true },
  );

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
    const { db, orgId } = await newOrg();
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

  test('statements issued in the same turn share one write; a deferred one leaves with the next, before it', async () => {
    const { db } = await getApp();
    const client = await db.pool!.connect();
    try {
      const opening = firstQueryBegin(client, 'begin');
      await opening.client.query('create temporary table pipelined_probe (x int) on commit drop');
      const together = await writesDuring(client, () =>
        Promise.all([opening.client.query('select 1'), opening.client.query('select 2')]),
      );
      expect(together).toBe(1);
      opening.defer({ text: 'insert into pipelined_probe values ($1)', values: [7] });
      let seen: unknown;
      const writes = await writesDuring(client, async () => {
        seen = (await opening.client.query('select array_agg(x) as xs from pipelined_probe')).rows[0].xs;
      });
      expect(writes).toBe(1);
      expect(seen).toStrictEqual([7]);
      await opening.client.query('commit');
      opening.done();
    } finally {
      client.release();
    }
  });

  test('tenantTransaction: a deferred write leaves with the commit; its failure fails the transaction', async () => {
    const { db, t, orgId } = await newOrg();
    const subject = `probe:${t.slug}`;
    const events = () =>
      queryRows<{ data: unknown; depth: number }>(
        db.system,
        sql`select data, depth from domain_events where organization_id = ${orgId} and subject = ${subject}`,
      );
    // The event is the transaction's only statement: begin, the insert and the commit in one write.
    await db.tenantTransaction(orgId, (tx) =>
      recordEvent(tx, orgId, 'card.created', subject, { n: 1, s: 'a' }),
    );
    expect(await events()).toStrictEqual([{ data: { n: 1, s: 'a' }, depth: 0 }]);
    // A deferred write that fails: the transaction's statement before it is rolled back, its error is thrown.
    await expect(
      db.tenantTransaction(orgId, async (tx) => {
        await recordEvent(tx, orgId, 'card.created', subject, { n: 2 });
        await deferStatement(tx, sql`select 1 / 0`);
      }),
    ).rejects.toMatchObject({ code: '22012' });
    // …and the same when a statement runs after it (it fails as aborted; the deferred write's error is reported).
    await expect(
      db.tenantTransaction(orgId, async (tx) => {
        await recordEvent(tx, orgId, 'card.created', subject, { n: 3 });
        await deferStatement(tx, sql`select 1 / 0`);
        await tx.execute(sql`select 1`);
      }),
    ).rejects.toMatchObject({ code: '22012' });
    expect(await events()).toHaveLength(1);
  });

  test('commitWithNext: the commit leaves with the next statement, a statement after it is refused', async () => {
    const { db, t, orgId } = await newOrg();
    const subject = `early:${t.slug}`;
    const count = async () =>
      (
        await queryRows<{ n: number }>(
          db.system,
          sql`select count(*)::int as n from domain_events where organization_id = ${orgId} and subject = ${subject}`,
        )
      )[0].n;
    // Committed, with the read that carried the commit answered.
    const read = await db.tenantTransaction(
      orgId,
      async (tx) => {
        await recordEvent(tx, orgId, 'card.created', subject, {});
        commitWithNext(tx);
        return queryRows<{ org: string }>(tx, sql`select current_setting('app.organization_id') as org`);
      },
      { commitEarly: true },
    );
    expect(read).toStrictEqual([{ org: String(orgId) }]);
    expect(await count()).toBe(1);
    // A statement after the one that carried the commit fails, and runs nowhere.
    await expect(afterTheCommit(db, orgId, (tx) => tx.execute(sql`select 1`))).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/commitWithNext/) },
    });
    expect(await count()).toBe(1);
    // Without commitEarly (a dry run, an idempotent request) it is a no-op: the transaction still rolls back.
    await expect(
      db.tenantTransaction(orgId, async (tx) => {
        await recordEvent(tx, orgId, 'card.created', subject, {});
        commitWithNext(tx);
        await tx.execute(sql`select 1`);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await count()).toBe(1);
  });

  test('end: one commit when nothing followed commitWithNext; nothing runs after the end; no write after the commit', async () => {
    const { db } = await getApp();
    const client = await db.pool!.connect();
    const notices: string[] = [];
    const onNotice = (n: { message?: string }) => notices.push(String(n.message));
    client.on('notice', onNotice);
    try {
      const opening = firstQueryBegin(client, 'begin');
      await opening.client.query('select 1');
      opening.commitWithNext();
      // No statement followed: end sends the one commit (a second would warn "no transaction in progress").
      await opening.end('commit');
      expect(() => opening.client.query('select 2')).toThrow(/after its commit/);
      expect(() => opening.defer({ text: 'select 3', values: [] })).toThrow(/after its commit/);
      expect(opening.end('rollback')).toBeUndefined();
      opening.done();
      const second = firstQueryBegin(client, 'begin');
      await second.client.query('select 1');
      await second.end('rollback');
      expect(() => second.client.query('select 2')).toThrow(/after its rollback/);
      second.done();
      await client.query('select 1');
      expect(notices).toStrictEqual([]);
    } finally {
      client.off('notice', onNotice);
      client.release();
    }
  });

  test('tenantTransaction: a deferred write after the statement that carried the commit fails loudly', async () => {
    const { db, t, orgId } = await newOrg();
    await expect(
      afterTheCommit(db, orgId, (tx) => recordEvent(tx, orgId, 'card.created', `late:${t.slug}`, {})),
    ).rejects.toThrow(/deferred write after the statement its commit was sent with/);
  });
});
