import { afterAll, beforeAll, expect, test } from 'vitest';
import { reopenSnoozed } from '../../../src/modules/inbox/snooze-sweep.js';
import { newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from './helpers.js';
import { openStream, type SseStream } from './sse.js';

/**
 * A snoozed conversation comes back to the open ones when its date passes (docs/inbox.md, "Snoozing"): the sweep is
 * run here with a clock past the dates instead of waiting for its minute.
 */
let env: MessagingEnv;
let url: string;
const streams: SseStream[] = [];
beforeAll(async () => {
  env = await startMessaging();
  url = await env.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const s of streams) s.close();
  await env?.close();
});

async function conversations(count: number) {
  const t = await newTenant(env.app);
  const { channel } = await inboxSetup(env, t, { board: false });
  const convs = [];
  for (let i = 0; i < count; i++) {
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'oi' }]);
    convs.push(await conversationOf(t.api, from));
  }
  return { t, convs };
}

const hours = (n: number) => new Date(Date.now() + n * 3_600_000);

test('a conversation whose snooze has passed is reopened; a later date, no date and other statuses are left', async () => {
  const { t, convs } = await conversations(4);
  const [due, later, undated, resolved] = convs;
  const patch = (id: number, data: object) => t.api.patch(`/conversations/${id}`, { data });
  expect((await patch(due.id, { status: 'snoozed', snoozedUntil: hours(1).toISOString() })).status).toBe(200);
  expect((await patch(later.id, { status: 'snoozed', snoozedUntil: hours(48).toISOString() })).status).toBe(
    200,
  );
  expect((await patch(undated.id, { status: 'snoozed' })).status).toBe(200);
  expect((await patch(resolved.id, { status: 'resolved' })).status).toBe(200);

  const stream = await openStream(url, '/api/conversations/events', {
    authorization: `Bearer ${t.user.jwt}`,
    'x-tenant-id': t.slug,
  });
  streams.push(stream);
  expect(stream.status).toBe(200);

  // Before the date nothing moves.
  await reopenSnoozed(env.db, new Date());
  expect((await t.api.get(`/conversations/${due.id}`)).body).toMatchObject({ status: 'snoozed' });

  // Two hours on: the first is due.
  expect(await reopenSnoozed(env.db, hours(2))).toBeGreaterThanOrEqual(1);
  const read = async (id: number) => (await t.api.get(`/conversations/${id}`)).body;
  expect(await read(due.id)).toMatchObject({ status: 'open', snoozedUntil: null });
  // The inbox open in a browser learns of it.
  await stream.next(
    (e) =>
      e.event === 'conversation.updated' &&
      e.data.conversation.id === due.id &&
      e.data.conversation.status === 'open',
  );
  expect(await read(later.id)).toMatchObject({ status: 'snoozed', snoozedUntil: expect.any(String) });
  expect(await read(undated.id)).toMatchObject({ status: 'snoozed', snoozedUntil: null });
  expect(await read(resolved.id)).toMatchObject({ status: 'resolved' });
  const open = (await t.api.get('/conversations', { status: 'open' })).body.data.map((c: any) => c.id);
  expect(open).toContain(due.id);
  expect(open).not.toContain(later.id);

  // Once reopened it is not touched again (a second pass has nothing of this organization to do).
  await patch(due.id, { status: 'pending' });
  await reopenSnoozed(env.db, hours(2));
  expect(await read(due.id)).toMatchObject({ status: 'pending' });
});

test("the sweep reopens each organization's own conversations only; nobody else reads them", async () => {
  const a = await conversations(1);
  const b = await conversations(1);
  await a.t.api.patch(`/conversations/${a.convs[0].id}`, {
    data: {
      status: 'snoozed',
      snoozedUntil: hours(1).toISOString(),
    },
  });
  await b.t.api.patch(`/conversations/${b.convs[0].id}`, {
    data: {
      status: 'snoozed',
      snoozedUntil: hours(72).toISOString(),
    },
  });
  await reopenSnoozed(env.db, hours(2));
  expect((await a.t.api.get(`/conversations/${a.convs[0].id}`)).body).toMatchObject({ status: 'open' });
  expect((await b.t.api.get(`/conversations/${b.convs[0].id}`)).body).toMatchObject({ status: 'snoozed' });
  expect((await b.t.api.get(`/conversations/${a.convs[0].id}`)).status).toBe(404);
});
