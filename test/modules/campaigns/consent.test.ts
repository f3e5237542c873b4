import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newTenant, type Tenant } from '../../helpers/app.js';
import { createEmailChannel, type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { emailTemplateBody, grantMarketing, seedContacts, segmentFor, waitFor } from './helpers.js';

/** Campaigns honour the consent ledger (docs/lgpd.md, "Consent"): workers on, the SMTP peer receiving. */
let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging({ workers: true });
});
afterAll(async () => env?.close());

const done = (c: any) => c.campaignStatus === 'completed' || c.campaignStatus === 'failed';

async function campaignTo(t: Tenant, city: string) {
  const channel = await createEmailChannel(t.api, { ratePerSecond: 1000 });
  const tpl = await t.api.post('/email-templates', { data: { ...emailTemplateBody, name: `News ${city}` } });
  const segment = await segmentFor(t.api, city);
  const res = await t.api.post('/campaigns', {
    data: { name: `C ${city}`, channel: channel.documentId, segment, template: tpl.body.documentId },
  });
  expect(res.status).toBe(201);
  return res.body.documentId as string;
}

async function run(t: Tenant, id: string) {
  expect((await t.api.post(`/campaigns/${id}/trigger`)).status).toBe(200);
  return waitFor(async () => (await t.api.get(`/campaigns/${id}`)).body, done, 120_000);
}

const sentTo = (city: string) =>
  env.smtp.received
    .filter((m) => m.to[0]?.endsWith(`.${city.toLowerCase()}@example.com`))
    .map((m) => m.to[0]);

describe('campaigns and consent', () => {
  test('a segment of 1,000 contacts with 300 lacking consent sends 700 and reports 300 skipped', async () => {
    const t = await newTenant(env.app);
    // 1,000 contacts of the segment through the import: 700 with an e-mail marketing consent, 300 without.
    const rows = Array.from(
      { length: 1000 },
      (_, i) => `P${i};p${i}.thousand@example.com;thousand;${i < 700 ? 'sim' : ''}`,
    );
    const imported = await t.api.request({
      method: 'POST',
      url: '/api/contacts/import',
      headers: { 'content-type': 'text/csv' },
      payload: ['name;email;city;consent_email', ...rows].join('\n'),
    });
    expect(imported.body).toMatchObject({ created: 1000, failed: 0 });
    const id = await campaignTo(t, 'thousand');
    const final = await run(t, id);
    expect(final.stats).toMatchObject({
      total: 1000,
      sent: 700,
      skipped: 300,
      skippedNoConsent: 300,
      failed: 0,
    });
    expect(sentTo('thousand')).toHaveLength(700);
    const stats = await t.api.get(`/campaigns/${id}/stats`);
    expect(stats.body.stats).toMatchObject({ totalAudience: 1000, sent: 700, pending: 0 });
    const skipped = await t.api.get(`/campaigns/${id}/recipients`, {
      'filters[skipReason][$eq]': 'no_consent',
      'pagination[pageSize]': 1,
    });
    expect(skipped.body.meta.pagination.total).toBe(300);
    expect(skipped.body.data[0]).toMatchObject({ status: 'skipped', skipReason: 'no_consent' });
  }, 300_000);

  test('a withdrawal skips even without the setting; the setting off lets contacts without consent through', async () => {
    const t = await newTenant(env.app);
    const org = (await t.userApi.get('/organizations')).body.data[0];
    const put = await t.api.put(`/organizations/${org.documentId}`, {
      data: { marketingRequiresConsent: false },
    });
    expect(put.status).toBe(200);
    expect(put.body.marketingRequiresConsent).toBe(false);
    const [granted, withdrawn] = await seedContacts(t.api, 'optional', 3, 'email', false);
    await grantMarketing(t.api, granted, 'email');
    await t.api.post(`/contacts/${withdrawn}/consents`, {
      data: { channel: 'email', purpose: 'marketing', status: 'withdrawn' },
    });
    // A WhatsApp withdrawal says nothing of e-mail.
    await t.api.post(`/contacts/${granted}/consents`, {
      data: { channel: 'whatsapp', purpose: 'marketing', status: 'withdrawn' },
    });
    const final = await run(t, await campaignTo(t, 'optional'));
    expect(final.stats).toMatchObject({ total: 3, sent: 2, skipped: 1, skippedNoConsent: 1 });
    expect(sentTo('optional').sort()).toEqual(['p0.optional@example.com', 'p2.optional@example.com']);
    const list = await t.api.get(`/campaigns/${final.documentId}/recipients`, {
      'filters[status][$eq]': 'skipped',
    });
    expect(list.body.data.map((r: any) => r.skipReason)).toEqual(['consent_withdrawn']);
  });

  test('transactional consent does not open marketing', async () => {
    const t = await newTenant(env.app);
    const [only] = await seedContacts(t.api, 'transac', 1, 'email', false);
    await t.api.post(`/contacts/${only}/consents`, {
      data: { channel: 'email', purpose: 'transactional', status: 'granted', legalBasis: 'contract' },
    });
    const final = await run(t, await campaignTo(t, 'transac'));
    expect(final.campaignStatus).toBe('failed');
    expect(final.stats).toMatchObject({ total: 1, sent: 0, skippedNoConsent: 1 });
  });
});
