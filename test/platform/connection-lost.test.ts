import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Database, openDatabase } from '../../src/platform/db/client.js';

/**
 * A connection lost while checked out from the pool (PgBouncer or the server restarting mid-transaction) fails the
 * statement in flight and nothing else: before, its client's 'error' event had no listener and ended the process
 * (found by scripts/cluster/faults.ts: one PgBouncer restart stopped every API process). PostgreSQL only.
 */
const url = process.env.DATABASE_URL;
let db: Database;

beforeAll(async () => {
  if (url) db = await openDatabase({ databaseUrl: url, dataDir: 'memory://', poolSize: 2 });
});
afterAll(async () => {
  await db?.close();
});

test.skipIf(!url)(
  'a checked-out connection terminated by the server fails its statement, not the process',
  async () => {
    const pool = db.pool as import('pg').Pool;
    const client = await pool.connect();
    const { rows } = await client.query('select pg_backend_pid() as pid');
    const running = client.query('select pg_sleep(10)').then(
      () => null,
      (err: Error) => err,
    );
    await new Promise((r) => setTimeout(r, 200));
    await pool.query('select pg_terminate_backend($1)', [rows[0].pid]);
    expect((await running)?.message).toMatch(/terminating connection/);
    // Let the connection's 'end' (and its 'error' event) arrive before the client goes back.
    await new Promise((r) => setTimeout(r, 200));
    client.release();
    // The pool goes on with a new connection.
    const again = await pool.query('select 1 as one');
    expect(again.rows[0].one).toBe(1);
  },
);
