import { beforeAll, describe, expect, test } from 'vitest';
import { apiClient, getApp, newTenant, type Tenant } from '../../helpers/app.js';

/**
 * The public form's consent checkbox (issue 33 item 1, docs/lgpd.md "Consent sources"): the board's setting, the
 * form showing it, the contact matched or made from the form's e-mail or phone, the consent recorded with the form's
 * text, the form and the IP only when ticked — and none of it reaching another organization.
 */
const TEXT = 'Aceito receber ofertas por WhatsApp e e-mail da Loja Exemplo.';
let t: Tenant;
let anon: ReturnType<typeof apiClient>;
let boardId: string;

async function formBoard(tenant: Tenant, formConsent: unknown) {
  const res = await tenant.api.post('/boards', {
    data: {
      name: 'Site',
      boardSettings: { formConsent },
      phases: [
        {
          name: 'Entrada',
          fields: [
            { label: 'Nome', slug: 'nome', type: 'text', required: true },
            { label: 'E-mail', type: 'email' },
            { label: 'Celular', type: 'phone' },
          ],
        },
        { name: 'Contato feito' },
      ],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.documentId as string;
}

const submit = (id: string, body: Record<string, unknown>) => anon.post(`/boards/${id}/public-form`, body);

async function consentsOf(tenant: Tenant, email: string) {
  const found = await tenant.api.get('/contacts', { 'filters[email][$eq]': email });
  expect(found.body.data.length).toBeLessThanOrEqual(1);
  const contact = found.body.data[0];
  if (!contact) return { contact: null, history: [] as any[] };
  const read = await tenant.api.get(`/contacts/${contact.documentId}/consents`);
  return { contact, history: read.body.history as any[] };
}

beforeAll(async () => {
  t = await newTenant();
  anon = apiClient((await getApp()).app, {});
  boardId = await formBoard(t, { text: TEXT, channels: ['whatsapp', 'email'] });
});

describe("the public form's consent", () => {
  test('the board keeps the setting; the form shows the text', async () => {
    const board = await t.api.get(`/boards/${boardId}`);
    expect(board.body.boardSettings.formConsent).toEqual({
      text: TEXT,
      channels: ['whatsapp', 'email'],
      purpose: 'marketing',
    });
    const form = await anon.get(`/boards/${boardId}/public-form`);
    expect(form.status).toBe(200);
    expect(form.body.consent).toEqual({ text: TEXT, channels: ['whatsapp', 'email'], purpose: 'marketing' });
  });

  test('ticked: a contact is made from the form, linked to the card, granted each channel with the proof', async () => {
    const res = await submit(boardId, {
      fields: { nome: 'Júlia Andrade', 'e-mail': 'julia@andrade.com.br', celular: '(11) 98765-4321' },
      consent: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const card = await t.api.get(`/boards/${boardId}/cards/${res.body.documentId}`);
    expect(card.body.contact?.name).toBe('Júlia Andrade');
    const { contact, history } = await consentsOf(t, 'julia@andrade.com.br');
    expect(contact.phone).toBe('+5511987654321');
    expect(card.body.contact.documentId).toBe(contact.documentId);
    expect(history.map((h) => `${h.channel}/${h.purpose}/${h.status}/${h.source}`).sort()).toEqual([
      'email/marketing/granted/form',
      'whatsapp/marketing/granted/form',
    ]);
    for (const h of history) {
      expect(h.legalBasis).toBe('consent');
      expect(h.proof).toMatchObject({ formId: boardId, text: TEXT, card: res.body.documentId });
      expect(typeof h.proof.ip).toBe('string');
      expect(h.proof.ip.length).toBeGreaterThan(0);
      expect(h.recordedBy).toBeNull();
    }
  });

  test('the same person again is matched, not duplicated; unticked records nothing more', async () => {
    const before = (await consentsOf(t, 'julia@andrade.com.br')).history.length;
    const res = await submit(boardId, {
      fields: { nome: 'Julia A.', 'e-mail': 'JULIA@andrade.com.br' },
      consent: false,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { contact, history } = await consentsOf(t, 'julia@andrade.com.br');
    expect(history).toHaveLength(before);
    const card = await t.api.get(`/boards/${boardId}/cards/${res.body.documentId}`);
    expect(card.body.contact.documentId).toBe(contact.documentId);
    // Matched by the phone alone too.
    const byPhone = await submit(boardId, { fields: { nome: 'J', celular: '+55 11 98765-4321' } });
    expect(byPhone.status).toBe(201);
    const third = await t.api.get(`/boards/${boardId}/cards/${byPhone.body.documentId}`);
    expect(third.body.contact.documentId).toBe(contact.documentId);
  });

  test('a ticked box needs an e-mail or phone; a form without consent refuses one; bad settings are 400', async () => {
    const noWay = await submit(boardId, { fields: { nome: 'Sem contato' }, consent: true });
    expect(noWay.status).toBe(400);
    expect(noWay.body.error.message).toMatch(/e-mail or phone/);
    const plain = await formBoard(t, null);
    expect((await anon.get(`/boards/${plain}/public-form`)).body.consent).toBeNull();
    const asked = await submit(plain, { fields: { nome: 'X', 'e-mail': 'x@y.com.br' }, consent: true });
    expect(asked.status).toBe(400);
    expect(asked.body.error.details).toMatchObject({ field: 'consent' });
    for (const formConsent of [
      { text: '', channels: ['email'] },
      { text: 'ok', channels: [] },
      { text: 'ok', channels: ['fax'] },
      { text: 'ok', channels: ['email'], extra: 1 },
    ]) {
      const res = await t.api.put(`/boards/${plain}`, { data: { boardSettings: { formConsent } } });
      expect(res.status, JSON.stringify(formConsent)).toBe(400);
      expect(JSON.stringify(res.body.error.details)).toContain('formConsent');
    }
    const set = await t.api.put(`/boards/${plain}`, {
      data: { boardSettings: { formConsent: { text: 'Quero novidades', channels: ['sms'] } } },
    });
    expect(set.status).toBe(200);
    expect(set.body.boardSettings.formConsent).toEqual({
      text: 'Quero novidades',
      channels: ['sms'],
      purpose: 'marketing',
    });
    const byDefault = await t.api.put(`/boards/${plain}`, {
      data: { boardSettings: { formConsent: { channels: ['whatsapp', 'email'] } } },
    });
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.boardSettings.formConsent.text).toBe(
      'Aceito receber ofertas e novidades por WhatsApp e e-mail. Posso retirar este consentimento quando quiser.',
    );
    expect((await anon.get(`/boards/${plain}/public-form`)).body.consent.text).toBe(
      byDefault.body.boardSettings.formConsent.text,
    );
    const cleared = await t.api.put(`/boards/${plain}`, { data: { boardSettings: { formConsent: null } } });
    expect(cleared.body.boardSettings.formConsent).toBeNull();
  });

  test("another organization's form never matches nor touches this organization's contact", async () => {
    const other = await newTenant();
    const theirs = await formBoard(other, { text: 'Outro texto', channels: ['email'] });
    const res = await submit(theirs, {
      fields: { nome: 'Júlia', 'e-mail': 'julia@andrade.com.br' },
      consent: true,
    });
    expect(res.status).toBe(201);
    const mine = await consentsOf(t, 'julia@andrade.com.br');
    const theirsRead = await consentsOf(other, 'julia@andrade.com.br');
    expect(theirsRead.contact.documentId).not.toBe(mine.contact.documentId);
    expect(theirsRead.history.map((h) => h.proof.text)).toEqual(['Outro texto']);
    expect(mine.history.every((h) => h.proof.text === TEXT)).toBe(true);
    // Neither sees the other's contact.
    expect((await other.api.get(`/contacts/${mine.contact.documentId}`)).status).toBe(404);
    expect((await other.api.get(`/contacts/${mine.contact.documentId}/consents`)).status).toBe(404);
  });
});
