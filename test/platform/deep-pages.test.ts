import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { recorder, type Statement } from '../../bench/capture.js';
import { queryRows } from '../../src/platform/db/client.js';
import { deepPages } from '../../src/platform/db/deep-pages.js';
import { getApp, newTenant, type Tenant } from '../helpers/app.js';

/**
 * Deep pages (issue 35 item 4, src/platform/db/deep-pages.ts): past the threshold a list reads its page's keys
 * from the index that serves its order, then only those rows. The answer is the same page, byte for byte (checked
 * against today's plain query at every offset with the threshold lowered), and page 400 of a phase (offset
 * 9,975) is an index walk for the keys and a primary-key fetch of 25 rows. Both backends: PGlite always,
 * PostgreSQL with DATABASE_URL.
 */
const PHASE = 30_000;
const DONE = 300;
const CONTACTS = 30_000;
const DEFAULT_FROM = deepPages.fromOffset;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

let t: Tenant;
let other: Tenant;
let orgId: number;
let boardId: string;

beforeAll(async () => {
  const { db } = await getApp();
  t = await newTenant();
  other = await newTenant();
  const board = await t.api.post('/boards', {
    data: {
      name: 'Deep',
      phases: [
        { name: 'Open', slug: 'open' },
        { name: 'Done', slug: 'done' },
      ],
    },
  });
  expect(board.status).toBe(201);
  boardId = board.body.documentId;
  const otherBoard = await other.api.post('/boards', {
    data: { name: 'Deep', phases: [{ name: 'Open', slug: 'open' }] },
  });
  expect(otherBoard.status).toBe(201);
  const org = async (slug: string) =>
    (
      await queryRows<{ id: number }>(
        db.system,
        sql`select id::int as id from organizations where slug = ${slug}`,
      )
    )[0].id;
  orgId = await org(t.slug);
  const seed = async (tenant: Tenant, documentId: string, cards: number, done: number, contacts: number) => {
    const id = await org(tenant.slug);
    await db.tenantTransaction(id, async (tx) => {
      const doc = sql`substr(md5(random()::text || g::text), 1, 24)`;
      // Ties on purpose (created_at, value and title repeat): the id decides, in the page as in the key walk.
      await tx.execute(sql`insert into contacts (organization_id, document_id, name, email, created_at)
        select ${id}, ${doc}, 'Contact ' || (g % 997), 'c' || g || '@example.com',
               timestamptz '2026-01-01' + make_interval(mins => g / 3)
        from generate_series(1, ${contacts}) g`);
      await tx.execute(sql`insert into cards (organization_id, document_id, board_id, title, value, current_phase_id,
          contact_id, created_at)
        select ${id}, ${doc}, b.id, 'Card ' || (g % 503), g % 89,
               (select p.id from phases p where p.organization_id = b.organization_id and p.board_id = b.id
                order by p."order" offset case when g <= ${done} then 1 else 0 end limit 1),
               case when g % 50 = 0 then (select c.id from contacts c where c.organization_id = b.organization_id
                                          order by c.id limit 1) end,
               timestamptz '2026-01-01' + make_interval(mins => g / 3)
        from boards b, generate_series(1, ${cards + done}) g
        where b.organization_id = ${id} and b.document_id = ${documentId}`);
    });
  };
  await seed(t, boardId, PHASE, DONE, CONTACTS);
  await seed(other, otherBoard.body.documentId, 2_000, 0, 2_000);
  for (const table of ['contacts', 'cards']) await db.system.execute(sql.raw(`vacuum analyze ${table}`));
}, 300_000);

afterEach(() => {
  deepPages.fromOffset = DEFAULT_FROM;
});

/** The same request with the deferred join and without it (today's plain query). */
async function both(path: string, query: Record<string, unknown>) {
  deepPages.fromOffset = 1;
  const deferred = await t.api.get(path, query);
  deepPages.fromOffset = Number.POSITIVE_INFINITY;
  const plain = await t.api.get(path, query);
  deepPages.fromOffset = DEFAULT_FROM;
  expect(deferred.status, JSON.stringify(deferred.body)).toBe(200);
  expect(plain.status).toBe(200);
  return { deferred: deferred.body, plain: plain.body };
}

