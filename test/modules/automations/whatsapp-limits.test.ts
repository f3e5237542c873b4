import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { waNumber } from '../inbox/helpers.js';
import { automationWorld, channelWithTemplate } from './helpers.js';

/**
 * send_template_message under WhatsApp's limits (issue 33 item 3): paced per recipient, 130429 and 131056 retried
 * inside the action (nothing was sent), 131026 and 131047 fail the action with the provider's reason.
 */
const PAIR_MS = 300;
let env: MessagingEnv;
const world = automationWorld();
let t: Awaited<ReturnType<typeof world.track>>;
let channel: string;

beforeAll(async () => {
  env = await startMessaging({ config: { CRM_WHATSAPP_PAIR_INTERVAL_MS: PAIR_MS } });
  t = await world.track(await newTenant(env.app));
  channel = await channelWithTemplate(env, t, 'limits_auto', '9911');
});
afterAll(async () => {
  await world.close();
  await env?.close();
});

/** An automation sending the template `times` times on contact.created; its documentId. */
async function automation(name: string, times = 1) {
  const action = { type: 'send_template_message', params: { channel, template: 'limits_auto' } };
  const a = await t.api.post('/automations', {
    data: {
      name,
      trigger: { event: 'contact.created', conditions: [{ field: 'contact.name', op: 'eq', value: name }] },
      actions: Array.from({ length: times }, () => action),
    },
  });
  expect(a.status, JSON.stringify(a.body)).toBe(201);
  return a.body.documentId as string;
}

async function runFor(name: string, times = 1) {
  const id = await automation(name, times);
  const phone = waNumber();
  const contact = await t.api.post('/contacts', { data: { name, phone: `+${phone}` } });
  // Automation sends are marketing unless said otherwise (issue 33 item 2): the contact's opt-in.
  const consent = await t.api.post(`/contacts/${contact.body.documentId}/consents`, {
    data: { channel: 'whatsapp', purpose: 'marketing', status: 'granted', source: 'manual' },
  });
  expect(consent.status).toBe(201);
  await world.cycle(env.config);
  const runs = (await t.api.get(`/automations/${id}/runs`)).body.data;
  expect(runs).toHaveLength(1);
  return { run: runs[0], phone, sent: () => env.wa.messages.filter((m) => m.to === phone) };
}

describe('automations: WhatsApp limits', () => {
  test('two sends to one person in a run: the second waits for the interval', async () => {
    const { run, sent } = await runFor('Twice', 2);
    expect(run.status).toBe('succeeded');
    const times = sent().map((m) => m.receivedAt);
    expect(times).toHaveLength(2);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(PAIR_MS - 100);
  });

  test('130429 and 131056 are waited out inside the action and sent once', async () => {
    env.wa.failNextWith(130429, 1);
    env.wa.failNextWith(131056, 1);
    const { run, phone, sent } = await runFor('Throttled');
    expect(run.status, JSON.stringify(run)).toBe('succeeded');
    expect(sent()).toHaveLength(1);
    expect(env.wa.refusals.filter((r) => r.to === phone).map((r) => r.code)).toEqual([130429, 131056]);
  });

  test('131026 and 131047 fail the action with the reason, never retried', async () => {
    env.wa.failNextWith(131026, 1);
    const lost = await runFor('Undeliverable');
    expect(lost.run.status).toBe('failed');
    expect(lost.run.results[0]).toMatchObject({ type: 'send_template_message', ok: false });
    expect(lost.run.results[0].message).toMatch(/131026.*undeliverable/i);
    env.wa.failNextWith(131047, 1);
    const late = await runFor('Late');
    expect(late.run.results[0].message).toMatch(/131047.*template/);
    for (const r of [lost, late]) {
      expect(r.sent()).toEqual([]);
      expect(env.wa.refusals.filter((x) => x.to === r.phone)).toHaveLength(1);
    }
  });
});
