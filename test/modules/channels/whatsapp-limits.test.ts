import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { channelRate } from '../../../src/modules/channels/index.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { ProviderError } from '../../../src/platform/providers/provider-error.js';
import { whatsappProvider } from '../../../src/platform/providers/whatsapp/client.js';
import { whatsappLimit } from '../../../src/platform/providers/whatsapp/errors.js';
import { newTenant, type Tenant } from '../../helpers/app.js';
import { createWhatsAppChannel, type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { LIMIT_ERRORS, type LimitCode } from '../../helpers/peers/whatsapp.js';
import { segmentFor, waitFor } from '../campaigns/helpers.js';
import { conversationOf, inbound, inboxSetup, waNumber } from '../inbox/helpers.js';

/**
 * WhatsApp's own limits (issue 33 item 3, docs/messaging.md "WhatsApp limits") against the Cloud API peer: the
 * number's pace, one message every CRM_WHATSAPP_PAIR_INTERVAL_MS per person, and the error codes 130429, 131056,
 * 131047 and 131026 answered as Meta does. Spacing is checked on the peer's receive times, counted, with room for
 * the scheduling jitter of a shared machine.
 */
const PAIR_MS = 400;
let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging({ workers: true, config: { CRM_WHATSAPP_PAIR_INTERVAL_MS: PAIR_MS } });
});
afterAll(async () => env?.close());

const done = (c: any) => c.campaignStatus === 'completed' || c.campaignStatus === 'failed';

/** Campaigns are marketing (issue 33 item 2): the contact's opt-in for WhatsApp marketing. */
async function grantMarketing(t: Tenant, contact: string) {
  const res = await t.api.post(`/contacts/${contact}/consents`, {
    data: { channel: 'whatsapp', purpose: 'marketing', status: 'granted', source: 'manual' },
  });
  if (res.status !== 201) throw new Error(`consent: ${JSON.stringify(res.body)}`);
}

/** A tenant's WhatsApp channel with an approved template and `n` contacts of their own numbers, in a segment. */
async function waWorld(t: Tenant, city: string, n: number, settings: Record<string, unknown> = {}) {
  const channel = await createWhatsAppChannel(t.api, env, settings);
  const name = `limits_${city}`;
  env.wa.templates.set(`${name}|pt_BR`, {
    id: `88${city.length}${n}`,
    name,
    language: 'pt_BR',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Oi' }],
  });
  const synced = await t.api.post(`/chat-channels/${channel.documentId}/templates/sync`);
  if (synced.status !== 200) throw new Error(`template sync: ${JSON.stringify(synced.body)}`);
  const template = synced.body.data.find((x: any) => x.name === name).documentId as string;
  const phones: string[] = [];
  for (let i = 0; i < n; i++) {
    const phone = waNumber();
    phones.push(phone);
    const res = await t.api.post('/contacts', { data: { name: `P${i}`, phone: `+${phone}`, city } });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    await grantMarketing(t, res.body.documentId);
  }
  return { channel: channel.documentId, template, phones, segment: await segmentFor(t.api, city) };
}

