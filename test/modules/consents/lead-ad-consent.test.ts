import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  connectTenant,
  createRoute,
  type LeadAdsEnv,
  startLeadAds,
  waitDeliveries,
} from '../lead-ads/helpers.js';

/** A lead form's consent checkbox recorded in the contact's ledger (docs/lgpd.md, "Consent"). */
let env: LeadAdsEnv;
beforeAll(async () => {
  env = await startLeadAds({ workers: true });
});
afterAll(async () => env?.close());

const capture = {
  field: 'aceita_ofertas',
  channels: ['whatsapp', 'email'],
  text: 'Aceito receber ofertas por WhatsApp e e-mail',
};

describe('lead ad routes record consent', () => {
  test('a checked box grants each channel with the form text as proof; bad settings are 400s', async () => {
    const c = await connectTenant(env);
    const bad = await c.api.post('/lead-form-routes', {
      data: {
        name: 'bad',
        leadIntegrationDocumentId: c.integration.documentId,
        targetBoardDocumentId: c.board.boardId,
        leadFormId: c.formId,
        fieldMapping: { mappings: [] },
        consentCapture: { ...capture, channels: ['fax'] },
      },
    });
    expect(bad.status).toBe(400);
    const route = await createRoute(c, { consentCapture: capture });
    expect(route.consentCapture).toEqual({ ...capture, purpose: 'marketing' });
    const yes = env.peer.addLead(c.pageId, c.formId, {
      full_name: 'Lia Lead',
      email: 'lia@lead.example',
      aceita_ofertas: 'sim',
    });
    const none = env.peer.addLead(c.pageId, c.formId, { full_name: 'Sem Caixa', email: 'sem@lead.example' });
    expect((await env.post(env.peer.leadgenWebhook([yes, none]))).status).toBe(200);
    const rows = await waitDeliveries(
      c.api,
      route.documentId,
      (r) => r.length === 2 && r.every((d) => d.status === 'succeeded'),
    );
    const lia = rows.find((d) => d.leadgenId === yes.id).contact;
    const ledger = (await c.api.get(`/contacts/${lia}/consents`)).body;
    expect(ledger.history.map((h: any) => `${h.channel}/${h.status}/${h.source}`).sort()).toEqual([
      'email/granted/lead_ad',
      'whatsapp/granted/lead_ad',
    ]);
    expect(ledger.history[0].proof).toMatchObject({ leadgenId: yes.id, text: capture.text, answer: 'sim' });
    const sem = rows.find((d) => d.leadgenId === none.id).contact;
    expect((await c.api.get(`/contacts/${sem}/consents`)).body.history).toEqual([]);
    const off = await c.api.put(`/lead-form-routes/${route.documentId}`, { data: { consentCapture: null } });
    expect(off.status).toBe(200);
    expect(off.body.consentCapture).toBeNull();
  });
});
