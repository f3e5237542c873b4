import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { recorder } from '../../../bench/capture.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { type Api, addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';

/**
 * The title search table (src/modules/cards/title-search.ts): the total and stats of `filters[title][$containsi]`
 * (alone or in one phase) read from `card_title_search` equal the same aggregates over the cards, the table
 * follows every card write, and it is a tenant table like any other.
 */
beforeAll(async () => {
  await getApp();
});

const DAY = 86_400_000;

/** Open (entry) → Working (SLA 2 h) → Done, no required fields. */
async function board(api: Api) {
  const res = await api.post('/boards', {
    data: {
      name: `Search ${Math.random().toString(36).slice(2, 8)}`,
      phases: [
        { name: 'Open', slug: 'open' },
        { name: 'Working', slug: 'working', maxTimeInPhaseHours: 2 },
        { name: 'Done', slug: 'done' },
      ],
      tags: [{ name: 'Hot', slug: 'hot', color: '#f00' }],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const phases = Object.fromEntries(res.body.phases.map((p: any) => [p.slug, p.documentId]));
  return { id: res.body.documentId as string, phases: phases as Record<string, string> };
}

async function card(api: Api, boardId: string, data: Record<string, unknown>) {
  const res = await api.post(`/boards/${boardId}/cards`, { data });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.documentId as string;
}

async function orgId(slug: string) {
  const { db } = await getApp();
  const [row] = await queryRows<{ id: number }>(
    db.system,
    sql`select id::int as id from organizations where slug = ${slug}`,
  );
  return row.id;
}

/** The search rows of the organization equal its cards' copied columns (title folded: crm_fold), row for row. */
async function expectMirrored(t: Tenant) {
  const { db } = await getApp();
  const org = await orgId(t.slug);
  const stored = await queryRows(
    db.system,
    sql`select card_id::int as id, board_id::int as board, phase_id::int as phase, phase_entered_at as entered,
               due_date as due, value::float8 as value, title
        from card_title_search where organization_id = ${org} order by 1`,
  );
  const truth = await queryRows(
    db.system,
    sql`select id::int as id, board_id::int as board, current_phase_id::int as phase, current_phase_entered_at as entered,
               due_date as due, value::float8 as value, crm_fold(title) as title
        from cards where organization_id = ${org} order by 1`,
  );
  expect(stored).toEqual(truth);
}

/**
 * meta (total and stats) and page through the search table and through the cards (a second condition on the
 * title: the generic path), for the title alone and within each phase.
 */
async function expectSameAsGeneric(
  api: Api,
  b: { id: string; phases: Record<string, string> },
  text: string,
  extra: Record<string, unknown> = {},
) {
  const totals: number[] = [];
  for (const phase of [undefined, ...Object.values(b.phases)]) {
    const scope = {
      'filters[title][$containsi]': text,
      ...(phase ? { 'filters[currentPhase][documentId][$eq]': phase } : {}),
      ...('pagination[start]' in extra ? {} : { 'pagination[pageSize]': 100 }),
      ...extra,
    };
    const fast = await api.get(`/boards/${b.id}/cards`, scope);
    const generic = await api.get(`/boards/${b.id}/cards`, { ...scope, 'filters[title][$notNull]': true });
    expect(fast.status, JSON.stringify(fast.body)).toBe(200);
    expect(generic.status).toBe(200);
    expect(fast.body.meta, `${text} ${phase}`).toEqual(generic.body.meta);
    expect(fast.body.data.map((c: { documentId: string }) => c.documentId)).toEqual(
      generic.body.data.map((c: { documentId: string }) => c.documentId),
    );
    totals.push(fast.body.meta.pagination.total);
  }
  return totals;
}

/** The statements a card list ran that count (`count(`), by the table they read. */
async function countTables(api: Api, boardId: string, query: Record<string, unknown>) {
  const { db } = await getApp();
  const rec = recorder(db);
  try {
    rec.start();
    const res = await api.get(`/boards/${boardId}/cards`, query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return rec
      .stop()
      .filter((s) => /\bcount\(/.test(s.text))
      .map((s) =>
        s.text.includes('from "card_title_search"')
          ? 'search'
          : s.text.includes('from "cards"')
            ? 'cards'
            : 'counts',
      );
  } finally {
    rec.uninstall();
  }
}

describe('card title search table', () => {
  test('total and stats equal the aggregates over the cards, alone and in each phase (SLA, overdue, value)', async () => {
    const t = await newTenant();
    const b = await board(t.api);
    const now = Date.now();
    const titles = ['Globex deal', 'GLOBEX renewal', 'Initech', 'globex_2 50%', 'Ação Globex', 'Umbrella'];
    for (const [i, title] of titles.entries()) {
      const id = await card(t.api, b.id, {
        title,
        value: 100 * (i + 1) + 0.25,
        ...(i % 2 ? { dueDate: new Date(now + (i - 3) * DAY).toISOString() } : {}),
      });
      if (i % 3 === 1)
        expect((await t.api.post(`/boards/${b.id}/cards/${id}/move`, { phase: 'working' })).status).toBe(200);
    }
    // One card in Working past its 2-hour SLA.
    const { db } = await getApp();
    await db.system.execute(
      sql`update cards set current_phase_entered_at = now() - interval '3 hours'
          where title = 'GLOBEX renewal' and organization_id = ${await orgId(t.slug)}`,
    );
    await expectMirrored(t);
    expect(await expectSameAsGeneric(t.api, b, 'globex')).toEqual([4, 2, 2, 0]);
    const working = await t.api.get(`/boards/${b.id}/cards`, {
      'filters[title][$containsi]': 'globex',
      'filters[currentPhase][documentId][$eq]': b.phases.working,
    });
    expect(working.body.meta.stats.phaseSlaBreachedCount).toBe(1);
    for (const text of ['GLOBEX', 'ação', '_2', '%', 'zz', '']) await expectSameAsGeneric(t.api, b, text);
    // Another "today" (a non-midnight start too), stats off, the offset form.
    await expectSameAsGeneric(t.api, b, 'globex', { statsTodayStart: new Date(now + DAY).toISOString() });
    await expectSameAsGeneric(t.api, b, 'globex', { stats: false });
    await expectSameAsGeneric(t.api, b, 'globex', { 'pagination[start]': 1, 'pagination[limit]': 2 });
  });

  test('only the plain title search (and its phase) reads the table; other filters and $contains read the cards', async () => {
    const t = await newTenant();
    const b = await board(t.api);
    await card(t.api, b.id, { title: 'Globex', tags: ['hot'] });
    await card(t.api, b.id, { title: 'globex two' });
    await card(t.api, b.id, { title: 'Initech' });
    expect(await countTables(t.api, b.id, { 'filters[title][$containsi]': 'globex' })).toEqual(['search']);
    expect(
      await countTables(t.api, b.id, {
        'filters[title][$containsi]': 'globex',
        'filters[currentPhase][slug][$eq]': 'open',
      }),
    ).toEqual(['search']);
    for (const query of [
      { 'filters[title][$containsi]': 'globex', 'filters[tags][slug][$eq]': 'hot' },
      { 'filters[title][$contains]': 'Globex' },
      { 'filters[title][$containsi]': 'globex', 'filters[currentPhase][slug][$in]': ['open', 'done'] },
      { 'filters[description][$containsi]': 'globex' },
    ])
      expect(await countTables(t.api, b.id, query), JSON.stringify(query)).toEqual(['cards']);
    const total = async (query: Record<string, unknown>) =>
      (await t.api.get(`/boards/${b.id}/cards`, query)).body.meta.pagination.total;
    expect(await total({ 'filters[title][$containsi]': 'globex', 'filters[tags][slug][$eq]': 'hot' })).toBe(
      1,
    );
    expect(await total({ 'filters[title][$contains]': 'Globex' })).toBe(1);
    expect(await total({ 'filters[title][$containsi]': 'globex' })).toBe(2);
  });

  test('a member who sees only assigned cards is counted over the cards', async () => {
    const t = await newTenant();
    const editor = await addMember(t, 'member');
    const res = await t.api.post('/boards', {
      data: {
        name: 'Restricted',
        phases: [{ name: 'Open', slug: 'open' }],
        boardSettings: { restrictViewToAssignees: true },
        editors: [editor.membershipId],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const boardId = res.body.documentId;
    await card(t.api, boardId, { title: 'Globex mine', value: 10, assignees: [editor.membershipId] });
    await card(t.api, boardId, { title: 'Globex theirs', value: 90 });
    const mine = await editor.api.get(`/boards/${boardId}/cards`, { 'filters[title][$containsi]': 'globex' });
    expect(mine.body.meta.pagination.total).toBe(1);
    expect(mine.body.meta.stats.valueSum).toBe(10);
    expect(await countTables(editor.api, boardId, { 'filters[title][$containsi]': 'globex' })).toEqual([
      'cards',
    ]);
    expect(
      (await t.api.get(`/boards/${boardId}/cards`, { 'filters[title][$containsi]': 'globex' })).body.meta
        .pagination.total,
    ).toBe(2);
  });

  test('follows creates, edits, moves, deletes and a deleted board', async () => {
    const t = await newTenant();
    const b = await board(t.api);
    const other = await board(t.api);
    const ids = [];
    for (const title of ['Globex A', 'Initech B', 'Globex C', 'Hooli D'])
      ids.push(await card(t.api, b.id, { title, value: 10 }));
    await card(t.api, other.id, { title: 'Globex elsewhere', value: 5 });
    await expectMirrored(t);
    expect((await expectSameAsGeneric(t.api, b, 'globex'))[0]).toBe(2);

    const edit = (id: string, data: Record<string, unknown>) =>
      t.api.put(`/boards/${b.id}/cards/${id}`, { data });
    expect((await edit(ids[1], { title: 'GLOBEX B' })).status).toBe(200);
    expect(
      (await edit(ids[0], { value: 99.5, dueDate: new Date(Date.now() - DAY).toISOString() })).status,
    ).toBe(200);
    expect((await edit(ids[2], { title: 'Umbrella C' })).status).toBe(200);
    expect((await t.api.post(`/boards/${b.id}/cards/${ids[1]}/move`, { phase: 'working' })).status).toBe(200);
    expect((await t.api.post(`/boards/${b.id}/cards/${ids[0]}/move`, { phase: 'done' })).status).toBe(200);
    await expectMirrored(t);
    expect(await expectSameAsGeneric(t.api, b, 'globex')).toEqual([2, 0, 1, 1]);

    expect((await t.api.delete(`/boards/${b.id}/cards/${ids[0]}`)).status).toBe(200);
    await expectMirrored(t);
    expect((await expectSameAsGeneric(t.api, b, 'globex'))[0]).toBe(1);

    expect((await t.api.delete(`/boards/${b.id}`)).status).toBe(200);
    await expectMirrored(t);
    expect((await expectSameAsGeneric(t.api, other, 'globex'))[0]).toBe(1);
  });

  test("another organization's cards are neither counted nor visible in the table", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const boardA = await board(a.api);
    const boardB = await board(b.api);
    await card(a.api, boardA.id, { title: 'Globex' });
    for (const title of ['Globex 1', 'Globex 2']) await card(b.api, boardB.id, { title });
    expect((await expectSameAsGeneric(a.api, boardA, 'globex'))[0]).toBe(1);
    expect((await expectSameAsGeneric(b.api, boardB, 'globex'))[0]).toBe(2);
    expect(
      (await a.api.get(`/boards/${boardB.id}/cards`, { 'filters[title][$containsi]': 'x' })).status,
    ).toBe(404);
    const { db } = await getApp();
    const [orgA, orgB] = [await orgId(a.slug), await orgId(b.slug)];
    const seen = await db.tenantTransaction(orgA, (tx) =>
      queryRows<{ org: number; n: number }>(
        tx,
        sql`select organization_id::int as org, count(*)::int as n from card_title_search group by 1`,
      ),
    );
    expect(seen).toEqual([{ org: orgA, n: 1 }]);
    await expect(
      db.tenantTransaction(orgA, (tx) =>
        tx.execute(
          sql`insert into card_title_search (organization_id, card_id, board_id, phase_entered_at, value, title)
              values (${orgB}, 1, 1, now(), 0, 'x')`,
        ),
      ),
    ).rejects.toMatchObject({ cause: expect.objectContaining({ code: '42501' }) });
  });
});
