import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { recorder } from '../../../bench/capture.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { type Api, getApp, newTenant, type Tenant } from '../../helpers/app.js';

/**
 * The name search table (src/modules/contacts/name-search.ts): the total of `filters[name][$containsi]` read from
 * `contact_name_search` equals the count over the contacts themselves, the table follows every write, and it is
 * a tenant table like any other.
 */
beforeAll(async () => {
  await getApp();
});

const NAMES = [
  'Ana Silva',
  'SILVA Souza',
  'João da Silva',
  'Silvana Prado',
  'Élodie ÉCLAIR',
  'Ölaf Straße',
  '100% Real',
  'Under_score Ltda',
  'Back\\slash',
  'Maria',
];
const SEARCHES = [
  'silva',
  'SILVA',
  'Sil',
  'é',
  'ÉCL',
  'ölaf',
  'STRASSE',
  'straße',
  '%',
  '_',
  '\\',
  'a',
  '',
  'zz',
];

async function orgId(slug: string) {
  const { db } = await getApp();
  const [row] = await queryRows<{ id: number }>(
    db.system,
    sql`select id::int as id from organizations where slug = ${slug}`,
  );
  return row.id;
}

async function create(api: Api, data: Record<string, unknown>) {
  const res = await api.post('/contacts', { data });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.documentId as string;
}

/** The search rows of the organization equal its contacts' folded names (crm_fold), row for row. */
async function expectMirrored(t: Tenant) {
  const { db } = await getApp();
  const org = await orgId(t.slug);
  const stored = await queryRows(
    db.system,
    sql`select contact_id::int as id, name from contact_name_search where organization_id = ${org} order by 1`,
  );
  const truth = await queryRows(
    db.system,
    sql`select id::int as id, crm_fold(name) as name from contacts where organization_id = ${org} order by 1`,
  );
  expect(stored).toEqual(truth);
}

/** Page and total through the search table and through the contacts (a second condition on name: generic). */
async function expectSameAsGeneric(api: Api, text: string) {
  const fast = await api.get('/contacts', { 'filters[name][$containsi]': text, 'pagination[pageSize]': 100 });
  const generic = await api.get('/contacts', {
    'filters[name][$containsi]': text,
    'filters[name][$notNull]': true,
    'pagination[pageSize]': 100,
  });
  expect(fast.status, JSON.stringify(fast.body)).toBe(200);
  expect(generic.status).toBe(200);
  expect(fast.body.meta, text).toEqual(generic.body.meta);
  expect(fast.body.data.map((c: { documentId: string }) => c.documentId)).toEqual(
    generic.body.data.map((c: { documentId: string }) => c.documentId),
  );
  return fast.body.meta.pagination.total as number;
}

