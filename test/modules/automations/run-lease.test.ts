import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { grantMarketing } from '../campaigns/helpers.js';
import { waNumber } from '../inbox/helpers.js';
import { automationWorld, channelWithTemplate } from './helpers.js';

/**
 * A claimed run's lease against a send that waits for its channel's slot longer than the lease (a throughput hold
 * can be a minute). The lease is 6 s here (six provider timeouts of 1 s), renewed every 2 s by the worker; the
 * channel is held 10 s. Two runner passes side by side stand for two worker processes.
 */
let env: MessagingEnv;
const world = automationWorld();
let t: Awaited<ReturnType<typeof world.track>>;
let channel: string;

beforeAll(async () => {
  env = await startMessaging({
    config: { CRM_PROVIDER_TIMEOUT_MS: 1000, CRM_WHATSAPP_PAIR_INTERVAL_MS: 300 },
  });
  t = await world.track(await newTenant(env.app));
  channel = await channelWithTemplate(env, t, 'lease_auto', '9921');
});
afterAll(async () => {
  await world.close();
  await env?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An automation sending the template on contact.created, a contact (opted in) that triggers it, and the channel
 * held for `holdSeconds`; the runner's first pass started (claiming the run, then waiting for the slot).
 */
async function heldSend(name: string, holdSeconds: number) {
  const a = await t.api.post('/automations', {
    data: {
      name,
      trigger: { event: 'contact.created', conditions: [{ field: 'contact.name', op: 'eq', value: name }] },
      actions: [{ type: 'send_template_message', params: { channel, template: 'lease_auto' } }],
    },
  });
  expect(a.status, JSON.stringify(a.body)).toBe(201);
  const phone = waNumber();
  const contact = await t.api.post('/contacts', { data: { name, phone: `+${phone}` } });
  await grantMarketing(t.api, contact.body.documentId, 'whatsapp');
  await env.db.system.execute(
    sql`update chat_channels set send_window_at = now() + make_interval(secs => ${holdSeconds})
        where document_id = ${channel}`,
  );
  const runOf = async () => (await t.api.get(`/automations/${a.body.documentId}/runs`)).body.data[0];
  const first = world.cycle(env.config, 1);
  await expect.poll(async () => (await runOf())?.attempts).toBe(1);
  return { first, runOf, sent: () => env.wa.messages.filter((m) => m.to === phone) };
}

describe('automations: a claimed run waiting for its channel', () => {
  test('is kept by its worker past the lease: a second pass meanwhile does not take it, the message goes once', async () => {
    const { first, runOf, sent } = await heldSend('Held', 10);
    // Past the lease counted from the claim, before the slot.
    await sleep(7_500);
    const second = world.cycle(env.config, 1);
    await Promise.all([first, second]);
    const run = await runOf();
    expect(sent()).toHaveLength(1);
    expect(run).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(run.results).toEqual([expect.objectContaining({ type: 'send_template_message', ok: true })]);
  }, 40_000);

  test('taken by another worker meanwhile: the first worker does not send, the one holding it sends once', async () => {
    const { first, runOf, sent } = await heldSend('Taken', 4);
    // As another worker's claim after a lapsed lease counts it (the next pass here stands for that worker).
    await env.db.system.execute(
      sql`update automation_runs set attempts = attempts + 1, next_attempt_at = now()
          where id = (select r.id from automation_runs r join automations a on a.organization_id = r.organization_id and a.id = r.automation_id
                      where a.name = 'Taken' and r.organization_id = ${t.orgId})`,
    );
    const second = world.cycle(env.config, 1);
    await Promise.all([first, second]);
    const run = await runOf();
    expect(sent()).toHaveLength(1);
    expect(run).toMatchObject({ status: 'succeeded', attempts: 3 });
    expect(run.results).toEqual([expect.objectContaining({ type: 'send_template_message', ok: true })]);
  }, 40_000);
});
