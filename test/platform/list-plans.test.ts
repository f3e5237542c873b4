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
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

let t: Tenant;
let other: Tenant;
let orgId: number;
let boardId: string;
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
      select ${org}, ${doc}, 'Contact ' || g || case when g % 20 = 0 then ' Silva' else '' end,
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
        select ${org}, ${doc}, b.id, 'Card ' || g || case when g % 40 = 0 then ' globex' else '' end,
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
  const { db } = await getApp();
  for (const table of ['contacts', 'cards', 'tasks', 'products', 'quotes'])
    await db.system.execute(sql.raw(`analyze ${table}`));
}, 120_000);

/** The statements the route ran, and the one that reads its page (`… order by … limit`) from `table`. */
async function pageStatement(api: Api, path: string, query: Record<string, unknown>, table: string) {
  const { db } = await getApp();
  const rec = recorder(db);
  let statements: Statement[];
  try {
    rec.start();
    const res = await api.get(path, query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    statements = rec.stop();
  } finally {
    rec.uninstall();
  }
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
  [
    'contacts, filters[name][$containsi] (5% match)',
    () => '/contacts',
    { 'filters[name][$containsi]': 'silva' },
    'contacts',
    'contacts_org_created_idx',
  ],
  [
    'cards, filters[title][$containsi] (2.5% match)',
    () => `/boards/${boardId}/cards`,
    { 'filters[title][$containsi]': 'globex', stats: false },
    'cards',
    'cards_org_board_created_idx',
  ],
];

describe.skipIf(!onPostgres)('list plans (PostgreSQL)', () => {
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

  test("the counts of the substring filters use the trigram indexes, and another tenant's rows are not counted", async () => {
    const contacts = await t.api.get('/contacts', { 'filters[name][$containsi]': 'silva' });
    expect(contacts.body.meta.pagination.total).toBe(BIG / 20);
    const cards = await t.api.get(`/boards/${boardId}/cards`, { 'filters[title][$containsi]': 'globex' });
    expect(cards.body.meta.pagination.total).toBe(BIG / 40);
    expect(
      (await other.api.get('/contacts', { 'filters[name][$containsi]': 'silva' })).body.meta.pagination.total,
    ).toBe(N / 2 / 20);
    const { db } = await getApp();
    const rec = recorder(db);
    let statements: Statement[];
    try {
      rec.start();
      await t.api.get('/contacts', { 'filters[name][$containsi]': 'silva' });
      statements = rec.stop();
    } finally {
      rec.uninstall();
    }
    const count = statements.find((s) => /\bcount\(/i.test(s.text) && s.text.includes('from "contacts"'));
    expect(count).toBeDefined();
    const plan = await explain(count!);
    const names = nodes(plan).map((n) => n['Index Name']);
    expect(names, JSON.stringify(plan)).toContain('contacts_text_trgm_idx');
  });
});
