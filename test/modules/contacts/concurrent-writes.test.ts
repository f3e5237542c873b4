import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant, type Res, type Tenant } from '../../helpers/app.js';
import { postCsv } from './csv.js';

// Issue 30 item 6: on PostgreSQL, concurrent contact bulk updates, bulk deletes and merges deadlocked each other
// (rows locked in different orders) and answered 500. On PGlite the one connection serializes them: the same
// checks run there too (they must hold on either backend).

beforeAll(async () => {
  await getApp();
});

async function seed(t: Tenant, n: number, tag: string) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.api.post('/contacts', {
      data: { name: `C${i}`, email: `c${i}.${tag}@test.example` },
    });
    expect(res.status).toBe(201);
    ids.push(res.body.documentId);
  }
  return ids;
}

/** Statuses of 5xx answers, with their bodies, for a readable failure. */
const failures = (answers: Res[]) =>
  answers.filter((r) => r.status >= 500).map((r) => `${r.status} ${JSON.stringify(r.body)}`);

describe('concurrent contact writes never answer 5xx', () => {
  test('two bulk updates at once, one by filter, one by the same ids in reverse order, repeated', async () => {
    const t = await newTenant();
    // Among enough other contacts, with fresh statistics, the two selections walk the rows in different orders
    // (the ids by their documentId index, the filter in table order): what made them deadlock.
    const others = Array.from({ length: 400 }, (_, i) => `O${i},o${i}@other.example`).join('\n');
    expect((await postCsv(t, `name,email\n${others}\n`)).status).toBe(200);
    const ids = await seed(t, 20, 'mark');
    await (await getApp()).db.system.execute(sql`analyze contacts`);
    const answers: Res[] = [];
    for (let round = 0; round < 60; round++) {
      answers.push(
        ...(await Promise.all([
          t.api.post('/contacts/bulk-update', {
            filters: { email: { $contains: 'mark' } },
            data: { city: `c${round}` },
          }),
          t.api.post('/contacts/bulk-update', { ids: [...ids].reverse(), data: { city: `d${round}` } }),
        ])),
      );
    }
    expect(failures(answers)).toEqual([]);
    // Ordered locks leave nothing to retry: each of them updated all 20.
    for (const r of answers) expect(r.body).toMatchObject({ matched: 20, updated: 20 });
    const list = await t.api.get('/contacts', {
      'filters[email][$contains]': 'mark',
      'pagination[pageSize]': 100,
    });
    expect(list.body.meta.pagination.total).toBe(20);
    expect(new Set(list.body.data.map((c: { city: string }) => c.city)).size).toBe(1);
  });

  test('12 clients of overlapping creates, updates, merges, bulk updates and bulk deletes', async () => {
    const t = await newTenant();
    const pool = await seed(t, 30, 'mark');
    const pick = (n: number) => [...pool].sort(() => Math.random() - 0.5).slice(0, n);
    const answers: Res[] = [];
    const until = Date.now() + 4_000;
    let made = 0;
    const client = async (k: number) => {
      while (Date.now() < until) {
        const op = (k + answers.length) % 6;
        let res: Res;
        if (op === 0) {
          made++;
          res = await t.api.post('/contacts', {
            data: { name: `N${made}`, email: `n${made}.mark@test.example` },
          });
          if (res.status === 201) pool.push(res.body.documentId);
        } else if (op === 1) {
          res = await t.api.put(`/contacts/${pick(1)[0]}`, { data: { city: `u${k}` } });
        } else if (op === 2) {
          const [survivor, ...merged] = pick(3);
          res = await t.api.post('/contacts/merge', { survivor, merged });
        } else if (op === 3) {
          res = await t.api.post('/contacts/bulk-update', {
            filters: { email: { $contains: 'mark' } },
            data: { state: `s${k}` },
          });
        } else if (op === 4) {
          res = await t.api.post('/contacts/bulk-update', { ids: pick(15), data: { country: `k${k}` } });
        } else {
          res = await t.api.post('/contacts/bulk-delete', { ids: pick(2) });
        }
        answers.push(res);
      }
    };
    await Promise.all(Array.from({ length: 12 }, (_, k) => client(k)));
    expect(answers.length).toBeGreaterThan(50);
    expect(failures(answers)).toEqual([]);
    // What is not a success is a 404 (a contact another client merged or deleted), a 422 (a merge of two contacts
    // that both own a one-per-contact row), or the conflict answer with Retry-After.
    for (const r of answers.filter((a) => a.status >= 400)) {
      expect([404, 409, 422], JSON.stringify(r.body)).toContain(r.status);
      if (r.status === 409) expect(r.headers['retry-after']).toBeDefined();
    }
  });
});
