import { sql } from 'drizzle-orm';
import { describe, expect, test } from 'vitest';
import * as reportRepo from '../../../src/modules/cards/report-repo.js';
import { compactReport, ROLLUP_OF_CARDS } from '../../../src/modules/cards/report-rollups.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { addMember, getApp, newTenant } from '../../helpers/app.js';

/** Deterministic PRNG (mulberry32) so a failure replays. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY = 86_400_000;

type Row = { board: number; kind: string; key: number; day: string; n: number; v: number };

/** The rollups as stored (folded + pending deltas) and as the cards say they must be: equal, row for row. */
async function expectRollupsMatchCards(org: number) {
  const { db } = await getApp();
  await db.tenantTransaction(org, async (tx) => {
    const stored = await queryRows<Row>(
      tx,
      sql`select board_id::int as board, kind, key::int as key, day::text as day, sum(card_count)::int as n,
            sum(value_sum)::float8 as v
          from (select board_id, kind, key, day, card_count, value_sum from card_report_rollups
                union all select board_id, kind, key, day, card_count, value_sum from card_report_deltas) r
          group by 1, 2, 3, 4 having sum(card_count) <> 0 order by 1, 2, 3, 4`,
    );
    const truth = await queryRows<Row>(
      tx,
      sql.raw(`select board_id::int as board, kind, key::int as key, day::text as day, card_count::int as n,
                 value_sum::float8 as v from (${ROLLUP_OF_CARDS(String(org))}) r order by 1, 2, 3, 4`),
    );
    expect(stored).toEqual(truth);
  });
}

/** The report from the rollups and from the cards, for a range: the same rows. */
async function expectReportsAgree(
  org: number,
  boardId: number,
  from: Date,
  to: Date,
  won: number,
  lost: number,
) {
  const { db } = await getApp();
  const norm = (rows: reportRepo.ReportRow[]) =>
    rows
      .filter((r) => r.kind !== 'pending')
      .map((r) => ({ ...r, value: Math.round(r.value * 100) / 100 }))
      .sort((a, b) =>
        `${a.kind}|${a.key}|${a.day}`.localeCompare(`${b.kind}|${b.key}|${b.day}`, 'en', { numeric: true }),
      );
  await db.tenantTransaction(org, async (tx) => {
    const s: reportRepo.ReportScope = { orgId: org, boardId, from, to, assigneeOnly: null };
    const fast = await reportRepo.boardReport(tx, s, won, lost);
    expect(fast.some((r) => r.kind === 'pending')).toBe(true); // the rollup path, not the fallback
    expect(norm(fast)).toEqual(norm(await reportRepo.boardReportFromCards(tx, s, won, lost)));
  });
}

