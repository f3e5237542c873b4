import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { getApp, newTenant, type Tenant, testConfig } from '../../helpers/app.js';
import { startWhatsAppPeer, type WhatsAppPeer } from '../../helpers/peers/whatsapp.js';
import { segmentFor, waitFor } from '../campaigns/helpers.js';
import { waNumber } from '../inbox/helpers.js';

/**
 * WhatsApp's limits with two `crm worker` processes (PostgreSQL: PGlite is one process by design). Each worker
 * reaches its own Cloud API peer, so both peers receiving messages shows both processes sent; the union of their
 * receive times must keep the number's pace and the per-recipient interval, and nobody gets a copy.
 */
const CRM = fileURLToPath(new URL('../../../bin/crm.js', import.meta.url));
const onPostgres = !!process.env.DATABASE_URL;
const RATE = 5;
const PAIR_MS = 1000;

let peers: WhatsAppPeer[] = [];
let t: Tenant;
let app: FastifyInstance | undefined;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  // One token for both (the channel's credentials reach either peer), unique to this file.
  const accessToken = `wa-workers-${process.pid}-${Date.now()}`;
  peers = [await startWhatsAppPeer({ accessToken }), await startWhatsAppPeer({ accessToken })];
  app = await buildApp({
    config: testConfig({ CRM_WHATSAPP_API_URL: peers[0].url, CRM_OUTBOUND_ALLOWLIST: '127.0.0.1' }),
    db: (await getApp()).db,
  });
  await app.ready();
  t = await newTenant(app);
});
afterAll(async () => {
  await app?.close();
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await Promise.all(peers.map((p) => p.close()));
});

async function startWorker(peer: WhatsAppPeer) {
  const { config } = await getApp();
  const child = spawn(process.execPath, [CRM, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: process.env.DATABASE_URL,
      // Same data dir as this test process: the same encryption key opens the channel's credentials.
      CRM_DATA_DIR: config.CRM_DATA_DIR,
      CRM_WHATSAPP_API_URL: peer.url,
      CRM_WHATSAPP_PAIR_INTERVAL_MS: String(PAIR_MS),
      CRM_PROVIDER_TIMEOUT_MS: '3000',
      CRM_JOBS_POLL_SECONDS: '0.5',
      CRM_LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://crm.test',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('CRM worker running')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
  });
}

async function audience(city: string, n: number) {
  const phones: string[] = [];
  for (let i = 0; i < n; i++) {
    phones.push(waNumber());
    const c = await t.api.post('/contacts', { data: { name: `W${i}`, phone: `+${phones[i]}`, city } });
    // Campaigns are marketing (issue 33 item 2): the contact's opt-in for WhatsApp marketing.
    const consent = await t.api.post(`/contacts/${c.body.documentId}/consents`, {
      data: { channel: 'whatsapp', purpose: 'marketing', status: 'granted', source: 'manual' },
    });
    expect(consent.status).toBe(201);
  }
  return { phones, segment: await segmentFor(t.api, city) };
}

test.skipIf(!onPostgres)(
  "two worker processes share the number's pace and each person's interval",
  async () => {
    const channel = await t.api.post('/chat-channels', {
      data: {
        name: 'Two workers',
        type: 'whatsapp',
        settings: { phoneNumberId: '1001', businessAccountId: '2002', ratePerSecond: RATE },
        credentials: { accessToken: peers[0].accessToken, appSecret: 's', verifyToken: 'v' },
      },
    });
    expect(channel.status).toBe(201);
    peers[0].templates.set('two_workers|pt_BR', {
      id: '4242',
      name: 'two_workers',
      language: 'pt_BR',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Oi' }],
    });
    const synced = await t.api.post(`/chat-channels/${channel.body.documentId}/templates/sync`);
    const template = synced.body.data[0].documentId;
    const [x, y] = [await audience('twox', 5), await audience('twoy', 5)];
    await startWorker(peers[0]);
    await startWorker(peers[1]);
    const ids: string[] = [];
    // Four campaigns through one number, each person in two of them: 20 messages.
    for (const a of [x, y, x, y]) {
      const c = await t.api.post('/campaigns', {
        data: { name: `C${ids.length}`, channel: channel.body.documentId, segment: a.segment, template },
      });
      ids.push(c.body.documentId);
    }
    for (const id of ids) expect((await t.api.post(`/campaigns/${id}/trigger`)).status).toBe(200);
    for (const id of ids) {
      const final = await waitFor(
        async () => (await t.api.get(`/campaigns/${id}`)).body,
        (c) => c.campaignStatus === 'completed' || c.campaignStatus === 'failed',
        90_000,
      );
      expect(final.stats).toMatchObject({ sent: 5, failed: 0 });
    }
    const all = peers.flatMap((p) => p.messages);
    const ours = new Set([...x.phones, ...y.phones]);
    expect(
      all.filter((m) => !ours.has(m.to)).map((m) => m.to),
      'messages to numbers outside the audience',
    ).toEqual([]);
    expect(all).toHaveLength(20);
    for (const p of peers) expect(p.messages.length, 'both processes sent').toBeGreaterThan(0);
    const times = all.map((m) => m.receivedAt).sort((a, b) => a - b);
    // 20 at 5/s: about 4 s, and no second holds more than 5 (two more for the jitter of a busy machine, where a
    // batch can leave late; unpaced, the 20 would arrive within a few milliseconds).
    expect(times[19] - times[0]).toBeGreaterThanOrEqual(3000);
    for (let i = 0; i < times.length; i++)
      expect(times.filter((x2) => x2 >= times[i] && x2 < times[i] + 1000).length).toBeLessThanOrEqual(
        RATE + 2,
      );
    for (const phone of [...x.phones, ...y.phones]) {
      const got = all.filter((m) => m.to === phone).map((m) => m.receivedAt);
      expect(got, phone).toHaveLength(2);
      expect(Math.abs(got[1] - got[0]), phone).toBeGreaterThanOrEqual(PAIR_MS - 150);
    }
  },
  180_000,
);
