import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiClient, newTenant, type Tenant } from '../../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { emailCampaign, grantMarketing, waitFor } from '../campaigns/helpers.js';
import { inbound, inboxSetup, waNumber } from '../inbox/helpers.js';

/** Consent sources that the person acts through: WhatsApp stop keywords and the one-click unsubscribe. */
let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging({ workers: true });
});
afterAll(async () => env?.close());

const stateOf = async (t: Tenant, id: string, channel: string) =>
  (await t.api.get(`/contacts/${id}/consents`)).body.current.find(
    (s: any) => s.channel === channel && s.purpose === 'marketing',
  ).status;
const repliesTo = (to: string) => env.wa.messages.filter((m) => m.to === to && m.type === 'text');

describe('WhatsApp stop keywords', () => {
  test('"parar" withdraws WhatsApp marketing and answers once; a repeat records and answers nothing', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t);
    const phone = waNumber();
    const contact = (await t.api.post('/contacts', { data: { name: 'Stop Me', phone: `+${phone}` } })).body;
    await grantMarketing(t.api, contact.documentId, 'whatsapp');
    await grantMarketing(t.api, contact.documentId, 'email');
    expect((await inbound(env, channel, [{ from: phone, text: 'Olá, quero saber do pedido' }])).status).toBe(
      200,
    );
    expect(await stateOf(t, contact.documentId, 'whatsapp')).toBe('granted');

    const stop = await inbound(env, channel, [{ from: phone, id: `wamid.stop.${phone}`, text: ' parar! ' }]);
    expect(stop.status).toBe(200);
    const ledger = (await t.api.get(`/contacts/${contact.documentId}/consents`)).body;
    expect(ledger.history[0]).toMatchObject({
      channel: 'whatsapp',
      purpose: 'marketing',
      status: 'withdrawn',
      source: 'inbox_keyword',
      recordedBy: null,
      proof: { messageId: `wamid.stop.${phone}`, keyword: 'PARAR' },
    });
    expect(await stateOf(t, contact.documentId, 'email')).toBe('granted');
    const replies = await waitFor(
      async () => repliesTo(phone),
      (r) => r.length >= 1,
    );
    expect(replies[0].payload.text.body).toMatch(/não receberá mais mensagens de marketing/);

    // The same message again (a redelivery) and a new STOP: nothing new.
    await inbound(env, channel, [{ from: phone, id: `wamid.stop.${phone}`, text: 'parar' }]);
    await inbound(env, channel, [{ from: phone, text: 'STOP' }]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(repliesTo(phone)).toHaveLength(1);
    expect((await t.api.get(`/contacts/${contact.documentId}/consents`)).body.history).toHaveLength(3);
  });

  test('keywords are the organization’s: changed ones apply, others are plain messages', async () => {
    const t = await newTenant(env.app);
    const org = (await t.userApi.get('/organizations')).body.data[0];
    const put = await t.api.put(`/organizations/${org.documentId}`, {
      data: { consentStopKeywords: ['chega', 'Sair'] },
    });
    expect(put.status).toBe(200);
    expect(put.body.consentStopKeywords).toEqual(['CHEGA', 'SAIR']);
    const bad = await t.api.put(`/organizations/${org.documentId}`, { data: { consentStopKeywords: [''] } });
    expect(bad.status).toBe(400);
    const { channel } = await inboxSetup(env, t);
    const phone = waNumber();
    const contact = (await t.api.post('/contacts', { data: { name: 'Kw', phone: `+${phone}` } })).body;
    await grantMarketing(t.api, contact.documentId, 'whatsapp');
    await inbound(env, channel, [{ from: phone, text: 'PARAR' }]);
    expect(await stateOf(t, contact.documentId, 'whatsapp')).toBe('granted');
    await inbound(env, channel, [{ from: phone, text: 'Chega' }]);
    expect(await stateOf(t, contact.documentId, 'whatsapp')).toBe('withdrawn');
  });

  test('another organization’s stop message does not touch this one’s contact with the same phone', async () => {
    const a = await newTenant(env.app);
    const b = await newTenant(env.app);
    const phone = waNumber();
    const ca = (await a.api.post('/contacts', { data: { name: 'Same', phone: `+${phone}` } })).body;
    await grantMarketing(a.api, ca.documentId, 'whatsapp');
    await b.api.post('/contacts', { data: { name: 'Same', phone: `+${phone}` } });
    const { channel } = await inboxSetup(env, b);
    await inbound(env, channel, [{ from: phone, text: 'STOP' }]);
    expect(await stateOf(a, ca.documentId, 'whatsapp')).toBe('granted');
  });
});

describe('one-click unsubscribe', () => {
  test('withdraws e-mail marketing consent of the contact, once', async () => {
    const t = await newTenant(env.app);
    const { campaign } = await emailCampaign(t, { city: 'unsub', contacts: 1, rate: 50 });
    await t.api.post(`/campaigns/${campaign.documentId}/trigger`);
    await waitFor(
      async () => (await t.api.get(`/campaigns/${campaign.documentId}`)).body,
      (c: any) => c.campaignStatus === 'completed',
    );
    const mail = env.smtp.received.find((m) => m.to[0] === 'p0.unsub@example.com')!;
    const token = /\/api\/unsubscribe\/([\w.-]+)/.exec(
      mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='),
    )![1];
    const anon = apiClient(env.app, {});
    for (let i = 0; i < 2; i++) {
      const res = await anon.request({
        method: 'POST',
        url: `/api/unsubscribe/${token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'List-Unsubscribe=One-Click',
      });
      expect(res.status).toBe(200);
    }
    const contact = (await t.api.get('/contacts', { 'filters[email][$eq]': 'p0.unsub@example.com' })).body
      .data[0];
    const ledger = (await t.api.get(`/contacts/${contact.documentId}/consents`)).body;
    expect(ledger.history.map((h: any) => `${h.source}/${h.status}`)).toEqual([
      'unsubscribe/withdrawn',
      'manual/granted',
    ]);
    expect(ledger.history[0].proof).toMatchObject({ campaign: campaign.documentId });
  });
});