async function trigger(t: Tenant, w: Awaited<ReturnType<typeof waWorld>>, name = 'Limits') {
  const res = await t.api.post('/campaigns', {
    data: { name: `${name} ${Math.random()}`, channel: w.channel, segment: w.segment, template: w.template },
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  const started = await t.api.post(`/campaigns/${res.body.documentId}/trigger`);
  expect(started.status).toBe(200);
  return res.body.documentId as string;
}

const settled = async (t: Tenant, id: string) =>
  waitFor(async () => (await t.api.get(`/campaigns/${id}`)).body, done, 60_000);

const recipientsOf = async (t: Tenant, id: string) =>
  new Map<string, any>(
    (await t.api.get(`/campaigns/${id}/recipients`)).body.data.map((r: any) => [r.address.slice(1), r]),
  );

const received = (phones: string[]) => env.wa.messages.filter((m) => phones.includes(m.to));

/** The most messages the peer received within any `windowMs` (its receive times). */
function busiest(times: number[], windowMs: number) {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j < sorted.length && sorted[j] - sorted[i] < windowMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

describe('the provider answers limits by code', () => {
  const client = () =>
    whatsappProvider(env.config, {
      accessToken: env.wa.accessToken,
      phoneNumberId: '1001',
      businessAccountId: '2002',
    });

  test.each([
    [130429, false, /Cloud API message throughput has been reached/],
    [131056, false, /too many messages sent from this phone number to the same phone number/],
    [131047, true, /24 hours.*send a template message instead/],
    [131026, true, /Unable to deliver message/],
  ] as const)('%i: permanent = %s, Meta details in the message', async (code, permanent, text) => {
    env.wa.failNextWith(code as LimitCode, 1);
    const err = await client()
      .sendText(waNumber(), 'x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    const e = err as ProviderError;
    expect(e).toMatchObject({ provider: 'whatsapp', code, permanent, outcomeUnknown: false });
    expect(e.status).toBe(LIMIT_ERRORS[code as LimitCode].status);
    expect(e.message).toMatch(text);
    expect(e.message).toContain(`(#${code})`);
    expect(whatsappLimit(e)).toBeDefined();
  });

  test('the code decides, not the HTTP status: a pair-rate refusal sent as a 400 is still retryable', async () => {
    env.wa.failNextWith(131056, 1, { status: 400 });
    const err = (await client()
      .sendText(waNumber(), 'x')
      .catch((e: unknown) => e)) as ProviderError;
    expect(err).toMatchObject({ status: 400, code: 131056, permanent: false });
    expect(whatsappLimit(err)).toBe('pair_rate');
    env.wa.failNext(1, 400, 'Something else');
    const other = (await client()
      .sendText(waNumber(), 'x')
      .catch((e: unknown) => e)) as ProviderError;
    expect(whatsappLimit(other)).toBeUndefined();
    expect(other.permanent).toBe(true);
  });

  test('defaults: 80 messages/s per number unless the channel says otherwise, 6 s between two to one person', () => {
    const defaults = loadConfig({});
    expect(defaults.CRM_WHATSAPP_RATE_PER_SECOND).toBe(80);
    expect(defaults.CRM_WHATSAPP_PAIR_INTERVAL_MS).toBe(6000);
    expect(channelRate({ type: 'whatsapp', settings: {} }, defaults)).toBe(80);
    expect(channelRate({ type: 'whatsapp', settings: { ratePerSecond: 5 } }, defaults)).toBe(5);
    expect(channelRate({ type: 'email', settings: {} }, defaults)).toBe(10);
    const set = loadConfig({ CRM_WHATSAPP_RATE_PER_SECOND: '20', CRM_WHATSAPP_PAIR_INTERVAL_MS: '1500' });
    expect(channelRate({ type: 'whatsapp', settings: {} }, set)).toBe(20);
    expect(set.CRM_WHATSAPP_PAIR_INTERVAL_MS).toBe(1500);
  });
});

describe('pacing', () => {
  test("a number's pace holds across two campaigns sending at once (one clock for every dispatcher)", async () => {
    const t = await newTenant(env.app);
    const a = await waWorld(t, 'pacea', 6, { ratePerSecond: 4 });
    // A second campaign through the same channel, to other people.
    const b = { ...(await waWorld(t, 'paceb', 6)), channel: a.channel };
    b.template = a.template;
    const [ca, cb] = [await trigger(t, a), await trigger(t, b)];
    expect((await settled(t, ca)).stats).toMatchObject({ sent: 6, failed: 0 });
    expect((await settled(t, cb)).stats).toMatchObject({ sent: 6, failed: 0 });
    const times = received([...a.phones, ...b.phones]).map((m) => m.receivedAt);
    expect(times).toHaveLength(12);
    // 12 messages at 4/s, a quarter of a second apart: ~2.75 s from first to last (a batch sent late on a busy
    // machine shortens it), and no second holds more than 4 (two more allowed for that jitter; unpaced, all 12
    // would arrive within a few milliseconds).
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(1750);
    expect(busiest(times, 1000)).toBeLessThanOrEqual(6);
  });

  test('one person gets one message per interval from a number: the later one is delayed, not dropped', async () => {
    const t = await newTenant(env.app);
    env.wa.enforcePairRate(PAIR_MS / 2);
    try {
      const w = await waWorld(t, 'pair', 3);
      const [c1, c2] = [await trigger(t, w, 'First'), await trigger(t, w, 'Second')];
      expect((await settled(t, c1)).stats).toMatchObject({ sent: 3, failed: 0 });
      expect((await settled(t, c2)).stats).toMatchObject({ sent: 3, failed: 0 });
      for (const phone of w.phones) {
        const got = received([phone]).map((m) => m.receivedAt);
        expect(got).toHaveLength(2);
        expect(Math.abs(got[1] - got[0])).toBeGreaterThanOrEqual(PAIR_MS / 2);
      }
      expect(env.wa.refusals.filter((r) => w.phones.includes(r.to))).toEqual([]);
      // The clock keeps a hash of the number, never the number.
      const clocks = await queryRows<{ recipient: string }>(
        env.db.system,
        sql`select recipient from channel_recipient_clocks`,
      );
      expect(clocks.length).toBeGreaterThan(0);
      for (const c of clocks) expect(c.recipient).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      env.wa.enforcePairRate(0);
    }
  });

  test('inbox: a second message to the same person waits for the interval', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'oi' }]);
    const conv = await conversationOf(t.api, from);
    for (const text of ['one', 'two'])
      expect(
        (await t.api.post(`/conversations/${conv.id}/messages`, { data: { message: { content: text } } }))
          .status,
      ).toBe(201);
    const got = received([from]).map((m) => m.receivedAt);
    expect(got).toHaveLength(2);
    expect(got[1] - got[0]).toBeGreaterThanOrEqual(PAIR_MS - 100);
  });
});