describe('board report rollups', () => {
  test('equal the full computation after random creates, edits, moves, link changes, backdating and deletes', async () => {
    const t = await newTenant();
    const m1 = await addMember(t, 'member');
    const m2 = await addMember(t, 'member');
    const res = await t.api.post('/boards', {
      data: {
        name: 'Rollups',
        phases: [
          { name: 'Open', slug: 'open' },
          { name: 'Won', slug: 'won' },
          { name: 'Lost', slug: 'lost' },
        ],
        tags: [
          { name: 'Hot', slug: 'hot' },
          { name: 'Cold', slug: 'cold' },
          { name: 'Vip', slug: 'vip' },
        ],
        boardSettings: { wonPhase: 'won', lostPhase: 'lost' },
      },
    });
    expect(res.status).toBe(201);
    const boardDoc = res.body.documentId as string;
    const phases = res.body.phases.map((p: { documentId: string }) => p.documentId) as string[];
    const { db } = await getApp();
    const [ids] = await queryRows<{ org: number; board: number; won: number; lost: number }>(
      db.system,
      sql`select b.organization_id::int as org, b.id::int as board,
            (select id::int from phases where board_id = b.id and slug = 'won') as won,
            (select id::int from phases where board_id = b.id and slug = 'lost') as lost
          from boards b where b.document_id = ${boardDoc}`,
    );
    const members = [t.membershipId, m1.membershipId, m2.membershipId];
    const rnd = prng(11);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    const some = <T>(xs: T[]) => xs.filter(() => rnd() < 0.4);
    const live: string[] = [];
    const inTenant = (q: ReturnType<typeof sql>) => db.tenantTransaction(ids.org, (tx) => tx.execute(q));
    for (let i = 0; i < 70; i++) {
      const op = live.length < 6 ? 0 : Math.floor(rnd() * 6);
      if (op === 0) {
        const created = await t.api.post(`/boards/${boardDoc}/cards`, {
          data: {
            title: `r${i}`,
            value: Math.round(rnd() * 100_000) / 100,
            currentPhase: pick(phases),
            tags: some(['hot', 'cold', 'vip']),
            assignees: some(members),
          },
        });
        expect(created.status).toBe(201);
        live.push(created.body.documentId);
      } else if (op === 1) {
        const data =
          rnd() < 0.5 ? { value: Math.round(rnd() * 1000) } : { tags: some(['hot', 'cold', 'vip']) };
        expect((await t.api.put(`/boards/${boardDoc}/cards/${pick(live)}`, { data })).status).toBe(200);
      } else if (op === 2) {
        const r = await t.api.put(`/boards/${boardDoc}/cards/${pick(live)}`, {
          data: { assignees: some(members) },
        });
        expect(r.status).toBe(200);
      } else if (op === 3) {
        const r = await t.api.post(`/boards/${boardDoc}/cards/${pick(live)}/move`, { phase: pick(phases) });
        expect([200, 422]).toContain(r.status);
      } else if (op === 4) {
        // Backdating (an import, a data fix): the card and its links move to another created day (and board).
        await inTenant(
          sql`update cards set created_at = created_at - make_interval(days => ${1 + Math.floor(rnd() * 40)},
                hours => ${Math.floor(rnd() * 24)}) where document_id = ${pick(live)}`,
        );
      } else {
        const id = live.splice(Math.floor(rnd() * live.length), 1)[0];
        expect((await t.api.delete(`/boards/${boardDoc}/cards/${id}`)).status).toBe(200);
      }
      if (i % 20 === 19) await expectRollupsMatchCards(ids.org);
    }
    // Several cards in one statement (bulk backdating and values), deleted in one statement with their links.
    await inTenant(
      sql`update cards set created_at = created_at - interval '3 days 5 hours', value = value + 1
          where board_id = ${ids.board} and title like 'r1%'`,
    );
    await expectRollupsMatchCards(ids.org);
    // A tag deleted (its links cascade, the cards stay) and a member removed (the same for assignees).
    await inTenant(sql`delete from tags where organization_id = ${ids.org} and slug = 'vip'`);
    expect((await t.api.delete(`/memberships/${m2.membershipId}`)).status).toBeLessThan(300);
    await expectRollupsMatchCards(ids.org);

    const now = Date.now();
    const midnight = Math.floor(now / DAY) * DAY;
    const ranges: [number, number][] = [
      [0, now], // everything
      // Ending within the last minute: today read whole from the rollups, less the cards created after the end.
      [midnight - 3 * DAY + 1, now - 1_000],
      [0, now - 20_000],
      [midnight - 20 * DAY + 3_600_000, now - 60_000], // partial days at both ends
      [midnight - 30 * DAY, midnight - 5 * DAY], // exact midnights
      [midnight - 45 * DAY + 1, midnight - DAY - 1],
    ];
    for (const [from, to] of ranges)
      await expectReportsAgree(ids.org, ids.board, new Date(from), new Date(to), ids.won, ids.lost);
    // After a fold, still the same; and through the API.
    await db.tenantTransaction(ids.org, (tx) => compactReport(tx, ids.org, ids.board));
    await expectRollupsMatchCards(ids.org);
    for (const [from, to] of ranges)
      await expectReportsAgree(ids.org, ids.board, new Date(from), new Date(to), ids.won, ids.lost);
    // Deleting cards in one statement (the links cascade after the card rows are gone: parked, then counted).
    await inTenant(sql`delete from cards where board_id = ${ids.board} and value > 300`);
    await expectRollupsMatchCards(ids.org);
    const report = await t.api.get(`/boards/${boardDoc}/report`, { from: new Date(0).toISOString() });
    expect(report.status).toBe(200);
    const list = await t.api.get(`/boards/${boardDoc}/cards`, { 'pagination[pageSize]': 1 });
    expect(report.body.summary.totalCards).toBe(list.body.meta.pagination.total);
  });

  test("another organization's cards never reach a board's rollups, and a deleted board leaves none", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const board = await a.api.post('/boards', {
      data: { name: 'A', phases: [{ name: 'Open', slug: 'open' }] },
    });
    await a.api.post(`/boards/${board.body.documentId}/cards`, { data: { title: 'x', value: 5 } });
    const { db } = await getApp();
    const [ids] = await queryRows<{ org: number; board: number; borg: number }>(
      db.system,
      sql`select b.organization_id::int as org, b.id::int as board,
            (select id::int from organizations where slug = ${b.slug}) as borg
          from boards b where b.document_id = ${board.body.documentId}`,
    );
    // B sees none of A's rollup rows (RLS), and cannot write any for A.
    const seen = await db.tenantTransaction(ids.borg, (tx) =>
      queryRows<{ n: number }>(
        tx,
        sql`select (select count(*) from card_report_rollups) + (select count(*) from card_report_deltas) as n`,
      ),
    );
    expect(Number(seen[0].n)).toBe(0);
    await expect(
      db.tenantTransaction(ids.borg, (tx) =>
        tx.execute(sql`insert into card_report_deltas (organization_id, board_id, kind, key, day, card_count, value_sum)
                       values (${ids.org}, ${ids.board}, 'p', 0, current_date, 1, 0)`),
      ),
    ).rejects.toThrow();
    await expectRollupsMatchCards(ids.org);
    expect((await a.api.delete(`/boards/${board.body.documentId}`)).status).toBe(200);
    const left = await db.tenantTransaction(ids.org, (tx) =>
      queryRows<{ n: number }>(
        tx,
        sql`select (select count(*) from card_report_rollups where board_id = ${ids.board})
                 + (select count(*) from card_report_deltas where board_id = ${ids.board})
                 + (select count(*) from card_report_tombstones) as n`,
      ),
    );
    expect(Number(left[0].n)).toBe(0);
  });

  test('the one-statement create answers the card as a read of it does (tags, assignees, history)', async () => {
    const t = await newTenant();
    const res = await t.api.post('/boards', {
      data: {
        name: 'Create',
        phases: [{ name: 'Open', slug: 'open' }],
        tags: ['a', 'b', 'c'].map((slug) => ({ name: slug.toUpperCase(), slug })),
      },
    });
    const boardDoc = res.body.documentId as string;
    for (const data of [
      { title: 'no links' },
      { title: 'tags', tags: ['c', 'a', 'c'] },
      { title: 'both', tags: ['b'], assignees: [t.membershipId, t.membershipId] },
    ]) {
      const created = await t.api.post(`/boards/${boardDoc}/cards`, { data });
      expect(created.status).toBe(201);
      const read = await t.api.get(`/boards/${boardDoc}/cards/${created.body.documentId}`);
      expect(created.body).toEqual(read.body);
      const history = await t.api.get(`/boards/${boardDoc}/cards/${created.body.documentId}/comments`);
      expect(history.body.data.map((c: { activityType: string }) => c.activityType)).toContain(
        'card_created',
      );
    }
  });
});
