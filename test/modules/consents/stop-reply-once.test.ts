import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { queueNameIn } from '../../../src/platform/jobs/jobs.js';
import { newTenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { grantMarketing, waitFor } from '../campaigns/helpers.js';
import { inbound, inboxSetup, waNumber } from '../inbox/helpers.js';

/**
 * A stop keyword's confirmation is sent at most once. Its job is held by a worker past the job's expiry (as when
 * the worker dies after the send): pg-boss fails it, and no second worker pass sends the confirmation again. A
 * send refused with proof that nothing went out (a 503) is tried again and arrives once.
 * Its own job namespace: no other file's worker takes these jobs, nor this file's theirs.
 */
const namespace = `stop_once_${randomBytes(3).toString('hex')}`;
let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging({
    workers: true,
    config: {
      CRM_JOBS_NAMESPACE: namespace,
      CRM_JOBS_EXPIRE_SECONDS: 2,
      CRM_JOBS_MAINTENANCE_SECONDS: 1,
      CRM_PROVIDER_TIMEOUT_MS: 15_000,
    },
  });
}, 60_000);
afterAll(async () => env?.close());

const jobStates = async () =>
  (
    await queryRows<{ state: string }>(
      env.db.system,
      sql`select state from pgboss.job where name = ${queueNameIn(namespace, 'consent-stop-reply')} order by created_on`,
    )
  ).map((r) => r.state);
const repliesTo = (to: string) => env.wa.messages.filter((m) => m.to === to && m.type === 'text');

async function stopFrom(phone: string) {
  const t = await newTenant(env.app);
  const { channel } = await inboxSetup(env, t, { board: false });
  const contact = (await t.api.post('/contacts', { data: { name: 'Stop Once', phone: `+${phone}` } })).body;
  await grantMarketing(t.api, contact.documentId, 'whatsapp');
  expect((await inbound(env, channel, [{ from: phone, text: 'PARAR' }])).status).toBe(200);
}

test('a confirmation whose job expires while its send is under way is not sent again', async () => {
  env.wa.setDelay(5_000);
  try {
    const phone = waNumber();
    await stopFrom(phone);
    await waitFor(
      async () => repliesTo(phone),
      (r) => r.length >= 1,
      20_000,
    );
    // The job expired during the 5 s send (expiry 2 s, maintenance every 1 s): failed, never to run again.
    await waitFor(jobStates, (s) => s.length === 1 && !['created', 'active'].includes(s[0]), 20_000);
    expect(await jobStates()).toEqual(['failed']);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(repliesTo(phone)).toHaveLength(1);
  } finally {
    env.wa.setDelay(0);
  }
}, 60_000);

test('a confirmation refused with proof that nothing was sent is tried again and arrives once', async () => {
  const phone = waNumber();
  env.wa.failNext(1, 503);
  await stopFrom(phone);
  const replies = await waitFor(
    async () => repliesTo(phone),
    (r) => r.length >= 1,
    30_000,
  );
  expect(replies[0].payload.text.body).toMatch(/não receberá mais mensagens de marketing/);
  await new Promise((r) => setTimeout(r, 2_000));
  expect(repliesTo(phone)).toHaveLength(1);
}, 60_000);
