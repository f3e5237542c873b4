import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { apiClient, newTenant, type Tenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { emailCampaign, waitFor, whatsappCampaign } from './helpers.js';

/** Campaigns that really send: workers on, SMTP and the WhatsApp peer receiving. */
let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging({ workers: true });
});
afterAll(async () => env?.close());

const anon = () => apiClient(env.app, {});
const done = (c: any) => c.campaignStatus === 'completed' || c.campaignStatus === 'failed';

/** A campaign of two triggered and run to its end with one recipient sent and one failed once: the failed one. */
async function runWithOneFailure(t: Tenant, campaignId: string) {
  await t.api.post(`/campaigns/${campaignId}/trigger`);
  const final = await waitFor(async () => (await t.api.get(`/campaigns/${campaignId}`)).body, done, 30_000);
  expect(final.stats).toMatchObject({ total: 2, sent: 1, failed: 1 });
  const failed = (await t.api.get(`/campaigns/${campaignId}/recipients`)).body.data.find(
    (r: { status: string }) => r.status === 'failed',
  );
  expect(failed.attempts).toBe(1);
  return failed;
}

/** Header lines folded by the mailer, joined back. */
const unfold = (raw: string) => raw.replace(/\r?\n[ \t]+/g, ' ');

function linkOf(raw: string, re: RegExp) {
  // Quoted-printable soft breaks and =3D, as the SMTP body carries them.
  const body = unfold(raw)
    .replace(/=\r?\n/g, '')
    .replace(/=3D/g, '=');
  const m = re.exec(body);
  if (!m) throw new Error(`no match for ${re} in message`);
  return m[1].replace(/&amp;/g, '&');
}

