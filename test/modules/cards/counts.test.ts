import { sql } from 'drizzle-orm';
import { describe, expect, test } from 'vitest';
import { COMPACT_AFTER, countsOf, foldSometimes } from '../../../src/modules/cards/counts.js';
import type { Tx } from '../../../src/platform/db/client.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { mulberry32 } from '../../../src/platform/random.js';
import { type Api, getApp, newTenant } from '../../helpers/app.js';

/** A board with no required fields: Open (entry) → Working (SLA 2 h) → Done. */
async function board(api: Api) {
  const res = await api.post('/boards', {
    data: {
      name: `Counts ${Math.random().toString(36).slice(2, 8)}`,
      phases: [
        { name: 'Open', slug: 'open' },
        { name: 'Working', slug: 'working', maxTimeInPhaseHours: 2 },
        { name: 'Done', slug: 'done' },
      ],
    },
  });
  expect(res.status).toBe(201);
  return {
    id: res.body.documentId as string,
    phases: Object.fromEntries(res.body.phases.map((p: any) => [p.slug, p.documentId])) as Record<
      string,
      string
    >,
  };
}

async function orgAndBoardIds(slug: string, boardDocumentId: string) {
  const { db } = await getApp();
  const [row] = await queryRows<{ org: number; board: number }>(
    db.system,
    sql`select b.organization_id::int as org, b.id::int as board from boards b
        join organizations o on o.id = b.organization_id where o.slug = ${slug} and b.document_id = ${boardDocumentId}`,
  );
  return row;
}

/**
 * meta of the list through the counts (no filter / one phase) and through the cards themselves (the same set
 * behind a filter the counts cannot answer): they must be equal.
 */
async function expectCountsMatchCards(api: Api, b: { id: string; phases: Record<string, string> }) {
  const scopes: [Record<string, unknown>, Record<string, unknown>][] = [
    [{}, { 'filters[title][$notNull]': true }],
    ...Object.values(b.phases).map((p): [Record<string, unknown>, Record<string, unknown>] => [
      { 'filters[currentPhase][documentId][$eq]': p },
      { 'filters[currentPhase][documentId][$eq]': p, 'filters[title][$notNull]': true },
    ]),
  ];
  for (const [fast, live] of scopes) {
    const a = await api.get(`/boards/${b.id}/cards`, { ...fast, 'pagination[pageSize]': 1 });
    const c = await api.get(`/boards/${b.id}/cards`, { ...live, 'pagination[pageSize]': 1 });
    expect(a.status).toBe(200);
    expect(c.status).toBe(200);
    expect(a.body.meta).toEqual(c.body.meta);
  }
}

const DAY = 86_400_000;

async function pendingOf(tx: Tx, boardId: number) {
  const [r] = await queryRows<{ n: number }>(
    tx,
    sql`select count(*)::int as n from card_count_deltas where board_id = ${boardId}`,
  );
  return r.n;
}

