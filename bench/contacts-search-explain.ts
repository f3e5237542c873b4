/**
 * Plans of the contact search (`q`) and list at 100k contacts in one organization (docs/contacts.md):
 * `npx tsx bench/contacts-search-explain.ts` (PGlite in memory) or with DATABASE_URL (PostgreSQL; use a
 * scratch database: it inserts 120k rows). Prints EXPLAIN ANALYZE of the statements the service runs.
 */
import { count, sql } from 'drizzle-orm';
import { selectionWhere } from '../src/modules/contacts/repo.js';
import { contacts } from '../src/modules/contacts/table.js';
import { modules } from '../src/modules.js';
import { openDatabase, queryRows } from '../src/platform/db/client.js';
import { migrateDatabase } from '../src/platform/db/migrate.js';

const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: 'memory://' });
await migrateDatabase(db, modules);
const [org] = await queryRows<{ id: number }>(
  db.system,
  sql`insert into organizations (document_id, name, slug, plan)
      values (substr(md5(random()::text), 1, 24), 'Bench', ${`bench-${Date.now()}`}, 'business') returning id`,
);
const [other] = await queryRows<{ id: number }>(
  db.system,
  sql`insert into organizations (document_id, name, slug, plan)
      values (substr(md5(random()::text), 1, 24), 'Other', ${`bench-o-${Date.now()}`}, 'business') returning id`,
);
const seed = (orgId: number, n: number) =>
  db.system.execute(sql`insert into contacts (organization_id, document_id, name, email, phone, cpf, city)
    select ${orgId}, substr(md5(random()::text || i), 1, 24),
           (array['Maria','João','Ana','Pedro','Lucas','Julia','Carlos','Fernanda'])[1 + i % 8] || ' ' ||
           (array['Silva','Souza','Oliveira','Santos','Lima','Costa','Pereira','Almeida'])[1 + (i / 8) % 8] || ' ' || i,
           'user' || i || '@example.com', '+55119' || lpad(i::text, 8, '0'),
           lpad(i::text, 11, '0'), (array['Recife','Natal','São Paulo'])[1 + i % 3]
    from generate_series(1, ${n}) i`);
const started = Date.now();
await seed(org.id, 100_000);
await seed(other.id, 20_000);
await db.system.execute(sql`analyze contacts`);
console.log(`${db.kind}: seeded 120k contacts in ${Date.now() - started} ms`);

for (const q of ['souza 4711', 'user4711@', '98765', '000.047', 'maria', 'ana 47']) {
  await db.tenantTransaction(org.id, async (tx) => {
    const where = selectionWhere(org.id, undefined, q);
    const page = tx.select().from(contacts).where(where).orderBy(sql`created_at desc, id desc`).limit(25);
    const total = tx.select({ total: count() }).from(contacts).where(where);
    for (const [label, query] of [
      ['page', page],
      ['count', total],
    ] as const) {
      const plan = await queryRows<Record<string, string>>(tx, sql`explain (analyze, costs off) ${query}`);
      console.log(`\n-- q=${q} (${label})\n${plan.map((r) => Object.values(r)[0]).join('\n')}`);
    }
  });
}
await db.close();
