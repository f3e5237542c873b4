import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { beforeAll, describe, expect, test } from 'vitest';
import { recorder, type Statement } from '../../bench/capture.js';
import { queryRows } from '../../src/platform/db/client.js';
import { type Api, getApp, newTenant, type Tenant } from '../helpers/app.js';

/**
 * Every list route's default page is an index walk in the list's order (docs/performance.md): the plan of the
 * exact statement the route runs (captured at the driver while the app serves the request) has no Sort node
 * and scans an index, on a data set large enough for the planner to care (a few thousand rows of the tenant,
 * another tenant's rows beside them, ANALYZEd). PostgreSQL only: PGlite has the same planner, but the test
 * needs the pg driver's capture and a real server's statistics.
 */
const onPostgres = !!process.env.DATABASE_URL;
const N = 4000;
/** Contacts and cards: enough that a substring filter's count prefers the trigram index to filtering the tenant. */
const BIG = 30_000;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Relation Name'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

let t: Tenant;
let other: Tenant;
let orgId: number;
let boardId: string;
/** A small board beside the big one, in the same organization. */
let smallBoardId: string;
let segmentId: string;

async function ids(slug: string) {
  const { db } = await getApp();
  const [row] = await queryRows<{ id: number }>(
    db.system,
    sql`select id::int as id from organizations where slug = ${slug}`,
  );
  return row.id;
}

/** N rows of every listed table for the organization (bulk SQL as the tenant: RLS on, like the service). */
async function seed(tenant: Tenant, n: number, big: number, board?: { documentId: string }) {
  const { db } = await getApp();
  const org = await ids(tenant.slug);
  await db.tenantTransaction(org, async (tx) => {
    const doc = sql`substr(md5(random()::text || g::text), 1, 24)`;
    const created = sql`now() - make_interval(mins => g)`;
    await tx.execute(sql`insert into contacts (organization_id, document_id, name, email, city, created_at)
      select ${org}, ${doc}, 'Contact ' || g || case when g % 20 = 0 then ' Silva'
                                                     when g % 1000 = 7 then ' Conceição' else '' end,
             'c' || g || '@example.com', 'City ' || (g % 13), ${created}
      from generate_series(1, ${big}) g`);
    await tx.execute(sql`insert into tasks (organization_id, document_id, name, task_status, created_at)
      select ${org}, ${doc}, 'Task ' || g, 'pending', ${created} from generate_series(1, ${n}) g`);
    await tx.execute(sql`insert into products (organization_id, document_id, name, sku, price, created_at)
      select ${org}, ${doc}, 'Product ' || g, 'SKU-' || g, g, ${created} from generate_series(1, ${n}) g`);
    await tx.execute(sql`insert into quotes (organization_id, document_id, number, created_at)
      select ${org}, ${doc}, g, ${created} from generate_series(1, ${n}) g`);
    if (board)
      await tx.execute(sql`insert into cards (organization_id, document_id, board_id, title, current_phase_id, created_at)
        select ${org}, ${doc}, b.id, 'Card ' || g || case when g % 20 = 0 then ' globex'
                                                        when g % 1000 = 7 then ' Vitória' else '' end,
               (select p.id from phases p where p.organization_id = b.organization_id and p.board_id = b.id
                order by p."order" limit 1), ${created}
        from boards b, generate_series(1, ${big}) g
        where b.organization_id = ${org} and b.document_id = ${board.documentId}`);
  });
  return org;
}

