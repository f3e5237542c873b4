import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant, type Tenant } from '../helpers/app.js';

/**
 * The totals of a sole title / name `$containsi` come from the narrow search copies through a GIN index of their
 * trigrams hashed with the board or the organization (crm_trgm_keys, src/platform/db/search-fold.ts). The keys only
 * pick candidates; the LIKE on the folded text decides. So every total must be the one the rows themselves give
 * (the same filter plus a no-op, which the copy cannot answer) and the one a plain substring test gives here:
 * texts whose every trigram is present but not in one run, patterns without three letters in a row (no keys at
 * all), LIKE's own characters, punctuation, several words, accents, other scripts; and the same titles on a
 * sibling board and in another organization never counted.
 */
beforeAll(async () => {
  await getApp();
});

const texts = [
  'Globex Corp',
  'globex',
  'GLOBEX-Brasil',
  'glo lob obe bex',
  'xglobexy',
  'Vitória Régia',
  'Ação de cobrança',
  '50% de desconto',
  'a_b c',
  'ab',
  'Ana Souza',
  'Mariana Souza',
  'Souza, Ana',
  'email x@y.com',
  'São João-Paulo',
  '2024/11 pedido 123',
  'Ωμέγα Ελλάδα',
  '中文名字',
];

const queries = [
  'globex',
  'GLOBEX',
  'lob',
  'obe',
  'glo lob',
  'bex',
  'ab',
  'a',
  'a_b',
  '_',
  '%',
  '50%',
  'ana souza',
  'ANA SOUZA',
  'souza, ana',
  'ana',
  'x@y.com',
  '@y',
  'joão-paulo',
  'JOAO-PAULO',
  'joao paulo',
  'são joão',
  '2024/11',
  '123',
  'régia',
  'acao de',
  'ελλάδα',
  '中文',
  '文名字',
  'zzz',
];

/** The fold the tests can state for these texts (crm_fold: lowercased, accents removed). */
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const expected = (q: string) => texts.filter((x) => fold(x).includes(fold(q))).length;

/** The list's total for `field $containsi q` from the copy, from the rows (a no-op filter beside it), and here. */
async function checkTotals(t: Tenant, path: string, field: string, q: string) {
  const query = { [`filters[${field}][$containsi]`]: q, 'pagination[pageSize]': 100 };
  const fast = await t.api.get(path, query);
  const rows = await t.api.get(path, { ...query, [`filters[${field}][$notNull]`]: true });
  expect(fast.status, JSON.stringify(fast.body)).toBe(200);
  expect(rows.status, JSON.stringify(rows.body)).toBe(200);
  expect(fast.body.meta.pagination.total, q).toBe(rows.body.meta.pagination.total);
  expect(fast.body.meta.pagination.total, q).toBe(fast.body.data.length);
  expect(fast.body.meta.pagination.total, q).toBe(expected(q));
}

describe('scoped trigram keys: card title totals', () => {
  let t: Tenant;
  let board: string;

  const board$ = async (tenant: Tenant) => {
    const res = await tenant.api.post('/boards', {
      data: {
        name: `Chaves ${Math.random().toString(36).slice(2, 8)}`,
        phases: [{ name: 'Aberto', slug: 'aberto' }],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.documentId as string;
    for (const title of texts) {
      const one = await tenant.api.post(`/boards/${id}/cards`, { data: { title } });
      expect(one.status, JSON.stringify(one.body)).toBe(201);
    }
    return id;
  };

  beforeAll(async () => {
    t = await newTenant();
    board = await board$(t);
    // The same titles on a sibling board of the organization and in another organization: never counted here.
    await board$(t);
    await board$(await newTenant());
  });

  test.each(queries)('%s: the copy total is the rows total and the substring count', (q) =>
    checkTotals(t, `/boards/${board}/cards`, 'title', q),
  );
});

describe('scoped trigram keys: contact name totals', () => {
  let t: Tenant;

  const contacts$ = async (tenant: Tenant) => {
    for (const name of texts) {
      const res = await tenant.api.post('/contacts', { data: { name } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  };

  beforeAll(async () => {
    t = await newTenant();
    await contacts$(t);
    // The same names in another organization: never counted here.
    await contacts$(await newTenant());
  });

  test.each(queries)('%s: the copy total is the rows total and the substring count', (q) =>
    checkTotals(t, '/contacts', 'name', q),
  );
});