const cardLists: [string, Record<string, unknown>][] = [
  ['the board, default sort', {}],
  ['a phase, default sort', { 'filters[currentPhase][slug]': 'open' }],
  ['the board, createdAt:asc', { sort: 'createdAt:asc' }],
  ['a phase, title:asc', { 'filters[currentPhase][slug]': 'open', sort: 'title:asc' }],
  ['the board, value:desc,createdAt:asc', { sort: 'value:desc,createdAt:asc' }],
  ['the board, dueDate:asc', { sort: 'dueDate:asc' }],
  ['the board, updatedAt:desc', { sort: 'updatedAt:desc' }],
];

const contactLists: [string, Record<string, unknown>][] = [
  ['default sort', {}],
  ['name:asc', { sort: 'name:asc' }],
  ['name:desc', { sort: 'name:desc' }],
];

describe('deep pages: the same answer', () => {
  test.each(cardLists)('cards, %s: every page as today', async (_n, query) => {
    const path = `/boards/${boardId}/cards`;
    const seen: string[] = [];
    for (const start of [0, 1, 99, 1_000, 5_003, 9_975, PHASE - 40, PHASE + DONE - 3, PHASE + DONE + 10]) {
      const { deferred, plain } = await both(path, {
        ...query,
        'pagination[start]': start,
        'pagination[limit]': 100,
        stats: false,
      });
      expect(JSON.stringify(deferred)).toBe(JSON.stringify(plain));
      seen.push(...deferred.data.map((c: { documentId: string }) => c.documentId));
    }
    expect(seen.length).toBeGreaterThan(600);
    // A run of consecutive pages is the list itself, in order: no card twice.
    const run: string[] = [];
    for (let page = 90; page < 95; page++) {
      const { deferred, plain } = await both(path, { ...query, 'pagination[page]': page, stats: false });
      expect(JSON.stringify(deferred)).toBe(JSON.stringify(plain));
      run.push(...deferred.data.map((c: { documentId: string }) => c.documentId));
    }
    expect(new Set(run).size).toBe(125);
  });

  test.each(contactLists)('contacts, %s: every page as today', async (_n, query) => {
    for (const start of [0, 7, 1_000, 9_975, CONTACTS - 30, CONTACTS + 5]) {
      const { deferred, plain } = await both('/contacts', {
        ...query,
        'pagination[start]': start,
        'pagination[limit]': 100,
      });
      expect(JSON.stringify(deferred)).toBe(JSON.stringify(plain));
    }
    const filtered = await both('/contacts', {
      ...query,
      'filters[name][$startsWith]': 'Contact 9',
      'pagination[page]': 3,
    });
    expect(filtered.deferred.data.length).toBeGreaterThan(0);
    expect(JSON.stringify(filtered.deferred)).toBe(JSON.stringify(filtered.plain));
  });

  test("another organization's rows are never in a deep page", async () => {
    const mine = await t.api.get('/contacts', { 'pagination[page]': 400 });
    const theirs = await other.api.get('/contacts', { 'pagination[page]': 40 });
    expect(mine.body.data).toHaveLength(25);
    expect(theirs.body.data).toHaveLength(25);
    const ids = new Set(mine.body.data.map((c: { documentId: string }) => c.documentId));
    expect(theirs.body.data.some((c: { documentId: string }) => ids.has(c.documentId))).toBe(false);
    expect((await other.api.get('/contacts', { 'pagination[page]': 400 })).body.data).toEqual([]);
  });
});

