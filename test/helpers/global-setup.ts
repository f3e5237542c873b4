import { sql } from 'drizzle-orm';
import { modules } from '../../src/modules.js';
import { openDatabase } from '../../src/platform/db/client.js';
import { migrateDatabase } from '../../src/platform/db/migrate.js';

/** On PostgreSQL the workers share one database: migrate it once, before them. */
export default async function setup() {
  const url = process.env.DATABASE_URL;
  if (!url) return;
  const db = await openDatabase({ databaseUrl: url, dataDir: 'memory://' });
  try {
    await migrateDatabase(db, modules);
    // Jobs queued by earlier runs' apps without workers (mail, reminders) would otherwise be worked off by the
    // first test that starts workers, delaying what it waits for.
    await db.system.execute(
      sql`do $$ begin
            if to_regclass('pgboss.job') is not null then
              delete from pgboss.job where state in ('created', 'retry');
            end if;
          end $$`,
    );
  } finally {
    await db.close();
  }
}