describe('e-mail campaigns', () => {
  test('sends once to each contact over SMTP with List-Unsubscribe; stats, timeline, pixel, click, unsubscribe', async () => {
    const t = await newTenant(env.app);
    await t.api.post('/suppressions', { data: { address: 'P4.mail@EXAMPLE.com' } });
    const { campaign } = await emailCampaign(t, { city: 'mail', contacts: 5, rate: 50 });
    const trig = await t.api.post(`/campaigns/${campaign.documentId}/trigger`);
    expect(trig.body.stats).toMatchObject({ total: 5, pending: 4, skipped: 1 });
    const final = await waitFor(
      async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body,
      done,
    );
    expect(final).toMatchObject({
      campaignStatus: 'completed',
      stats: { total: 5, sent: 4, skipped: 1, failed: 0, pending: 0 },
    });
    expect(final.completedAt).not.toBeNull();
    // The completion is a domain event (once), for webhooks and automations.
    const events = await queryRows<{ data: any }>(
      env.db.system,
      sql`select data from domain_events where type = 'campaign.completed'
            and subject = ${`campaign:${campaign.documentId}`}`,
    );
    expect(events.map((e) => e.data)).toEqual([
      {
        campaign: { documentId: campaign.documentId, name: campaign.name, status: 'completed' },
        stats: { total: 5, sent: 4, failed: 0, skipped: 1 },
      },
    ]);

    const mine = env.smtp.received.filter((m) => m.to[0]?.endsWith('.mail@example.com'));
    expect(mine.map((m) => m.to[0]).sort()).toEqual([
      'p0.mail@example.com',
      'p1.mail@example.com',
      'p2.mail@example.com',
      'p3.mail@example.com',
    ]);
    const mail = mine.find((m) => m.to[0] === 'p0.mail@example.com')!;
    expect(mail.subject).toBe('Hello Person 0');
    expect(unfold(mail.raw)).toMatch(/List-Unsubscribe: <http:\/\/crm\.test\/api\/unsubscribe\/[\w.-]+>/);
    expect(unfold(mail.raw)).toMatch(/List-Unsubscribe-Post: List-Unsubscribe=One-Click/);

    // Timeline of the contact.
    const contacts = await t.api.get('/contacts?filters[email][$eq]=p0.mail@example.com');
    const acts = await t.api.get(`/contacts/${contacts.body.data[0].documentId}/activities`);
    expect(acts.body.data.map((a: any) => a.activityType)).toContain('email_sent');

    // Open pixel (a GIF, counted once), click redirect (signed: another URL is a 404), one-click unsubscribe.
    const base = 'http://crm.test';
    const pixel = linkOf(mail.raw, /src="http:\/\/crm\.test(\/api\/track\/open\/[\w.-]+)"/);
    const open = await anon().request({ method: 'GET', url: pixel });
    expect(open.status).toBe(200);
    expect(open.headers['content-type']).toBe('image/gif');
    await anon().request({ method: 'GET', url: pixel });
    const click = linkOf(mail.raw, /href="http:\/\/crm\.test(\/api\/track\/click\/[^"]+)"/);
    const redirected = await anon().request({ method: 'GET', url: click });
    expect(redirected.status).toBe(302);
    expect(redirected.headers.location).toBe('https://shop.example.com/sale?x=1&y=2');
    const evil = click.replace(/u=[^&]+/, `u=${encodeURIComponent('https://evil.example')}`);
    expect((await anon().request({ method: 'GET', url: evil })).status).toBe(404);
    const stats = await t.api.get(`/campaigns/${campaign.documentId}/stats`);
    expect(stats.body).toEqual({
      campaignId: campaign.documentId,
      stats: { totalAudience: 5, sent: 4, failed: 0, pending: 0, readRate: 0.25 },
    });
    expect((await t.api.get(`/campaigns/${campaign.documentId}`)).body.stats).toMatchObject({
      opened: 1,
      clicked: 1,
      delivered: 1,
    });

    const unsub = linkOf(mail.raw, /List-Unsubscribe: <http:\/\/crm\.test([^>]+)>/);
    const page = await anon().request({ method: 'GET', url: unsub });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form method="post">');
    const one = await anon().request({
      method: 'POST',
      url: unsub,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(one.status).toBe(200);
    const supp = await t.api.get('/suppressions');
    expect(supp.body.data.map((s: any) => [s.address, s.reason]).sort()).toEqual([
      ['p0.mail@example.com', 'unsubscribed'],
      ['p4.mail@example.com', 'manual'],
    ]);
    expect(base).toBe('http://crm.test');
  });

  test('signed provider events: delivered, bounced (suppressed), complained; bad signature 401', async () => {
    const t = await newTenant(env.app);
    const { campaign, channel } = await emailCampaign(t, { city: 'evt', contacts: 3, rate: 50 });
    await t.api.post(`/campaigns/${campaign.documentId}/trigger`);
    await waitFor(async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body, done);
    const recipients = (await t.api.get(`/campaigns/${campaign.documentId}/recipients`)).body.data;
    expect(recipients.every((r: any) => r.status === 'sent' && r.messageId)).toBe(true);
    const [a, b, c] = recipients;
    const events = [
      { type: 'delivered', messageId: a.messageId, timestamp: new Date().toISOString() },
      { type: 'bounced', messageId: b.messageId.replace(/[<>]/g, '') },
      { type: 'complained', messageId: c.messageId, timestamp: Math.floor(Date.now() / 1000) },
      { type: 'opened', messageId: '<unknown@x>' },
    ];
    const raw = JSON.stringify(events);
    const sign = (secret: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    const url = `/api/webhooks/email-events/${channel.documentId}`;
    const bad = await anon().request({
      method: 'POST',
      url,
      payload: raw,
      headers: { 'content-type': 'application/json', 'x-crm-signature': sign('wrong') },
    });
    expect(bad.status).toBe(401);
    const ok = await anon().request({
      method: 'POST',
      url,
      payload: raw,
      headers: { 'content-type': 'application/json', 'x-crm-signature': sign(channel.webhookSecret) },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toEqual({ received: 4, matched: 3 });
    const s = (await t.api.get(`/campaigns/${campaign.documentId}`)).body.stats;
    expect(s).toMatchObject({ delivered: 1, bounced: 1 });
    const supp = (await t.api.get('/suppressions')).body.data.map((x: any) => x.reason).sort();
    expect(supp).toEqual(['bounced', 'complained']);
  });

  test('sends are throttled per channel (ratePerSecond)', async () => {
    const t = await newTenant(env.app);
    const { campaign } = await emailCampaign(t, { city: 'slow', contacts: 12, rate: 4 });
    const started = Date.now();
    await t.api.post(`/campaigns/${campaign.documentId}/trigger`);
    await waitFor(async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body, done);
    // 12 messages at 4/s: three batches of 4, each booked a second after the previous one.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });

  test('a pause stops sending; resume finishes the rest once', async () => {
    const t = await newTenant(env.app);
    const { campaign } = await emailCampaign(t, { city: 'pz', contacts: 6, rate: 2 });
    await t.api.post(`/campaigns/${campaign.documentId}/trigger`);
    await waitFor(
      async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body,
      (c) => c.stats.sent >= 2,
    );
    expect((await t.api.post(`/campaigns/${campaign.documentId}/pause`)).body.campaignStatus).toBe('paused');
    await new Promise((r) => setTimeout(r, 1500));
    const paused = (await t.api.get(`/campaigns/${campaign.documentId}`)).body.stats;
    expect(paused.pending).toBeGreaterThan(0);
    await t.api.post(`/campaigns/${campaign.documentId}/resume`);
    const final = await waitFor(
      async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body,
      done,
    );
    expect(final.stats).toMatchObject({ sent: 6, pending: 0 });
    const got = env.smtp.received.filter((m) => m.to[0]?.endsWith('.pz@example.com')).map((m) => m.to[0]);
    expect(got.length).toBe(6);
    expect(new Set(got).size).toBe(6);
  });

  test('a scheduled campaign starts by itself when due', async () => {
    const t = await newTenant(env.app);
    const at = new Date(Date.now() + 1500).toISOString();
    const { campaign } = await emailCampaign(t, { city: 'due', contacts: 1, scheduledAt: at });
    expect((await t.api.post(`/campaigns/${campaign.documentId}/trigger`)).body.campaignStatus).toBe(
      'scheduled',
    );
    const final = await waitFor(
      async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body,
      done,
    );
    expect(final.stats.sent).toBe(1);
  });
});

describe('WhatsApp campaigns', () => {
  test('template messages with parameters; signed status webhooks count delivered, read and failed', async () => {
    const t = await newTenant(env.app);
    const { campaign, channel } = await whatsappCampaign(t, env, { city: 'wa', contacts: 3 });
    await t.api.post(`/campaigns/${campaign.documentId}/trigger`);
    const final = await waitFor(
      async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body,
      done,
    );
    expect(final.stats).toMatchObject({ sent: 3, failed: 0 });
    const sent = env.wa.messages.filter((m) => m.payload.template?.name === 'promo_wa');
    expect(sent).toHaveLength(3);
    // Each person's name as the template's parameter; the sends leave concurrently, so in any order.
    expect(
      sent
        .map((m) => m.payload.template.components[0].parameters[0])
        .sort((a, b) => a.text.localeCompare(b.text)),
    ).toEqual(['Person 0', 'Person 1', 'Person 2'].map((text) => ({ type: 'text', text })));
    for (const m of sent) expect(m.to).toMatch(/^55119\d{8}$/);

    const contacts = await t.api.get('/contacts');
    const acts = await t.api.get(`/contacts/${contacts.body.data[0].documentId}/activities`);
    expect(acts.body.data.map((a: any) => a.activityType)).toContain('whatsapp_sent');

    const url = `/api/webhooks/whatsapp/${channel.documentId}`;
    const hook = env.wa.statusWebhook('wa-app-secret', '1001', [
      { id: sent[0].id, status: 'delivered' },
      { id: sent[1].id, status: 'read' },
      { id: sent[2].id, status: 'failed' },
    ]);
    const forged = await anon().request({
      method: 'POST',
      url,
      payload: hook.body,
      headers: { ...hook.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
    });
    expect(forged.status).toBe(401);
    const ok = await anon().request({ method: 'POST', url, payload: hook.body, headers: hook.headers });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toEqual({ received: 3, matched: 3 });
    const s = (await t.api.get(`/campaigns/${campaign.documentId}`)).body.stats;
    expect(s).toMatchObject({ sent: 2, failed: 1, delivered: 2, opened: 1 });

    const challenge = await anon().request({
      method: 'GET',
      url: `${url}?hub.mode=subscribe&hub.verify_token=wa-verify&hub.challenge=12345`,
    });
    expect(challenge.status).toBe(200);
    expect(challenge.body).toBe('12345');
    const wrong = await anon().request({
      method: 'GET',
      url: `${url}?hub.mode=subscribe&hub.verify_token=no&hub.challenge=1`,
    });
    expect(wrong.status).toBe(403);
  });

  test('transient provider errors are retried with backoff; permanent ones fail with the message', async () => {
    const t = await newTenant(env.app);
    env.wa.failNext(1, 503);
    const { campaign } = await whatsappCampaign(t, env, { city: 'retry', contacts: 1 });
    await t.api.post(`/campaigns/${campaign.documentId}/trigger`);
    const final = await waitFor(
      async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body,
      done,
      30_000,
    );
    expect(final.stats).toMatchObject({ sent: 1, failed: 0 });
    const rec = (await t.api.get(`/campaigns/${campaign.documentId}/recipients`)).body.data[0];
    expect(rec.attempts).toBe(2);

    const t2 = await newTenant(env.app);
    env.wa.failNext(1, 400, 'Recipient phone number not in allowed list');
    const other = await whatsappCampaign(t2, env, { city: 'perm', contacts: 1 });
    await t2.api.post(`/campaigns/${other.campaign.documentId}/trigger`);
    const failed = await waitFor(
      async () => (await t2.api.get(`/campaigns/${other.campaign.documentId}`)).body,
      done,
    );
    expect(failed).toMatchObject({ campaignStatus: 'failed', stats: { failed: 1, sent: 0 } });
    expect(failed.error).toMatch(/Nothing could be sent/);
    const r2 = (await t2.api.get(`/campaigns/${other.campaign.documentId}/recipients`)).body.data[0];
    expect(r2.error).toBe('whatsapp provider: Recipient phone number not in allowed list');
  });

  test('a send whose connection was lost after the provider took it is failed as unknown, never sent again', async () => {
    const t = await newTenant(env.app);
    env.wa.dropNext(1);
    const { campaign } = await whatsappCampaign(t, env, { city: 'dropped', contacts: 2 });
    const failed = await runWithOneFailure(t, campaign.documentId);
    expect(failed.error).toMatch(/connection lost before an answer .*outcome unknown, not resent/);
    // Each person got the template once, the dropped one included (the peer took it before the connection went).
    const mine = env.wa.messages.filter((m) => m.payload.template?.name === 'promo_dropped');
    expect(mine).toHaveLength(2);
    expect(new Set(mine.map((m) => m.to)).size).toBe(2);
  });
});

describe('e-mail sends whose outcome is unknown', () => {
  test('an SMTP connection dropped after the message data went out fails that recipient as unknown, never sent again', async () => {
    const t = await newTenant(env.app);
    env.smtp.dropAfterData(1);
    const { campaign } = await emailCampaign(t, { city: 'smtpdrop', contacts: 2, rate: 50 });
    const failed = await runWithOneFailure(t, campaign.documentId);
    expect(failed.error).toMatch(/email provider: .*outcome unknown, not resent/);
    // Each person got the e-mail once, the dropped one included (the server took its data before the connection went).
    const mine = env.smtp.received.filter((m) => m.to[0]?.endsWith('.smtpdrop@example.com'));
    expect(mine.map((m) => m.to[0]).sort()).toEqual(['p0.smtpdrop@example.com', 'p1.smtpdrop@example.com']);
  });
});

describe('tracking across organizations', () => {
  test("a token signed for one organization never touches another's counters; webhooks of one channel match only its messages", async () => {
    const a = await newTenant(env.app);
    const b = await newTenant(env.app);
    const ca = await emailCampaign(a, { city: 'xa', contacts: 1, rate: 50 });
    const cb = await emailCampaign(b, { city: 'xb', contacts: 1, rate: 50 });
    await a.api.post(`/campaigns/${ca.campaign.documentId}/trigger`);
    await b.api.post(`/campaigns/${cb.campaign.documentId}/trigger`);
    await waitFor(async () => (await a.api.get(`/campaigns/${ca.campaign.documentId}`)).body, done);
    await waitFor(async () => (await b.api.get(`/campaigns/${cb.campaign.documentId}`)).body, done);
    const mailA = env.smtp.received.find((m) => m.to[0] === 'p0.xa@example.com')!;
    const mailB = env.smtp.received.find((m) => m.to[0] === 'p0.xb@example.com')!;
    const pixelA = linkOf(mailA.raw, /\/api\/track\/open\/([\w.-]+)"/);
    const pixelB = linkOf(mailB.raw, /\/api\/track\/open\/([\w.-]+)"/);
    const [orgA, recA, macA] = pixelA.split('.');
    const [orgB, recB] = pixelB.split('.');
    // a's MAC with b's organization and recipient: refused, nothing counted.
    for (const forged of [`${orgB}.${recB}.${macA}`, `${orgA}.${recB}.${macA}`, `${orgB}.${recA}.${macA}`]) {
      await anon().request({ method: 'GET', url: `/api/track/open/${forged}` });
      const unsub = await anon().request({ method: 'POST', url: `/api/unsubscribe/${forged}` });
      expect(unsub.status).toBe(404);
    }
    expect((await b.api.get(`/campaigns/${cb.campaign.documentId}`)).body.stats.opened).toBe(0);
    expect((await b.api.get('/suppressions')).body.data).toEqual([]);
    // b's channel webhook, correctly signed, with a's message id: matched nothing.
    const rA = (await a.api.get(`/campaigns/${ca.campaign.documentId}/recipients`)).body.data[0];
    const raw = JSON.stringify([{ type: 'bounced', messageId: rA.messageId }]);
    const sig = `sha256=${createHmac('sha256', cb.channel.webhookSecret).update(raw).digest('hex')}`;
    const res = await anon().request({
      method: 'POST',
      url: `/api/webhooks/email-events/${cb.channel.documentId}`,
      payload: raw,
      headers: { 'content-type': 'application/json', 'x-crm-signature': sig },
    });
    expect(res.body).toEqual({ received: 1, matched: 0 });
    expect((await a.api.get(`/campaigns/${ca.campaign.documentId}`)).body.stats.bounced).toBe(0);
    expect((await a.api.get('/suppressions')).body.data).toEqual([]);
    // Another organization cannot list a's suppressions or delete them.
    await a.api.post('/suppressions', { data: { address: '+55 11 99999-0000' } });
    const sa = (await a.api.get('/suppressions')).body.data[0];
    expect(sa.address).toBe('+5511999990000');
    expect((await b.api.delete(`/suppressions/${sa.documentId}`)).status).toBe(404);
  });
});