describe('campaigns: error codes', () => {
  test('130429 backs the number off and retries: sent once, no copy', async () => {
    const t = await newTenant(env.app);
    const w = await waWorld(t, 'thr', 3);
    env.wa.failNextWith(130429, 1, { to: w.phones[0] });
    const id = await trigger(t, w);
    expect((await settled(t, id)).stats).toMatchObject({ sent: 3, failed: 0 });
    const refused = env.wa.refusals.filter((r) => r.to === w.phones[0]);
    expect(refused.map((r) => r.code)).toEqual([130429]);
    const got = received([w.phones[0]]);
    expect(got).toHaveLength(1);
    expect(got[0].receivedAt - refused[0].at).toBeGreaterThanOrEqual(900);
    const rows = await recipientsOf(t, id);
    expect(rows.get(w.phones[0])).toMatchObject({ status: 'sent', attempts: 2, error: null });
    for (const p of w.phones) expect(received([p])).toHaveLength(1);
  });

  test('131056 delays that recipient and retries; the others are not held', async () => {
    const t = await newTenant(env.app);
    const w = await waWorld(t, 'pairerr', 3);
    env.wa.failNextWith(131056, 1, { to: w.phones[1] });
    const id = await trigger(t, w);
    expect((await settled(t, id)).stats).toMatchObject({ sent: 3, failed: 0 });
    const refused = env.wa.refusals.filter((r) => r.to === w.phones[1]);
    expect(refused.map((r) => r.code)).toEqual([131056]);
    expect(received([w.phones[1]])[0].receivedAt - refused[0].at).toBeGreaterThanOrEqual(PAIR_MS);
    expect((await recipientsOf(t, id)).get(w.phones[1])).toMatchObject({ status: 'sent', attempts: 2 });
    for (const p of w.phones) expect(received([p])).toHaveLength(1);
  });

  test('131047 fails with the window and the template alternative; 131026 fails as undeliverable; neither retried', async () => {
    const t = await newTenant(env.app);
    const w = await waWorld(t, 'perm', 3);
    env.wa.failNextWith(131047, 1, { to: w.phones[0] });
    env.wa.failNextWith(131026, 1, { to: w.phones[1] });
    const id = await trigger(t, w);
    const final = await settled(t, id);
    expect(final).toMatchObject({ campaignStatus: 'completed', stats: { sent: 1, failed: 2 } });
    const rows = await recipientsOf(t, id);
    expect(rows.get(w.phones[0])).toMatchObject({ status: 'failed', attempts: 1 });
    expect(rows.get(w.phones[0]).error).toMatch(/131047.*24 hours.*template/);
    expect(rows.get(w.phones[1])).toMatchObject({ status: 'failed', attempts: 1 });
    expect(rows.get(w.phones[1]).error).toMatch(/131026.*undeliverable/i);
    expect(received([w.phones[0], w.phones[1]])).toEqual([]);
    expect(env.wa.refusals.filter((r) => w.phones.includes(r.to))).toHaveLength(2);
    // Filterable where the recipients are read.
    const failed = await t.api.get(`/campaigns/${id}/recipients`, { 'filters[status][$eq]': 'failed' });
    expect(failed.body.data).toHaveLength(2);
  });
});

