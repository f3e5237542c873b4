import { eq, sql } from 'drizzle-orm';
import { conversations } from '../src/modules/inbox/table.js';
import { openDatabase, preparedRows, queryRows } from '../src/platform/db/client.js';

const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: 'memory://' });
const pool = db.pool!;
async function t(name: string, fn: () => Promise<unknown>, n = 3000) {
  for (let i = 0; i < 200; i++) await fn();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const c = process.cpuUsage(c0);
  console.log(
    `${name}: ${((performance.now() - t0) / n).toFixed(3)} ms wall, ${((c.user + c.system) / 1000 / n).toFixed(3)} ms CPU`,
  );
}
const client = await pool.connect();
await t('raw pg client select 1', () => client.query('select 1'));
await t('raw pg client param', () => client.query('select $1::int', [1]));
await t('raw pg client named', () => client.query({ name: 'x1', text: 'select $1::int', values: [1] }));
client.release();
await t('pool.query select 1', () => pool.query('select 1'));
await t('drizzle execute sql', () => db.system.execute(sql`select ${1}::int`));
await t('queryRows', () => queryRows(db.system, sql`select ${1}::int`));
await t('preparedRows', () => preparedRows(db.system, sql`select ${1}::int as x`));
await t('drizzle select 25 convs', () =>
  db.system.select().from(conversations).where(eq(conversations.organizationId, 2)).limit(25),
);
await t('raw select 25 convs', () =>
  pool.query('select * from conversations where organization_id = $1 limit 25', [2]),
);
await t('drizzle transaction empty', () => db.system.transaction(async () => {}));
await db.close();
