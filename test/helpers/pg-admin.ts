import pg from 'pg';
import { openDatabase } from '../../src/platform/db/client.js';

/** The same PostgreSQL server's URL with another database name. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * One statement on the `postgres` database of the server `url` points at (create or drop a test's own database),
 * on a connection of its own.
 */
export async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A test's own empty database `name` on the server `url` (dropped first if a crashed run left it), opened with a
 * pool of two; `drop` closes it and drops the database.
 */
export async function scratchDatabase(url: string, name: string) {
  await adminQuery(url, `drop database if exists ${name} with (force)`);
  await adminQuery(url, `create database ${name}`);
  const db = await openDatabase({ databaseUrl: withDatabase(url, name), dataDir: 'memory://', poolSize: 2 });
  return {
    db,
    async drop() {
      await db.close();
      await adminQuery(url, `drop database if exists ${name} with (force)`);
    },
  };
}
