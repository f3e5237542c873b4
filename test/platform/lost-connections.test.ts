import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Database, queryRows } from '../../src/platform/db/client.js';
import { listenForEvents } from '../../src/platform/events/wake.js';
import { scratchDatabase, withDatabase } from '../helpers/pg-admin.js';

/**
 * Connections the server ends (a restart, an administrator, a pooler's timeout) do not end the process: an idle
 * pooled connection is dropped and replaced, a listening connection is replaced after a second. Without the pool's
 * 'error' listener, node-pg's event would be an uncaught exception (vitest reports it as an error of this file).
 * PostgreSQL only (DATABASE_URL), in a database of its own so that only its own connections are ended.
 */
const serverUrl = process.env.DATABASE_URL;
const dbName = `crm_lost_connections_${process.pid}`;

describe.skipIf(!serverUrl)('connections the server ends', () => {
  let db: Database;
  let scratch: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
  let admin: pg.Client;
  beforeAll(async () => {
    scratch = await scratchDatabase(serverUrl!, dbName);
    db = scratch.db;
    admin = new pg.Client({ connectionString: withDatabase(serverUrl!, 'postgres') });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await scratch?.drop();
  });

  const terminate = (pids: number[]) =>
    admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [pids]);

  test('an idle pooled connection ended by the server is replaced; queries go on', async () => {
    const [{ pid }] = await queryRows<{ pid: number }>(db.system, sql`select pg_backend_pid() as pid`);
    await terminate([pid]);
    await new Promise((r) => setTimeout(r, 300));
    const [{ pid: next }] = await queryRows<{ pid: number }>(db.system, sql`select pg_backend_pid() as pid`);
    expect(next).not.toBe(pid);
  });

  test('a listening connection ended by the server is replaced and hears again', async () => {
    let heard = 0;
    const stop = await listenForEvents(db, () => heard++);
    try {
      heard = 0;
      const listening = await admin.query<{ pid: number }>(
        `select pid from pg_stat_activity where query like 'LISTEN %' and datname = $1`,
        [dbName],
      );
      expect(listening.rows.length).toBeGreaterThan(0);
      await terminate(listening.rows.map((r) => r.pid));
      // Replaced after a second; the new connection makes one pass for what it may have missed.
      const deadline = Date.now() + 10_000;
      while (heard === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(heard).toBeGreaterThan(0);
    } finally {
      await stop();
    }
  });
});
