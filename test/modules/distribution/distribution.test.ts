import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';
import { expectTwoToOne } from './expect.js';

type Member = Awaited<ReturnType<typeof addMember>>;

const assigneeOf = (card: { assignees: { documentId: string }[] }) => card.assignees[0]?.documentId;

describe('distribution queues', () => {
  let t: Tenant;
  let a: Member;
  let b: Member;
  let c: Member;

  beforeAll(async () => {
    t = await newTenant();
    a = await addMember(t, 'member');
    b = await addMember(t, 'member');
    c = await addMember(t, 'member');
  });

  async function queue(strategy: string, members: Record<string, unknown>[], board?: string) {
    const boardId = board ?? (await createPipeline(t.api)).boardId;
    const res = await t.api.post('/distribution-queues', {
      data: { name: `Q ${strategy}`, board: boardId, strategy, members },
    });
    expect(res.status).toBe(201);
    return { boardId, queue: res.body };
  }

  async function created(boardId: string, n: number) {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(assigneeOf(await createCard(t.api, boardId)));
    return out;
  }

  test('round robin: in turn, in membership order; inactive members are skipped; explicit assignees kept', async () => {
    const { boardId, queue: q } = await queue('round_robin', [
      { membership: a.membershipId },
      { membership: b.membershipId },
      { membership: c.membershipId, active: false },
    ]);
    expect(q.members).toHaveLength(3);
    expect(q.board.documentId).toBe(boardId);
    const got = await created(boardId, 4);
    expect(new Set(got)).toEqual(new Set([a.membershipId, b.membershipId]));
    expect(got[0]).not.toBe(got[1]);
    expect(got[2]).toBe(got[0]);
    expect(got[3]).toBe(got[1]);
    const explicit = await createCard(t.api, boardId, { assignees: [c.membershipId] });
    expect(explicit.assignees.map((x: { documentId: string }) => x.documentId)).toEqual([c.membershipId]);
    // The explicit card did not take a turn.
    expect((await created(boardId, 1))[0]).toBe(got[0]);
    const after = (await t.api.get(`/distribution-queues/${q.documentId}`)).body;
    const counts = Object.fromEntries(
      after.members.map((m: { membership: { documentId: string }; assignedCount: number }) => [
        m.membership.documentId,
        m.assignedCount,
      ]),
    );
    expect(counts[a.membershipId] + counts[b.membershipId]).toBe(5);
    expect(counts[c.membershipId]).toBe(0);
  });

  test('weighted 2:1: exactly in proportion over each window, interleaved', async () => {
    const { boardId } = await queue('weighted', [
      { membership: a.membershipId, weight: 2 },
      { membership: b.membershipId, weight: 1 },
    ]);
    const got = await created(boardId, 6);
    expectTwoToOne(got, a.membershipId, b.membershipId);
  });

  test('least open: the member with the fewest open cards on the board; ties go to who waited longest', async () => {
    const board = await createPipeline(t.api);
    // a already holds two open cards on the board.
    await createCard(t.api, board.boardId, { assignees: [a.membershipId] });
    await createCard(t.api, board.boardId, { assignees: [a.membershipId] });
    const { queue: q } = await queue(
      'least_open',
      [{ membership: a.membershipId }, { membership: b.membershipId }],
      board.boardId,
    );
    const got = await created(board.boardId, 3);
    // b gets two (0 → 1 → 2 open), then a and b tie at 2: the one who waited longest (a, never served) gets it.
    expect(got).toEqual([b.membershipId, b.membershipId, a.membershipId]);
    expect(q.strategy).toBe('least_open');
  });

  test('concurrent creations keep the rotation: 20 cards at once, 10 each', async () => {
    const { boardId } = await queue('round_robin', [
      { membership: a.membershipId },
      { membership: b.membershipId },
    ]);
    const cards = await Promise.all(Array.from({ length: 20 }, () => createCard(t.api, boardId)));
    const got = cards.map(assigneeOf);
    expect(got.filter((x) => x === a.membershipId)).toHaveLength(10);
    expect(got.filter((x) => x === b.membershipId)).toHaveLength(10);
  });

  test('one queue per board; admins configure; members read; unknown members named; delete stops it', async () => {
    const { boardId, queue: q } = await queue('round_robin', [{ membership: a.membershipId }]);
    const second = await t.api.post('/distribution-queues', {
      data: {
        name: 'again',
        board: boardId,
        strategy: 'weighted',
        members: [{ membership: b.membershipId }],
      },
    });
    expect(second.status).toBe(400);
    const unknown = await t.api.put(`/distribution-queues/${q.documentId}`, {
      data: { members: [{ membership: 'z'.repeat(24) }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.errors[0].path).toEqual(['members', 0, 'membership']);
    expect((await a.api.get(`/distribution-queues/${q.documentId}`)).status).toBe(200);
    expect(
      (await a.api.put(`/distribution-queues/${q.documentId}`, { data: { active: false } })).status,
    ).toBe(403);
    expect(
      (
        await a.api.post('/distribution-queues', {
          data: {
            name: 'x',
            board: boardId,
            strategy: 'round_robin',
            members: [{ membership: a.membershipId }],
          },
        })
      ).status,
    ).toBe(403);
    const off = await t.api.put(`/distribution-queues/${q.documentId}`, { data: { active: false } });
    expect(off.body.active).toBe(false);
    expect((await created(boardId, 1))[0]).toBeUndefined();
    await t.api.put(`/distribution-queues/${q.documentId}`, { data: { active: true } });
    expect((await created(boardId, 1))[0]).toBe(a.membershipId);
    expect((await t.api.delete(`/distribution-queues/${q.documentId}`)).status).toBe(200);
    expect((await created(boardId, 1))[0]).toBeUndefined();
  });

  test('another organization cannot read, change, count or feed them', async () => {
    const { boardId, queue: q } = await queue('round_robin', [{ membership: a.membershipId }]);
    const other = await newTenant(t.app);
    expect((await other.api.get(`/distribution-queues/${q.documentId}`)).status).toBe(404);
    expect(
      (await other.api.put(`/distribution-queues/${q.documentId}`, { data: { active: false } })).status,
    ).toBe(404);
    expect((await other.api.delete(`/distribution-queues/${q.documentId}`)).status).toBe(404);
    expect((await other.api.get('/distribution-queues')).body.meta.pagination.total).toBe(0);
    // Its own queue cannot name this organization's board or members.
    const foreign = await other.api.post('/distribution-queues', {
      data: {
        name: 'x',
        board: boardId,
        strategy: 'round_robin',
        members: [{ membership: other.membershipId }],
      },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details.errors[0].path).toEqual(['board']);
    const ownBoard = await createPipeline(other.api);
    const foreignMember = await other.api.post('/distribution-queues', {
      data: {
        name: 'x',
        board: ownBoard.boardId,
        strategy: 'round_robin',
        members: [{ membership: a.membershipId }],
      },
    });
    expect(foreignMember.status).toBe(400);
  });

  test('needs the distribution feature: on a plan without it, 403 naming it, and its queue assigns nothing', async () => {
    const p = await newTenant(t.app);
    const m = await addMember(p, 'member');
    const board = await createPipeline(p.api);
    const q = await p.api.post('/distribution-queues', {
      data: {
        name: 'Q',
        board: board.boardId,
        strategy: 'round_robin',
        members: [{ membership: m.membershipId }],
      },
    });
    expect(q.status).toBe(201);
    const { db } = await getApp();
    await db.system.execute(sql`update organizations set plan = 'pro' where slug = ${p.slug}`);
    const refused = await p.api.get('/distribution-queues');
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ feature: 'distribution', plan: 'pro' });
    expect(assigneeOf(await createCard(p.api, board.boardId))).toBeUndefined();
  });
});
