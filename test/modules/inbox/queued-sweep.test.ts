import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { failInterruptedSends, QUEUED_LIMIT_SECONDS } from '../../../src/modules/inbox/queued-sweep.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from './helpers.js';

/**
 * A send a crash interrupted: its ledger row was committed `queued` and the process died before the provider's
 * answer was recorded. Such a row is made here as the crash leaves it (a message sent, then put back to `queued`
 * with the age it would have), since the test cannot kill its own process between the two transactions.
 */
let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging();
});
afterAll(async () => env?.close());

async function conversationWithMessages(texts: string[]) {
  const t = await newTenant(env.app);
  const { channel } = await inboxSetup(env, t, { board: false });
  const from = waNumber();
  await inbound(env, channel, [{ from, text: 'oi' }]);
  const conv = await conversationOf(t.api, from);
  const ids: number[] = [];
  for (const content of texts) {
    const sent = await t.api.post(`/conversations/${conv.id}/messages`, { data: { message: { content } } });
    expect(sent.status).toBe(201);
    ids.push(sent.body.id);
  }
  return { t, conv, ids };
}

/** The row as a crash between the ledger and the provider's answer leaves it, `ageSeconds` old. */
const leftQueued = (id: number, ageSeconds: number) =>
  queryRows(
    env.db.system,
    sql`update chat_messages set status = 'queued', provider_message_id = null,
        created_at = now() - make_interval(secs => ${ageSeconds}) where id = ${id} returning id`,
  );

test('a send left queued past the limit is failed as outcome unknown, never resent; newer ones and incoming are left', async () => {
  const { t, conv, ids } = await conversationWithMessages(['interrompida', 'em andamento', 'entregue']);
  const [stale, recent] = ids;
  await leftQueued(stale, QUEUED_LIMIT_SECONDS + 60);
  await leftQueued(recent, 30);
  const providerBefore = env.wa.messages.length;

  expect(await failInterruptedSends(env.db)).toBeGreaterThanOrEqual(1);

  const byId = new Map(
    (await t.api.get(`/conversations/${conv.id}/messages`)).body.data.map((m: any) => [m.id, m]),
  );
  expect(byId.get(stale)).toMatchObject({
    status: 'failed',
    error: 'interrupted while sending: outcome unknown, not resent',
  });
  expect(byId.get(recent)).toMatchObject({ status: 'queued' });
  expect(byId.get(ids[2])).toMatchObject({ status: 'sent' });
  expect([...byId.values()].find((m: any) => m.direction === 'incoming')).toMatchObject({
    status: 'delivered',
  });
  expect(env.wa.messages.length).toBe(providerBefore);

  // Nothing left to fail: a second pass changes nothing of this conversation.
  await failInterruptedSends(env.db);
  const again = (await t.api.get(`/conversations/${conv.id}/messages`)).body.data;
  expect(again.find((m: any) => m.id === recent)).toMatchObject({ status: 'queued' });
});
