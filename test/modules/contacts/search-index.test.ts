import { sql } from 'drizzle-orm';
import { expect, test } from 'vitest';
import { randomDocumentIdSql, selectionWhere } from '../../../src/modules/contacts/repo.js';
import { contacts } from '../../../src/modules/contacts/table.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant } from '../../helpers/app.js';

/**
 * `q` is answered by the trigram index as `crm_app` under RLS (docs/contacts.md, Search), not by a scan of
 * the tenant's contacts: with 100k contacts in the organization the planner must pick contacts_search_idx
 * (it cannot when `LIKE` is not leakproof, or when the index is missing or not led by the tenant).
 */
test('a q search over 100k contacts is a bitmap scan of contacts_search_idx as crm_app', async () => {
  const { db } = await getApp();
  const t = await newTenant();
  await t.api.post('/contacts', {
    data: { name: 'Ana Souza', email: 'ana@souza-indice.com.br', cpf: '52998224725' },
  });
  const [{ id: orgId }] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${t.slug}`,
  );
  const seed = (org: number, n: number) =>
    db.system.execute(sql`
      insert into contacts (organization_id, document_id, name, email, phone)
      select ${org}::bigint, ${randomDocumentIdSql}, 'Person ' || g, 'p' || g || '@mail.test',
             '+55119' || lpad(g::text, 8, '0')
      from generate_series(1, ${n}::int) g`);
  await seed(orgId, 100_000);
  await db.system.execute(sql`analyze contacts`);

  // A domain no other test uses: the statistics are the whole table's (every test file's organizations), and a
  // common one (example.com) has the planner expect thousands of matches and rightly prefer the tenant's index.
  for (const q of ['ana souza', '529.982.247', 'souza-indice.com.br']) {
    const plan = await db.tenantTransaction(orgId, (tx) => {
      const { sql: text, params } = tx
        .select({ id: contacts.id })
        .from(contacts)
        .where(selectionWhere(orgId, undefined, q))
        .toSQL();
      return queryRows<{ 'QUERY PLAN': string }>(tx, sql.raw(explainOf(text, params)));
    });
    const lines = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(lines, q).toMatch(/Bitmap Index Scan on contacts_search_idx/);
    expect(lines, q).not.toMatch(/Seq Scan/);
  }
  const found = await t.api.get('/contacts', { q: 'ana souza' });
  expect(found.body.data.map((c: { name: string }) => c.name)).toEqual(['Ana Souza']);
}, 120_000);

/** EXPLAIN of a drizzle query with its parameters inlined as literals (EXPLAIN takes no bind parameters). */
function explainOf(text: string, params: unknown[]) {
  const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  return `explain ${text.replace(/\$(\d+)/g, (_, n) => literal(params[Number(n) - 1]))}`;
}
