import { openDatabase } from '../../src/platform/db/client.js';
import { migrateDatabase } from '../../src/platform/db/migrate.js';

/** On PostgreSQL the workers share one database: migrate it once, before them. */
export default async function setup() {
  const url = process.env.DATABASE_URL;
  if (!url) return;
  const db = await openDatabase({ databaseUrl: url, dataDir: 'memory://' });
  try {
    await migrateDatabase(db);
  } finally {
    await db.close();
  }
}