/** The statements a list request ran that count (`count(`), by the table they read. */
async function countTables(api: Api, query: Record<string, unknown>) {
  const { db } = await getApp();
  const rec = recorder(db);
  try {
    rec.start();
    const res = await api.get('/contacts', query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return rec
      .stop()
      .filter((s) => /\bcount\(/.test(s.text))
      .map((s) => (s.text.includes('from "contact_name_search"') ? 'search' : 'contacts'));
  } finally {
    rec.uninstall();
  }
}

describe('contact name search table', () => {
  test('totals equal the count over the contacts: any case, accents, LIKE characters, empty text', async () => {
    const t = await newTenant();
    for (const name of NAMES) await create(t.api, { name });
    await expectMirrored(t);
    const totals = new Map<string, number>();
    for (const text of SEARCHES) totals.set(text, await expectSameAsGeneric(t.api, text));
    expect(totals.get('silva')).toBe(4);
    expect(totals.get('SILVA')).toBe(4);
    expect(totals.get('Sil')).toBe(4);
    expect(totals.get('%')).toBe(1);
    expect(totals.get('_')).toBe(1);
    expect(totals.get('\\')).toBe(1);
    expect(totals.get('')).toBe(NAMES.length);
    expect(totals.get('zz')).toBe(0);
  });

  test('only the plain name search reads the table; other filters, $contains and q count the contacts', async () => {
    const t = await newTenant();
    await create(t.api, { name: 'Ana Silva', city: 'Recife' });
    await create(t.api, { name: 'Bruno Silva', city: 'Natal' });
    await create(t.api, { name: 'silvia', city: 'Recife' });
    expect(await countTables(t.api, { 'filters[name][$containsi]': 'silva' })).toEqual(['search']);
    expect(
      await countTables(t.api, { 'filters[name][$containsi]': 'silva', 'pagination[withCount]': false }),
    ).toEqual([]);
    for (const query of [
      { 'filters[name][$containsi]': 'silva', 'filters[city][$eq]': 'Recife' },
      { 'filters[name][$contains]': 'Silva' },
      { 'filters[name][$containsi]': 'silva', q: 'ana' },
      { 'filters[$or][0][name][$containsi]': 'silva' },
    ])
      expect(await countTables(t.api, query), JSON.stringify(query)).toEqual(['contacts']);
    const total = async (query: Record<string, unknown>) =>
      (await t.api.get('/contacts', query)).body.meta.pagination.total;
    expect(await total({ 'filters[name][$containsi]': 'silva', 'filters[city][$eq]': 'Recife' })).toBe(1);
    expect(await total({ 'filters[name][$contains]': 'Silva' })).toBe(2);
    expect(await total({ 'filters[name][$contains]': 'silva' })).toBe(0);
    expect(await total({ 'filters[name][$containsi]': 'silv' })).toBe(3);
    expect(await total({ 'filters[name][$containsi]': 'silva', q: 'bruno' })).toBe(1);
    const noCount = await t.api.get('/contacts', {
      'filters[name][$containsi]': 'silva',
      'pagination[withCount]': false,
    });
    expect(noCount.body.meta.pagination.total).toBeUndefined();
    expect(noCount.body.data).toHaveLength(2);
  });

  test('follows creates, renames, case changes, bulk updates, imports, merges, deletes and bulk deletes', async () => {
    const t = await newTenant();
    const ids = [];
    for (const name of ['Ana Silva', 'Bia Souza', 'Caio Silva', 'Duda Lima', 'Eva Silva'])
      ids.push(await create(t.api, { name }));
    await expectMirrored(t);
    expect(await expectSameAsGeneric(t.api, 'silva')).toBe(3);

    expect((await t.api.put(`/contacts/${ids[1]}`, { data: { name: 'Bia Silva' } })).status).toBe(200);
    expect((await t.api.put(`/contacts/${ids[0]}`, { data: { name: 'ANA SILVA' } })).status).toBe(200);
    expect((await t.api.put(`/contacts/${ids[2]}`, { data: { city: 'Olinda' } })).status).toBe(200);
    await expectMirrored(t);
    expect(await expectSameAsGeneric(t.api, 'silva')).toBe(4);

    const bulk = await t.api.post('/contacts/bulk-update', { all: true, data: { city: 'Recife' } });
    expect(bulk.status).toBe(200);
    const csv = 'name,email\nFábio Silva,fabio@example.com\nGabi Rocha,gabi@example.com\n';
    const imported = await t.api.request({
      method: 'POST',
      url: '/api/contacts/import',
      headers: { 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    await expectMirrored(t);
    expect(await expectSameAsGeneric(t.api, 'silva')).toBe(5);

    const merged = await t.api.post('/contacts/merge', { survivor: ids[0], merged: [ids[4]] });
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect((await t.api.delete(`/contacts/${ids[1]}`)).status).toBe(200);
    await expectMirrored(t);
    expect(await expectSameAsGeneric(t.api, 'silva')).toBe(3);

    const gone = await t.api.post('/contacts/bulk-delete', { filters: { name: { $containsi: 'silva' } } });
    expect(gone.body).toMatchObject({ deleted: 3 });
    await expectMirrored(t);
    expect(await expectSameAsGeneric(t.api, 'silva')).toBe(0);
    expect(await expectSameAsGeneric(t.api, '')).toBe(2);
  });

  test("another organization's contacts are neither counted nor visible in the table", async () => {
    const a = await newTenant();
    const b = await newTenant();
    await create(a.api, { name: 'Ana Silva' });
    for (const name of ['Bia Silva', 'Caio Silva', 'Duda Silva']) await create(b.api, { name });
    expect(await expectSameAsGeneric(a.api, 'silva')).toBe(1);
    expect(await expectSameAsGeneric(b.api, 'silva')).toBe(3);
    // Row-level security on the table itself, as the service's requests run (role crm_app, tenant set).
    const { db } = await getApp();
    const [orgA, orgB] = [await orgId(a.slug), await orgId(b.slug)];
    const seen = await db.tenantTransaction(orgA, (tx) =>
      queryRows<{ org: number; n: number }>(
        tx,
        sql`select organization_id::int as org, count(*)::int as n from contact_name_search group by 1`,
      ),
    );
    expect(seen).toEqual([{ org: orgA, n: 1 }]);
    await expect(
      db.tenantTransaction(orgA, (tx) =>
        tx.execute(
          sql`insert into contact_name_search (organization_id, contact_id, name) values (${orgB}, 1, 'x')`,
        ),
      ),
    ).rejects.toMatchObject({ cause: expect.objectContaining({ code: '42501' }) });
  });
});
