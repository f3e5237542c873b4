import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { foldAllContactCounts } from '../../../src/modules/contacts/counts.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant, type Tenant } from '../../helpers/app.js';
import { postCsv } from './csv.js';

/**
 * The contact list's total without counting the contacts (src/modules/contacts/counts.ts): an unfiltered list
 * reads the organization's contact count kept by statement triggers. It must always equal what a count of the
 * rows says (checked against a filter that matches every contact, which counts them) after every kind of write:
 * single creates, imports, deletes, bulk deletes, merges, and after the deltas are folded. Both backends.
 */
let ctx: Awaited<ReturnType<typeof getApp>>;
beforeAll(async () => {
  ctx = await getApp();
});

const totals = async (t: Tenant) => {
  const whole = await t.api.get('/contacts');
  const counted = await t.api.get('/contacts', { 'filters[name][$notNull]': 'true' });
  expect(whole.status).toBe(200);
  return { whole: whole.body.meta.pagination.total, counted: counted.body.meta.pagination.total };
};

const create = async (t: Tenant, name: string) =>
  (await t.api.post('/contacts', { data: { name } })).body.documentId as string;

describe('contact counts', () => {
  test('the whole list total follows creates, imports, deletes, bulk deletes and merges', async () => {
    const t = await newTenant();
    const other = await newTenant();
    expect(await totals(t)).toEqual({ whole: 0, counted: 0 });
    const a = await create(t, 'Ana');
    const b = await create(t, 'Bruno');
    await create(other, 'Someone else');
    expect(await totals(t)).toEqual({ whole: 2, counted: 2 });

    const rows = Array.from({ length: 120 }, (_, i) => `Pessoa ${i},p${i}@counts.test`).join('\n');
    expect((await postCsv(t, `name,email\n${rows}\n`)).status).toBe(200);
    expect(await totals(t)).toEqual({ whole: 122, counted: 122 });

    expect((await t.api.delete(`/contacts/${a}`)).status).toBe(200);
    const bulk = await t.api.post('/contacts/bulk-delete', { q: 'pessoa 1' });
    expect(bulk.body.deleted).toBeGreaterThan(0);
    const pessoa0 = await t.api.get('/contacts', { 'filters[name][$eq]': 'Pessoa 0' });
    const merged = await t.api.post('/contacts/merge', {
      survivor: b,
      merged: [pessoa0.body.data[0].documentId],
    });
    expect(merged.status, JSON.stringify(merged.body)).toBeLessThan(300);
    const after = await totals(t);
    expect(after.whole).toBe(after.counted);
    expect(after.whole).toBe(122 - 1 - bulk.body.deleted - 1);
    expect(await totals(other)).toEqual({ whole: 1, counted: 1 });
  });

  test('folding the deltas keeps every organization total, and leaves no delta behind', async () => {
    const t = await newTenant();
    const other = await newTenant();
    for (let i = 0; i < 5; i++) await create(t, `Fold ${i}`);
    await create(other, 'Other');
    const before = [await totals(t), await totals(other)];
    await ctx.db.system.transaction(async (tx) => {
      await foldAllContactCounts(tx);
    });
    // Another test process's maintenance may fold them first: either way none of these are left.
    expect([await totals(t), await totals(other)]).toEqual(before);
    const [left] = await queryRows<{ n: number }>(
      ctx.db.system,
      sql`select count(*)::int as n from contact_count_deltas d join organizations o on o.id = d.organization_id
          where o.slug in (${t.slug}, ${other.slug})`,
    );
    expect(left.n).toBe(0);
  });
});
