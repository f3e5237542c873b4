import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { dispatchCampaign } from '../../../src/modules/campaigns/dispatch.js';
import { lazyChannelKit } from '../../../src/modules/channels/index.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { emailCampaign, waitFor } from './helpers.js';

/**
 * A batch waiting for its channel's slot longer than the lease (a hold of the channel) is not "interrupted": a second
 * dispatcher started meanwhile (the watchdog's, for the stale heartbeat) must not take its rows back and send them
 * too. The lease is 10 s here (provider timeout 1 s: 5 × 1 s + 5 s), the hold 16 s. E-mail: WhatsApp's own clock per
 * recipient would defer the second claim until the first send had settled, and hide the race.
 */
let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging({ workers: true, config: { CRM_PROVIDER_TIMEOUT_MS: 1000 } });
});
afterAll(async () => {
  await env?.close();
});

test('a batch held past the lease by its channel is sent once, though a second dispatcher starts meanwhile', async () => {
  const t = await newTenant(env.app);
  const { campaign, channel } = await emailCampaign(t, { city: 'lease', contacts: 1 });
  const [ids] = await queryRows<{ org: number; id: number }>(
    env.db.system,
    sql`select organization_id as org, id from campaigns where document_id = ${campaign.documentId}`,
  );
  await env.db.system.execute(
    sql`update chat_channels set send_window_at = now() + interval '16 seconds' where document_id = ${channel.documentId}`,
  );
  await t.api.post(`/campaigns/${campaign.documentId}/trigger`);
  await waitFor(
    async () =>
      (
        await queryRows<{ n: number }>(
          env.db.system,
          sql`select count(*)::int as n from campaign_recipients where campaign_id = ${ids.id} and status = 'sending'`,
        )
      )[0].n,
    (n) => n === 1,
    10_000,
  );
  // Past the lease counted from the claim, before the slot: a second dispatcher for the same campaign, as another
  // worker process would run it (this process's queue runs one dispatcher at a time).
  await new Promise((r) => setTimeout(r, 11_000));
  const kit = await lazyChannelKit(env.config, env.db)();
  const second = dispatchCampaign(env.background!, kit, { orgId: ids.org, campaignId: ids.id });
  const final = await waitFor(
    async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body,
    (c) => c.campaignStatus === 'completed' || c.campaignStatus === 'failed',
    30_000,
  );
  await second;
  expect(final.stats).toMatchObject({ total: 1, sent: 1, failed: 0 });
  expect(env.smtp.received.filter((m) => m.to.includes('p0.lease@example.com'))).toHaveLength(1);
}, 60_000);