beforeAll(async () => {
  if (!onPostgres) return;
  t = await newTenant();
  other = await newTenant();
  const board = await t.api.post('/boards', {
    data: {
      name: 'Plans',
      phases: [
        { name: 'Open', slug: 'open' },
        { name: 'Done', slug: 'done' },
      ],
    },
  });
  expect(board.status).toBe(201);
  boardId = board.body.documentId;
  const otherBoard = await other.api.post('/boards', {
    data: { name: 'Plans', phases: [{ name: 'Open', slug: 'open' }] },
  });
  const seg = await t.api.post('/segments', {
    data: { name: 'Everyone', filters: { logic: 'AND', conditions: [{ field: 'name', op: 'notEmpty' }] } },
  });
  expect(seg.status).toBe(201);
  segmentId = seg.body.documentId;
  orgId = await seed(t, N, BIG, board.body);
  await seed(other, N / 2, N / 2, otherBoard.body);
  const small = await t.api.post('/boards', {
    data: { name: 'Small', phases: [{ name: 'Open', slug: 'open' }] },
  });
  expect(small.status).toBe(201);
  smallBoardId = small.body.documentId;
  const { db } = await getApp();
  await db.tenantTransaction(orgId, (tx) =>
    tx.execute(sql`insert into cards (organization_id, document_id, board_id, title)
      select b.organization_id, substr(md5(random()::text || g::text), 1, 24), b.id,
             'Small ' || g || case when g % 20 = 0 then ' globex' else '' end
      from boards b, generate_series(1, 400) g where b.organization_id = ${orgId} and b.document_id = ${smallBoardId}`),
  );
  for (const table of ['contacts', 'cards', 'tasks', 'products', 'quotes'])
    await db.system.execute(sql.raw(`analyze ${table}`));
  // The search tables' rows came from the insert triggers, so their trigram indexes hold them in the GIN pending
  // list (read in full by every scan) until a VACUUM moves them into the index proper, as (auto)vacuum does.
  for (const table of ['contact_name_search', 'card_title_search'])
    await db.system.execute(sql.raw(`vacuum analyze ${table}`));
}, 120_000);

