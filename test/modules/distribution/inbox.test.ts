import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { addMember, newTenant, type Tenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from '../inbox/helpers.js';
import { expectTwoToOne } from './expect.js';

type Member = Awaited<ReturnType<typeof addMember>>;

let env: MessagingEnv;
let t: Tenant;
let a: Member;
let b: Member;
let c: Member;

beforeAll(async () => {
  env = await startMessaging();
  t = await newTenant(env.app);
  a = await addMember(t, 'member');
  b = await addMember(t, 'member');
  c = await addMember(t, 'member');
});
afterAll(async () => env?.close());

/** The assignees (membership documentIds, undefined: none) of new conversations, one inbound post each. */
async function arrivals(channel: string, n: number) {
  const out: (string | undefined)[] = [];
  for (let i = 0; i < n; i++) {
    const from = waNumber();
    expect((await inbound(env, channel, [{ from, text: `hello ${i}` }])).status).toBe(200);
    out.push((await conversationOf(t.api, from)).assignee?.documentId);
  }
  return out;
}

async function inboxQueue(
  tenant: Tenant,
  inbox: number,
  strategy: string,
  members: Record<string, unknown>[],
) {
  const res = await tenant.api.post('/distribution-queues', {
    data: { name: `Inbox ${strategy}`, inbox, strategy, members },
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe('distribution queues for inboxes', () => {
  test('round robin: new inbound conversations in turn; a returning contact takes no turn; inactive skipped', async () => {
    const { channel, inboxId } = await inboxSetup(env, t, { board: false });
    const q = await inboxQueue(t, inboxId, 'round_robin', [
      { membership: a.membershipId },
      { membership: b.membershipId },
      { membership: c.membershipId, active: false },
    ]);
    expect(q.board).toBeNull();
    expect(q.inbox).toEqual({ id: inboxId, name: expect.any(String) });
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'first' }]);
    const first = (await conversationOf(t.api, from)).assignee.documentId;
    // The same person writing again: the same conversation, no new turn.
    await inbound(env, channel, [{ from, text: 'again' }]);
    expect((await conversationOf(t.api, from)).assignee.documentId).toBe(first);
    const got = await arrivals(channel, 3);
    expect(got[0]).not.toBe(first);
    expect(got[1]).toBe(first);
    expect(got[2]).toBe(got[0]);
    expect(new Set([first, ...got])).toEqual(new Set([a.membershipId, b.membershipId]));
    // The assignee sees it; the other member no longer does (assigned conversations are private to them).
    const conv = await conversationOf(t.api, from);
    const [mine, other] = first === a.membershipId ? [a, b] : [b, a];
    expect((await mine.api.get(`/conversations/${conv.id}`)).status).toBe(200);
    expect((await other.api.get(`/conversations/${conv.id}`)).status).toBe(404);
    const after = (await t.api.get(`/distribution-queues/${q.documentId}`)).body;
    expect(after.members.reduce((n: number, m: { assignedCount: number }) => n + m.assignedCount, 0)).toBe(4);
  });

  test('weighted 2:1: in proportion, interleaved', async () => {
    const { channel, inboxId } = await inboxSetup(env, t, { board: false });
    await inboxQueue(t, inboxId, 'weighted', [
      { membership: a.membershipId, weight: 2 },
      { membership: b.membershipId, weight: 1 },
    ]);
    const got = await arrivals(channel, 6);
    expectTwoToOne(got, a.membershipId, b.membershipId);
  });

  test('least open: fewest open conversations of the inbox (resolved ones and other inboxes do not count)', async () => {
    const { channel, inboxId } = await inboxSetup(env, t, { board: false });
    const other = await inboxSetup(env, t, { board: false });
    // Before the queue: a holds two open conversations here; b one resolved here and two open in another inbox.
    const held = await arrivals(channel, 3);
    expect(held).toEqual([undefined, undefined, undefined]);
    const list = (await t.api.get('/conversations', { inboxId, pageSize: 100 })).body.data;
    expect(list).toHaveLength(3);
    await t.api.patch(`/conversations/${list[0].id}`, { data: { assignee: a.membershipId } });
    await t.api.patch(`/conversations/${list[1].id}`, { data: { assignee: a.membershipId } });
    await t.api.patch(`/conversations/${list[2].id}`, {
      data: { assignee: b.membershipId, status: 'resolved' },
    });
    for (let i = 0; i < 2; i++) {
      const from = waNumber();
      await inbound(env, other.channel, [{ from, text: 'elsewhere' }]);
      const conv = await conversationOf(t.api, from);
      await t.api.patch(`/conversations/${conv.id}`, { data: { assignee: b.membershipId } });
    }
    await inboxQueue(t, inboxId, 'least_open', [
      { membership: a.membershipId },
      { membership: b.membershipId },
    ]);
    // b: 0 → 1 → 2 open here, then a and b tie at 2: a, never served, waited longest.
    expect(await arrivals(channel, 3)).toEqual([b.membershipId, b.membershipId, a.membershipId]);
  });

  test("concurrent arrivals: 40 new conversations at once (some payloads with two senders) are 20 and 20, each assigned once; the linked board's queue too", async () => {
    const { channel, inboxId, board } = await inboxSetup(env, t);
    const q = await inboxQueue(t, inboxId, 'round_robin', [
      { membership: a.membershipId },
      { membership: b.membershipId },
    ]);
    // The conversations' cards land on the linked board, whose own queue takes its own lock: no deadlock.
    const bq = await t.api.post('/distribution-queues', {
      data: {
        name: 'Cards',
        board: board!.documentId,
        strategy: 'round_robin',
        members: [{ membership: b.membershipId }, { membership: c.membershipId }],
      },
    });
    expect(bq.status).toBe(201);
    const people = Array.from({ length: 40 }, () => waNumber());
    const posts = [
      // Two senders in one payload, racing the single posts of the same people (in the other order).
      ...Array.from({ length: 20 }, (_, j) => [
        { from: people[2 * j], text: 'pair' },
        { from: people[2 * j + 1], text: 'pair' },
      ]),
      ...people.map((from) => [{ from, text: 'hi' }]).reverse(),
    ];
    const results = await Promise.all(posts.map((p) => inbound(env, channel, p)));
    expect(results.map((r) => r.status)).toEqual(posts.map(() => 200));
    const rows = await queryRows<{ assignee: string | null; n: number }>(
      env.db.system,
      sql`select m.document_id as assignee, count(*)::int as n from conversations c
          left join memberships m on m.organization_id = c.organization_id and m.id = c.assignee_membership_id
          where c.inbox_id = ${inboxId} group by m.document_id`,
    );
    expect(Object.fromEntries(rows.map((r) => [r.assignee, r.n]))).toEqual({
      [a.membershipId]: 20,
      [b.membershipId]: 20,
    });
    const after = (await t.api.get(`/distribution-queues/${q.documentId}`)).body;
    expect(after.members.map((m: { assignedCount: number }) => m.assignedCount)).toEqual([20, 20]);
    const cards = (await t.api.get(`/distribution-queues/${bq.body.documentId}`)).body;
    expect(cards.members.map((m: { assignedCount: number }) => m.assignedCount)).toEqual([20, 20]);
  });

  test('validation: a board or an inbox (not both, not neither), the organization’s inbox, no viewers, one queue per inbox', async () => {
    const { inboxId } = await inboxSetup(env, t, { board: false });
    const board = (await t.api.post('/boards', { data: { name: 'Q board' } })).body;
    const base = { name: 'x', strategy: 'round_robin', members: [{ membership: a.membershipId }] };
    const neither = await t.api.post('/distribution-queues', { data: base });
    expect(neither.status).toBe(400);
    expect(neither.body.error.message).toMatch(/exactly one of board .* or inbox/);
    const both = await t.api.post('/distribution-queues', {
      data: { ...base, board: board.documentId, inbox: inboxId },
    });
    expect(both.status).toBe(400);
    const unknown = await t.api.post('/distribution-queues', { data: { ...base, inbox: 987654321 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.errors[0].path).toEqual(['inbox']);
    const asDocumentId = await t.api.post('/distribution-queues', { data: { ...base, inbox: 'abc' } });
    expect(asDocumentId.status).toBe(400);
    const viewer = await addMember(t, 'viewer');
    const withViewer = await t.api.post('/distribution-queues', {
      data: {
        ...base,
        inbox: inboxId,
        members: [{ membership: a.membershipId }, { membership: viewer.membershipId }],
      },
    });
    expect(withViewer.status).toBe(400);
    expect(withViewer.body.error.details.errors[0].path).toEqual(['members', 1, 'membership']);
    expect(withViewer.body.error.message).toMatch(/viewer/);
    const q = await inboxQueue(t, inboxId, 'round_robin', [{ membership: a.membershipId }]);
    const second = await t.api.post('/distribution-queues', { data: { ...base, inbox: inboxId } });
    expect(second.status).toBe(400);
    expect(second.body.error.details.errors[0].path).toEqual(['inbox']);
    // The target is fixed; a viewer cannot join by a change either.
    expect(
      (await t.api.put(`/distribution-queues/${q.documentId}`, { data: { inbox: inboxId } })).status,
    ).toBe(400);
    const put = await t.api.put(`/distribution-queues/${q.documentId}`, {
      data: { members: [{ membership: viewer.membershipId }] },
    });
    expect(put.status).toBe(400);
    // A board queue takes anyone (the card path is unchanged).
    const boardQueue = await t.api.post('/distribution-queues', {
      data: { ...base, board: board.documentId, members: [{ membership: viewer.membershipId }] },
    });
    expect(boardQueue.status).toBe(201);
    expect(boardQueue.body.inbox).toBeNull();
  });

  test('a member made a viewer later gets no conversations; inactive or deleted queues assign nothing', async () => {
    const { channel, inboxId } = await inboxSetup(env, t, { board: false });
    const d = await addMember(t, 'member');
    const q = await inboxQueue(t, inboxId, 'round_robin', [
      { membership: a.membershipId },
      { membership: d.membershipId },
    ]);
    expect((await t.api.put(`/memberships/${d.membershipId}`, { data: { role: 'viewer' } })).status).toBe(
      200,
    );
    expect(await arrivals(channel, 3)).toEqual([a.membershipId, a.membershipId, a.membershipId]);
    await t.api.put(`/distribution-queues/${q.documentId}`, { data: { active: false } });
    expect(await arrivals(channel, 1)).toEqual([undefined]);
    await t.api.put(`/distribution-queues/${q.documentId}`, { data: { active: true } });
    expect(await arrivals(channel, 1)).toEqual([a.membershipId]);
    expect((await t.api.delete(`/distribution-queues/${q.documentId}`)).status).toBe(200);
    expect(await arrivals(channel, 1)).toEqual([undefined]);
  });

  test('another organization: cannot target this inbox; this queue never assigns its conversations', async () => {
    const { inboxId } = await inboxSetup(env, t, { board: false });
    const q = await inboxQueue(t, inboxId, 'round_robin', [{ membership: a.membershipId }]);
    const other = await newTenant(env.app);
    const om = await addMember(other, 'member');
    const foreign = await other.api.post('/distribution-queues', {
      data: {
        name: 'x',
        inbox: inboxId,
        strategy: 'round_robin',
        members: [{ membership: om.membershipId }],
      },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details.errors[0].path).toEqual(['inbox']);
    expect((await other.api.get(`/distribution-queues/${q.documentId}`)).status).toBe(404);
    // The other organization's own inbox (a separate row, maybe the same channel settings) gets its own traffic.
    const mine = await inboxSetup(env, other, { board: false });
    const from = waNumber();
    expect((await inbound(env, mine.channel, [{ from, text: 'hi' }])).status).toBe(200);
    expect((await conversationOf(other.api, from)).assignee).toBeNull();
    expect((await t.api.get(`/distribution-queues/${q.documentId}`)).body.members[0].assignedCount).toBe(0);
    // Its queue on its inbox assigns its members only, and this organization's queue stays untouched.
    await inboxQueue(other, mine.inboxId, 'round_robin', [{ membership: om.membershipId }]);
    const next = waNumber();
    await inbound(env, mine.channel, [{ from: next, text: 'hi' }]);
    expect((await conversationOf(other.api, next)).assignee.documentId).toBe(om.membershipId);
    expect((await t.api.get(`/distribution-queues/${q.documentId}`)).body.members[0].assignedCount).toBe(0);
  });
});