/** The statement that reads the page (`… order by … limit`) from `table`. */
async function pageStatement(path: string, query: Record<string, unknown>, table: string) {
  const { db } = await getApp();
  const rec = recorder(db);
  let statements: Statement[];
  try {
    rec.start();
    const res = await t.api.get(path, query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toHaveLength(25);
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

/** EXPLAIN (FORMAT JSON) as the service runs the statement (role crm_app, the tenant set), seq scans off. */
async function explain(st: Statement): Promise<PlanNode> {
  const { db } = await getApp();
  const setup = `select set_config('role', 'crm_app', true), set_config('app.organization_id', '${orgId}', true)`;
  const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as { Plan: PlanNode }[];
  if (db.kind === 'postgres') {
    const client = await (db.pool as pg.Pool).connect();
    try {
      await client.query('begin');
      await client.query(setup);
      await client.query('set local enable_seqscan = off');
      const res = await client.query({ text: `explain (format json) ${st.text}`, values: st.values });
      return parse(res.rows[0]['QUERY PLAN'])[0].Plan;
    } finally {
      await client.query('rollback').catch(() => {});
      client.release();
    }
  }
  return (db.pglite as PGlite).transaction(async (tx) => {
    await tx.query(setup);
    await tx.query('set local enable_seqscan = off');
    const res = await tx.query<Record<string, unknown>>(`explain (format json) ${st.text}`, st.values);
    return parse(res.rows[0]['QUERY PLAN'])[0].Plan;
  });
}

/** The Limit node that picks the page's keys: it has an OFFSET (a second child plan) under the IN's subquery. */
function keyWalk(plan: PlanNode): PlanNode {
  const limits = nodes(plan).filter((n) => n['Node Type'] === 'Limit');
  expect(limits, JSON.stringify(plan)).toHaveLength(1);
  return limits[0];
}

const deep: [string, string, () => string, Record<string, unknown>, string, string][] = [
  [
    'cards, page 400 of a phase',
    'cards',
    () => `/boards/${boardId}/cards`,
    { 'filters[currentPhase][slug]': 'open', 'pagination[page]': 400, stats: false },
    'cards_org_board_phase_created_idx',
    'cards_pkey',
  ],
  [
    'cards, page 400 of the board',
    'cards',
    () => `/boards/${boardId}/cards`,
    { 'pagination[page]': 400, stats: false },
    'cards_org_board_created_idx',
    'cards_pkey',
  ],
  [
    'contacts, page 400',
    'contacts',
    () => '/contacts',
    { 'pagination[page]': 400 },
    'contacts_org_created_idx',
    '',
  ],
  [
    'contacts by name, page 400',
    'contacts',
    () => '/contacts',
    { sort: 'name:asc', 'pagination[page]': 400 },
    'contacts_org_name_idx',
    '',
  ],
];

describe('deep pages: the plan', () => {
  test.each(deep)(
    '%s (offset 9,975): the keys from the list index, no Sort of the list, 25 rows fetched by key',
    async (_n, table, path, query, index) => {
      const st = await pageStatement(path(), query, table);
      expect(st.values).toContain(9975);
      // Fresh statistics right before the plan: other test files write cards and contacts into the same
      // PostgreSQL database meanwhile (a CI run once planned this page on stale estimates).
      const { db } = await getApp();
      await db.system.execute(sql.raw(`analyze ${table}`));
      const plan = await explain(st);
      const described = JSON.stringify(plan);
      const all = nodes(plan);
      expect(
        all.map((n) => n['Node Type']),
        described,
      ).not.toContain('Seq Scan');
      // The keys: a walk of the index that serves the order, under the LIMIT/OFFSET, nothing sorted there.
      const walk = nodes(keyWalk(plan));
      // A page of one phase may also walk the board's list index with the phase as its filter (the same order;
      // the planner's pick when the phase holds most of the board, seen in a CI run on the shared database).
      const serving =
        index === 'cards_org_board_phase_created_idx' ? [index, 'cards_org_board_created_idx'] : [index];
      expect(
        walk.some(
          (n) => /^Index (Only )?Scan$/.test(n['Node Type']) && serving.includes(n['Index Name'] ?? ''),
        ),
        described,
      ).toBe(true);
      expect(
        walk.map((n) => n['Node Type']),
        described,
      ).not.toContain('Sort');
      expect(
        walk.map((n) => n['Node Type']),
        described,
      ).not.toContain('Incremental Sort');
      // The rows: the table read once more outside the key walk, by its primary key (the page's 25 keys).
      const inWalk = new Set(walk);
      const fetches = all.filter((n) => !inWalk.has(n) && n['Relation Name'] === table);
      expect(fetches, described).toHaveLength(1);
      expect(fetches[0]['Node Type'], described).toBe('Index Scan');
      expect(fetches[0]['Index Name'], described).toBe(`${table}_organization_id_id_pk`);
    },
  );

  test('a shallow page keeps the plain plan (one read of the table, no key walk)', async () => {
    const st = await pageStatement(
      `/boards/${boardId}/cards`,
      { 'pagination[page]': 2, stats: false },
      'cards',
    );
    expect(st.text).not.toMatch(/\) in \(select/);
  });
});