/** The statements the route ran for one request. */
async function statementsOf(api: Api, path: string, query: Record<string, unknown>) {
  const { db } = await getApp();
  const rec = recorder(db);
  try {
    rec.start();
    const res = await api.get(path, query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    return rec.stop();
  } finally {
    rec.uninstall();
  }
}

/** The statement that reads the route's page (`… order by … limit`) from `table`. */
async function pageStatement(api: Api, path: string, query: Record<string, unknown>, table: string) {
  const statements = await statementsOf(api, path, query);
  const page = statements.filter(
    (s) => /\border by\b/i.test(s.text) && /\blimit\b/i.test(s.text) && s.text.includes(`from "${table}"`),
  );
  expect(page.map((s) => s.text)).toHaveLength(1);
  return page[0];
}

/** EXPLAIN (FORMAT JSON) of a captured statement as the service runs it: role crm_app, tenant set. */
async function explain(st: Statement, settings = ''): Promise<PlanNode> {
  const { db } = await getApp();
  const client = await (db.pool as pg.Pool).connect();
  try {
    await client.query('begin');
    await client.query(
      `select set_config('role', 'crm_app', true), set_config('app.organization_id', $1, true)`,
      [String(orgId)],
    );
    if (settings) await client.query(settings);
    const res = await client.query({ text: `explain (format json) ${st.text}`, values: st.values });
    return (res.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
  } finally {
    await client.query('rollback').catch(() => {});
    client.release();
  }
}

const routes: [string, () => string, Record<string, unknown>, string, string][] = [
  ['contacts', () => '/contacts', {}, 'contacts', 'contacts_org_created_idx'],
  [
    'contacts by name (sort=name:asc)',
    () => '/contacts',
    { sort: 'name:asc' },
    'contacts',
    'contacts_org_name_idx',
  ],
  ['cards of a board', () => `/boards/${boardId}/cards`, {}, 'cards', 'cards_org_board_created_idx'],
  ['tasks', () => '/tasks', {}, 'tasks', 'tasks_org_created_idx'],
  ['products', () => '/products', {}, 'products', 'products_org_name_idx'],
  ['quotes', () => '/quotes', {}, 'quotes', 'quotes_org_number_idx'],
  ['segment contacts', () => `/segments/${segmentId}/contacts`, {}, 'contacts', 'contacts_org_created_idx'],
];

/**
 * Substring filters: the planner picks by the estimated share of matches — the ordered walk of the list's index
 * (stopping when the page is full) when matches are common, the trigram bitmap plus a top-N sort of the matches
 * when they are rare (the bench's 2.5–5% of 100,000–200,000 rows walk: docs/performance.md). Either way an index,
 * never a scan of the tenant's rows, and a Sort only over what the trigram index returned.
 */
const substring: [string, () => string, Record<string, unknown>, string, string, string][] = [
  [
    'contacts, filters[name][$containsi] (5% match)',
    () => '/contacts',
    { 'filters[name][$containsi]': 'silva' },
    'contacts',
    'contacts_org_created_idx',
    'contacts_text_fold_trgm_idx',
  ],
  [
    'cards, filters[title][$containsi] (5% match)',
    () => `/boards/${boardId}/cards`,
    { 'filters[title][$containsi]': 'globex', stats: false },
    'cards',
    'cards_org_board_created_idx',
    'cards_text_fold_trgm_idx',
  ],
];

/**
 * The accent-blind search (issue 35): a rare match typed without its accents ("vitoria" for 0.1% "Vitória",
 * "conceicao" for "Conceição") is a bitmap scan of the trigram index over the folded column (crm_fold, LEAKPROOF
 * so RLS lets it answer) and a sort of those few rows, for the page; its count reads the narrow search copy,
 * which holds the folded text, through its own trigram index. The exact `$contains` states the folded condition
 * too, so the folded index serves it as well.
 * The contacts' page is explained with sequential scans disabled: on a fresh test database (32,000 contacts)
 * the planner priced the trigram bitmap at 1,416 and a scan of the tenant at 1,384 (the folded condition is two
 * function calls more per scanned row than ILIKE, enough to tip it at that size; with more rows beside them it
 * picks the index by itself, as at the bench's 100,000: docs/performance.md). Disabled, a scan is still what the
 * planner would pick if RLS could not use the index (crm_fold's functions not LEAKPROOF): the check that matters.
 */
const accentBlind: [string, () => string, Record<string, unknown>, string, string, string, string, string][] =
  [
    [
      'cards, filters[title][$containsi]=VITORIA',
      () => `/boards/${boardId}/cards`,
      { 'filters[title][$containsi]': 'VITORIA' },
      'cards',
      'cards_text_fold_trgm_idx',
      'card_title_search',
      'card_title_search_keys_idx',
      '',
    ],
    [
      'contacts, filters[name][$containsi]=conceicao',
      () => '/contacts',
      { 'filters[name][$containsi]': 'conceicao' },
      'contacts',
      'contacts_text_fold_trgm_idx',
      'contact_name_search',
      'contact_name_search_keys_idx',
      'set local enable_seqscan = off',
    ],
  ];

/**
 * The total of a plain `$containsi` name / title search (and the cards' stats) from the narrow search tables
 * (docs/performance.md, fifth pass): a bitmap scan of their trigram index, whose recheck reads only narrow rows.
 */
const searchCounts: [string, () => string, Record<string, unknown>, string, string][] = [
  [
    'contacts, filters[name][$containsi]',
    () => '/contacts',
    { 'filters[name][$containsi]': 'silva' },
    'contact_name_search',
    'contact_name_search_keys_idx',
  ],
  [
    'cards, filters[title][$containsi] with stats',
    () => `/boards/${boardId}/cards`,
    { 'filters[title][$containsi]': 'globex' },
    'card_title_search',
    'card_title_search_keys_idx',
  ],
];

/** The plan walks an index in the list's order without sorting, or reads the matches through `trigram`. */
function inOrderOrTrigram(plan: Parameters<typeof nodes>[0], trigram: string): boolean {
  const all = nodes(plan);
  if (all.some((n) => n['Node Type'] === 'Seq Scan')) return false;
  const walk =
    all.some((n) => n['Node Type'] === 'Index Scan') && !all.some((n) => n['Node Type'] === 'Sort');
  return walk || all.some((n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === trigram);
}

/**
 * No sequential scan, and every Sort reads rows that a scan below it has already filtered by `condition`
 * (so the sort sees the matches, never all the rows it scanned).
 */
function sortsOnlyMatches(plan: PlanNode, condition: string): boolean {
  const all = nodes(plan);
  if (all.some((n) => n['Node Type'] === 'Seq Scan')) return false;
  const sorts = all.filter((n) => n['Node Type'] === 'Sort');
  const filtered = (n: PlanNode) =>
    nodes(n).some((m) => /Scan$/.test(m['Node Type']) && !!m.Filter?.includes(condition));
  return sorts.length > 0 && sorts.every(filtered);
}

describe.skipIf(!onPostgres)('list plans (PostgreSQL)', () => {
  test.each(substring)(
    '%s: the page walks the list index in order, or sorts only the trigram matches',
    async (_n, path, query, table, ordered, trigram) => {
      const st = await pageStatement(t.api, path(), query, table);
      const plan = await explain(st);
      const all = nodes(plan);
      const described = JSON.stringify(plan);
      expect(
        all.map((n) => n['Node Type']),
        described,
      ).not.toContain('Seq Scan');
      const walk = all.some((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === ordered);
      const sorted = all.some((n) => n['Node Type'] === 'Sort');
      const viaTrigram = all.some(
        (n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === trigram,
      );
      expect((walk && !sorted) || viaTrigram, described).toBe(true);
    },
  );

  test.each(accentBlind)(
    '%s (rare, accents left out): the count uses the folded trigram index; the page it or a walk in order',
    async (_n, path, query, table, trigram, copy, copyIndex, settings) => {
      const res = await t.api.get(path(), query);
      expect(res.status).toBe(200);
      expect(res.body.meta.pagination.total).toBe(BIG / 1000);
      const st = await pageStatement(t.api, path(), query, table);
      // Sequential scans off for every case: a fresh database's sampled statistics may price one lower (see above).
      const page = await explain(st, settings || 'set local enable_seqscan = off');
      const described = JSON.stringify(page);
      expect(
        nodes(page).map((n) => n['Node Type']),
        described,
      ).not.toContain('Seq Scan');
      // As for the substring searches above: the trigram matches, or (when the planner expects enough matches
      // for a page early in the list's order) a walk of the list index in order, never a sort of everything. The
      // choice moves with the sampled statistics of a fresh database (autovacuum is off).
      expect(inOrderOrTrigram(page, trigram), described).toBe(true);
      const statements = await statementsOf(t.api, path(), query);
      const [count] = statements.filter((s) => /\bcount\(/.test(s.text) && s.text.includes(`from "${copy}"`));
      const counted = await explain(count);
      expect(
        nodes(counted).some((n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === copyIndex),
        JSON.stringify(counted),
      ).toBe(true);
    },
  );

  test('cards, filters[title][$contains] stays exact: the folded trigram index or a walk in order, never a sort of all', async () => {
    const path = `/boards/${boardId}/cards`;
    expect(
      (await t.api.get(path, { 'filters[title][$contains]': 'Vitória' })).body.meta.pagination.total,
    ).toBe(BIG / 1000);
    expect(
      (await t.api.get(path, { 'filters[title][$contains]': 'vitoria' })).body.meta.pagination.total,
    ).toBe(0);
    const st = await pageStatement(
      t.api,
      path,
      { 'filters[title][$contains]': 'Vitória', stats: false },
      'cards',
    );
    // The exact search only has to keep an index it can use: on a fresh database whose cards are mostly this
    // board, the sampled statistics may price a sequential scan of them lower, as for the contacts case above.
    const plan = await explain(st, 'set local enable_seqscan = off');
    // `$contains` also states the folded condition it implies (list-query.ts), so the folded index answers it (the
    // raw-text one is gone: migration 0018).
    const indexed = inOrderOrTrigram(plan, 'cards_text_fold_trgm_idx');
    // With the two conditions' selectivities multiplied, the planner may also estimate a handful of matches and
    // read the board's rows through the board's index, filtering them by the title before the top-N sort (seen in
    // CI on a database shared with other test files): still an index, and the Sort only sees the matches.
    expect(indexed || sortsOnlyMatches(plan, 'title ~~'), JSON.stringify(plan)).toBe(true);
  });

  test('contacts, filters[name][$contains] stays exact, through the one folded trigram index (migration 0015)', async () => {
    const total = async (text: string) =>
      (await t.api.get('/contacts', { 'filters[name][$contains]': text })).body.meta.pagination.total;
    expect(await total('Conceição')).toBe(BIG / 1000);
    expect(await total('conceicao')).toBe(0);
    expect(await total('CONCEIÇÃO')).toBe(0);
    expect(await total('Silva')).toBe(BIG / 20);
    const query = { 'filters[name][$contains]': 'Conceição' };
    const st = await pageStatement(t.api, '/contacts', query, 'contacts');
    const plan = await explain(st, 'set local enable_seqscan = off');
    expect(inOrderOrTrigram(plan, 'contacts_text_fold_trgm_idx'), JSON.stringify(plan)).toBe(true);
    const statements = await statementsOf(t.api, '/contacts', query);
    const [count] = statements.filter((s) => /\bcount\(/.test(s.text));
    const counted = await explain(count, 'set local enable_seqscan = off');
    const used = nodes(counted).some(
      (n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === 'contacts_text_fold_trgm_idx',
    );
    expect(used, JSON.stringify(counted)).toBe(true);
  });

  test.each(routes)(
    '%s: the default page walks an index in order, no Sort',
    async (_n, path, query, table, index) => {
      const st = await pageStatement(t.api, path(), query, table);
      const plan = await explain(st);
      const all = nodes(plan);
      const types = all.map((n) => n['Node Type']);
      expect(types, JSON.stringify(plan)).not.toContain('Sort');
      expect(types, JSON.stringify(plan)).not.toContain('Incremental Sort');
      expect(types).not.toContain('Seq Scan');
      const scans = all.filter((n) => n['Relation Name'] === table);
      expect(scans.map((n) => `${n['Node Type']} ${n['Index Name']}`)).toContain(`Index Scan ${index}`);
    },
  );

  test.each(searchCounts)(
    '%s: the count reads the narrow search table through its trigram index',
    async (_n, path, query, table, index) => {
      const statements = await statementsOf(t.api, path(), query);
      const counts = statements.filter((s) => /\bcount\(/.test(s.text) && s.text.includes(`from "${table}"`));
      expect(counts.map((s) => s.text)).toHaveLength(1);
      const plan = await explain(counts[0]);
      const all = nodes(plan);
      const described = JSON.stringify(plan);
      expect(
        all.map((n) => n['Node Type']),
        described,
      ).not.toContain('Seq Scan');
      expect(
        all.some((n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === index),
        described,
      ).toBe(true);
      // Nothing of the wide table: the count (and the cards' stats) read only the narrow one.
      expect(
        all.filter((n) => n['Relation Name'] && n['Relation Name'] !== table),
        described,
      ).toEqual([]);
    },
  );

  test.each([
    ['contacts', () => '/contacts', 'name', 'contact_name_search'],
    ['cards', () => `/boards/${boardId}/cards`, 'title', 'card_title_search'],
  ])(
    '%s: a pattern under three characters computes no row keys in its count',
    async (_n, path, field, table) => {
      const statements = await statementsOf(t.api, path(), { [`filters[${field}][$containsi]`]: 'a' });
      const [count] = statements.filter((s) => s.text.includes(`from "${table}"`));
      const described = JSON.stringify(await explain(count));
      // No keys to look up: `@> '{}'` would compute crm_trgm_keys for every row of the scope (15–45 µs each).
      expect(described).not.toContain('crm_trgm_keys');
    },
  );

  test('a small board beside a large one: the title search count is narrowed by the board in an index', async () => {
    const statements = await statementsOf(t.api, `/boards/${smallBoardId}/cards`, {
      'filters[title][$containsi]': 'globex',
    });
    const [count] = statements.filter((s) => s.text.includes('from "card_title_search"'));
    const plan = await explain(count);
    const all = nodes(plan);
    const described = JSON.stringify(plan);
    expect(
      all.map((n) => n['Node Type']),
      described,
    ).not.toContain('Seq Scan');
    // The board's own trigram keys (crm_trgm_keys hashes each trigram with the board), or the board's key range
    // ANDed with the matches: either way not every match of the organization read and filtered on the heap.
    expect(
      all.some(
        (n) =>
          n['Node Type'] === 'Bitmap Index Scan' &&
          /board_id = |crm_trgm_keys\(board_id, title\)/.test(String(n['Index Cond'] ?? '')),
      ),
      described,
    ).toBe(true);
  });

  test("the counts of the substring filters are exact, and another tenant's rows are not counted", async () => {
    const contacts = await t.api.get('/contacts', { 'filters[name][$containsi]': 'silva' });
    expect(contacts.body.meta.pagination.total).toBe(BIG / 20);
    const cards = await t.api.get(`/boards/${boardId}/cards`, { 'filters[title][$containsi]': 'globex' });
    expect(cards.body.meta.pagination.total).toBe(BIG / 20);
    expect(
      (await other.api.get('/contacts', { 'filters[name][$containsi]': 'silva' })).body.meta.pagination.total,
    ).toBe(N / 2 / 20);
    // These come from the narrow search tables (the test above); the generic count over the contacts and cards
    // (other filters beside the substring) is the planner's choice by table size: at 200,000 rows the trigram
    // indexes (bench plan column, docs/performance.md); at this test's 30,000 it may prefer the tenant's own rows
    // through an organization-led index (seen on a fresh database). The totals above are what must hold.
  });
});