describe('card counts (list total and stats without reading the cards)', () => {
  test('equal the aggregate over the cards after random creates, edits, moves and deletes', async () => {
    const t = await newTenant();
    const b = await board(t.api);
    const rnd = mulberry32(7);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    const midnight = Math.floor(Date.now() / DAY) * DAY;
    const dueDates = [null, midnight - 10 * DAY, midnight - 1, midnight, midnight + 5 * DAY + 3_600_000].map(
      (d) => (d === null ? null : new Date(d).toISOString()),
    );
    const live: string[] = [];
    for (let i = 0; i < 60; i++) {
      const op = live.length < 5 ? 0 : Math.floor(rnd() * 4);
      if (op === 0) {
        const res = await t.api.post(`/boards/${b.id}/cards`, {
          data: {
            title: `c${i}`,
            value: Math.round(rnd() * 100_000) / 100,
            dueDate: pick(dueDates),
            currentPhase: pick(Object.values(b.phases)),
          },
        });
        expect(res.status).toBe(201);
        live.push(res.body.documentId);
      } else if (op === 1) {
        const res = await t.api.put(`/boards/${b.id}/cards/${pick(live)}`, {
          data: rnd() < 0.5 ? { value: Math.round(rnd() * 1000) } : { dueDate: pick(dueDates) },
        });
        expect(res.status).toBe(200);
      } else if (op === 2) {
        const res = await t.api.post(`/boards/${b.id}/cards/${pick(live)}/move`, {
          phase: pick(Object.values(b.phases)),
        });
        expect([200, 422]).toContain(res.status);
      } else {
        const id = live.splice(Math.floor(rnd() * live.length), 1)[0];
        expect((await t.api.delete(`/boards/${b.id}/cards/${id}`)).status).toBe(200);
      }
      if (i % 15 === 14) await expectCountsMatchCards(t.api, b);
    }
    // SLA: cards that entered Working long ago are breached; an UPDATE of other columns writes no delta.
    const { db } = await getApp();
    const ids = await orgAndBoardIds(t.slug, b.id);
    await db.tenantTransaction(ids.org, (tx) =>
      tx.execute(
        sql`update cards set current_phase_entered_at = now() - interval '5 hours', title = title || '!' where board_id = ${ids.board}`,
      ),
    );
    await expectCountsMatchCards(t.api, b);
    const working = await t.api.get(`/boards/${b.id}/cards`, {
      'filters[currentPhase][documentId][$eq]': b.phases.working,
    });
    expect(working.body.meta.pagination.total).toBeGreaterThan(0);
    expect(working.body.meta.stats.phaseSlaBreachedCount).toBe(working.body.meta.pagination.total);
  });

  test('a reader folds the deltas once more than COMPACT_AFTER pile up, and the totals stay exact', async () => {
    const t = await newTenant();
    const b = await board(t.api);
    const { db } = await getApp();
    const ids = await orgAndBoardIds(t.slug, b.id);
    const n = COMPACT_AFTER + 20;
    await db.tenantTransaction(ids.org, async (tx) => {
      for (let i = 0; i < n; i++)
        await tx.execute(
          sql`insert into cards (organization_id, document_id, board_id, title, value, due_date, current_phase_id)
              select ${ids.org}, ${`bulk${i}x${ids.board}`}, ${ids.board}, ${`bulk ${i}`}, ${i}, now() + make_interval(days => ${(i % 7) - 3}),
                     (select id from phases where board_id = ${ids.board} order by "order" limit 1)`,
        );
    });
    const pending = () =>
      db.tenantTransaction(ids.org, async (tx) => {
        const [r] = await queryRows<{ n: number }>(
          tx,
          sql`select count(*)::int as n from card_count_deltas where board_id = ${ids.board}`,
        );
        return r.n;
      });
    expect(await pending()).toBeGreaterThan(COMPACT_AFTER);
    await expectCountsMatchCards(t.api, b);
    expect(await pending()).toBe(0);
    const folded = await db.tenantTransaction(ids.org, (tx) => countsOf(tx, ids.org, ids.board, null, null));
    expect(folded.total).toBe(n);
    await expectCountsMatchCards(t.api, b);
  });

  test('phase pinned by slug or a one-element $in, and an explicit statsTodayStart, agree with the cards', async () => {
    const t = await newTenant();
    const b = await board(t.api);
    const midnight = Math.floor(Date.now() / DAY) * DAY;
    for (const [i, due] of [midnight - 3 * DAY, midnight - DAY + 1, midnight + 2 * DAY, null].entries())
      await t.api.post(`/boards/${b.id}/cards`, {
        data: {
          title: `d${i}`,
          value: 10 * (i + 1),
          dueDate: due === null ? null : new Date(due).toISOString(),
          currentPhase: 'working',
        },
      });
    const list = (query: Record<string, unknown>) =>
      t.api.get(`/boards/${b.id}/cards`, { ...query, 'pagination[pageSize]': 1 });
    const live = await list({
      'filters[currentPhase][documentId][$eq]': b.phases.working,
      'filters[title][$notNull]': true,
    });
    expect(live.body.meta.pagination.total).toBe(4);
    for (const pin of [
      { 'filters[currentPhase][slug][$eq]': 'working' },
      { 'filters[currentPhase][slug]': 'working' },
      { 'filters[currentPhase][documentId][$in][0]': b.phases.working },
    ])
      expect((await list(pin)).body.meta).toEqual(live.body.meta);
    // "today" two days ago (a UTC midnight: the counts) and at noon (not a midnight: the cards).
    for (const todayStart of [midnight - 2 * DAY, midnight + DAY / 2].map((d) => new Date(d).toISOString())) {
      const fast = await list({ 'filters[currentPhase][slug]': 'working', statsTodayStart: todayStart });
      const slow = await list({
        'filters[currentPhase][slug]': 'working',
        'filters[title][$notNull]': true,
        statsTodayStart: todayStart,
      });
      expect(fast.body.meta).toEqual(slow.body.meta);
    }
    const twoDaysAgo = await list({
      'filters[currentPhase][slug]': 'working',
      statsTodayStart: new Date(midnight - 2 * DAY).toISOString(),
    });
    expect(twoDaysAgo.body.meta.stats.overdueCount).toBe(1);
  });

  test('card writes fold now and then too', async () => {
    const t = await newTenant();
    const b = await board(t.api);
    const { db } = await getApp();
    const ids = await orgAndBoardIds(t.slug, b.id);
    await t.api.post(`/boards/${b.id}/cards`, { data: { title: 'one', value: 5 } });
    await db.tenantTransaction(ids.org, async (tx) => {
      await foldSometimes(tx, ids.org, ids.board, () => 0.5);
      expect((await pendingOf(tx, ids.board)) > 0).toBe(true);
      await foldSometimes(tx, ids.org, ids.board, () => 0);
      expect(await pendingOf(tx, ids.board)).toBe(0);
      expect((await countsOf(tx, ids.org, ids.board, null, null)).total).toBe(1);
    });
  });

  test('another organization cannot read, change or count them', async () => {
    const a = await newTenant();
    const other = await newTenant();
    const ba = await board(a.api);
    for (let i = 0; i < 3; i++)
      expect(
        (await a.api.post(`/boards/${ba.id}/cards`, { data: { title: `a${i}`, value: 10 } })).status,
      ).toBe(201);
    const { db } = await getApp();
    const ids = await orgAndBoardIds(a.slug, ba.id);
    const otherIds = await queryRows<{ id: number }>(
      db.system,
      sql`select id::int from organizations where slug = ${other.slug}`,
    );
    const seen = await db.tenantTransaction(otherIds[0].id, async (tx) => {
      const counts = await queryRows<{ n: number }>(
        tx,
        sql`select (select count(*) from card_counts where board_id = ${ids.board})::int
               + (select count(*) from card_count_deltas where board_id = ${ids.board})::int as n`,
      );
      // Even asked directly for a's board, the other tenant's transaction sees nothing (RLS).
      const direct = await countsOf(tx, ids.org, ids.board, null, null);
      await tx.execute(sql`delete from card_count_deltas where board_id = ${ids.board}`);
      return { n: counts[0].n, direct: direct.total };
    });
    expect(seen).toEqual({ n: 0, direct: 0 });
    await expect(
      db.tenantTransaction(otherIds[0].id, (tx) =>
        tx.execute(
          sql`insert into card_count_deltas (organization_id, board_id, phase_id, due_day, card_count, value_sum)
              values (${ids.org}, ${ids.board}, 0, 'infinity', 1000, 1)`,
        ),
      ),
    ).rejects.toThrow();
    const list = await a.api.get(`/boards/${ba.id}/cards`);
    expect(list.body.meta.pagination.total).toBe(3);
    expect(list.body.meta.stats.valueSum).toBe(30);
  });

  test('deleting a board removes its counts', async () => {
    const t = await newTenant();
    const b = await board(t.api);
    await t.api.post(`/boards/${b.id}/cards`, { data: { title: 'x' } });
    const { db } = await getApp();
    const ids = await orgAndBoardIds(t.slug, b.id);
    expect((await t.api.delete(`/boards/${b.id}`)).status).toBe(200);
    const left = await queryRows<{ n: number }>(
      db.system,
      sql`select (select count(*) from card_counts where board_id = ${ids.board})::int
             + (select count(*) from card_count_deltas where board_id = ${ids.board})::int as n`,
    );
    expect(left[0].n).toBe(0);
  });
});