describe('asynchronous failures (status webhooks)', () => {
  test('a failed status with 131047 or 131026 is recorded with the reason on the recipient and the message', async () => {
    const t = await newTenant(env.app);
    const w = await waWorld(t, 'async', 2);
    const id = await trigger(t, w);
    expect((await settled(t, id)).stats).toMatchObject({ sent: 2 });
    const [a, b] = w.phones.map((p) => received([p])[0]);
    const hook = env.wa.statusWebhook('wa-app-secret', '1001', [
      { id: a.id, status: 'failed', errorCode: 131047 },
      { id: b.id, status: 'failed', errorCode: 131026 },
    ]);
    const res = await env.app.inject({
      method: 'POST',
      url: `/api/webhooks/whatsapp/${w.channel}`,
      payload: hook.body,
      headers: hook.headers,
    });
    expect(res.statusCode).toBe(200);
    const rows = await recipientsOf(t, id);
    expect(rows.get(w.phones[0]).error).toMatch(/Re-engagement message.*24 hours.*\(131047\).*template/);
    expect(rows.get(w.phones[1]).error).toMatch(/undeliverable.*Unable to deliver message.*\(131026\)/);

    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'oi' }]);
    const conv = await conversationOf(t.api, from);
    await t.api.post(`/conversations/${conv.id}/messages`, { data: { message: { content: 'hi' } } });
    const sent = received([from])[0];
    const late = env.wa.statusWebhook('wa-app-secret', '1001', [
      { id: sent.id, status: 'failed', errorCode: 131047 },
    ]);
    await env.app.inject({
      method: 'POST',
      url: `/api/webhooks/whatsapp/${channel}`,
      payload: late.body,
      headers: late.headers,
    });
    const msg = (await t.api.get(`/conversations/${conv.id}/messages`)).body.data[0];
    expect(msg).toMatchObject({ status: 'failed', error: expect.stringMatching(/131047.*template/) });
  });
});

describe('inbox: error codes', () => {
  async function conversation(t: Tenant) {
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(env, channel, [{ from, text: 'oi' }]);
    return { from, conv: await conversationOf(t.api, from) };
  }
  const say = (t: Tenant, id: number, content: string) =>
    t.api.post(`/conversations/${id}/messages`, { data: { message: { content } } });

  test('130429 and 131056 are waited out and sent once', async () => {
    const t = await newTenant(env.app);
    const { from, conv } = await conversation(t);
    env.wa.failNextWith(130429, 1, { to: from });
    const first = await say(t, conv.id, 'after a throughput refusal');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.status).toBe('sent');
    env.wa.failNextWith(131056, 1, { to: from });
    const second = await say(t, conv.id, 'after a pair-rate refusal');
    expect(second.status).toBe(201);
    expect(env.wa.refusals.filter((r) => r.to === from).map((r) => r.code)).toEqual([130429, 131056]);
    expect(received([from]).map((m) => m.payload.text.body)).toEqual([
      'after a throughput refusal',
      'after a pair-rate refusal',
    ]);
  });

  test('131047 is a 422 with the template alternative; 131026 a 502; both messages read back failed with the reason', async () => {
    const t = await newTenant(env.app);
    const { from, conv } = await conversation(t);
    env.wa.failNextWith(131047, 1, { to: from });
    const late = await say(t, conv.id, 'too late');
    expect(late.status).toBe(422);
    expect(late.body.error.message).toMatch(/24-hour window.*template/);
    expect(late.body.error.details).toMatchObject({
      alternative: 'template',
      provider: 'whatsapp',
      providerCode: 131047,
    });
    env.wa.failNextWith(131026, 1, { to: from });
    const lost = await say(t, conv.id, 'nobody there');
    expect(lost.status).toBe(502);
    expect(lost.body.error.details).toMatchObject({ provider: 'whatsapp', providerCode: 131026 });
    const msgs = (await t.api.get(`/conversations/${conv.id}/messages`)).body.data;
    expect(msgs[0]).toMatchObject({ content: 'nobody there', status: 'failed' });
    expect(msgs[0].error).toMatch(/131026.*undeliverable/i);
    expect(msgs[1]).toMatchObject({ content: 'too late', status: 'failed' });
    expect(msgs[1].error).toMatch(/131047.*template/);
    expect(received([from])).toEqual([]);
    expect(env.wa.refusals.filter((r) => r.to === from)).toHaveLength(2);
  });
});
