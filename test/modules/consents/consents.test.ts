import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant, type Tenant, type TestContext } from '../../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await getApp();
});

async function contactOf(t: Tenant, extra: Record<string, unknown> = {}) {
  const res = await t.api.post('/contacts', { data: { name: 'Ana Consentida', ...extra } });
  expect(res.status).toBe(201);
  return res.body.documentId as string;
}

describe('consent ledger', () => {
  test('records entries and answers the current state per channel and purpose', async () => {
    const t = await newTenant();
    const id = await contactOf(t);
    const empty = await t.api.get(`/contacts/${id}/consents`);
    expect(empty.status).toBe(200);
    expect(empty.body.history).toEqual([]);
    expect(empty.body.current).toHaveLength(6);
    expect(empty.body.current.every((s: any) => s.status === 'none')).toBe(true);

    const granted = await t.api.post(`/contacts/${id}/consents`, {
      data: {
        channel: 'whatsapp',
        purpose: 'marketing',
        status: 'granted',
        source: 'form',
        proof: { formId: 'f1', ip: '203.0.113.9', text: 'Aceito receber ofertas' },
      },
    });
    expect(granted.status).toBe(201);
    expect(granted.body).toMatchObject({
      channel: 'whatsapp',
      purpose: 'marketing',
      status: 'granted',
      legalBasis: 'consent',
      source: 'form',
      proof: { formId: 'f1', ip: '203.0.113.9' },
      recordedBy: t.membershipId,
    });
    const withdrawn = await t.api.post(`/contacts/${id}/consents`, {
      data: { channel: 'whatsapp', purpose: 'marketing', status: 'withdrawn' },
    });
    expect(withdrawn.status).toBe(201);
    expect(withdrawn.body.source).toBe('api');
    await t.api.post(`/contacts/${id}/consents`, {
      data: { channel: 'email', purpose: 'transactional', status: 'granted', legalBasis: 'contract' },
    });

    const read = await t.api.get(`/contacts/${id}/consents`);
    expect(read.body.history.map((h: any) => `${h.channel}/${h.status}`)).toEqual([
      'email/granted',
      'whatsapp/withdrawn',
      'whatsapp/granted',
    ]);
    const state = (ch: string, p: string) =>
      read.body.current.find((s: any) => s.channel === ch && s.purpose === p);
    expect(state('whatsapp', 'marketing')).toMatchObject({
      status: 'withdrawn',
      entry: withdrawn.body.documentId,
    });
    expect(state('email', 'transactional')).toMatchObject({ status: 'granted', legalBasis: 'contract' });
    expect(state('sms', 'marketing').status).toBe('none');
  });

  test('bad input is a 400 naming the field; an unknown contact a 404', async () => {
    const t = await newTenant();
    const id = await contactOf(t);
    const cases: Record<string, unknown>[] = [
      { channel: 'fax', purpose: 'marketing', status: 'granted' },
      { channel: 'email', purpose: 'spam', status: 'granted' },
      { channel: 'email', purpose: 'marketing', status: 'maybe' },
      { channel: 'email', purpose: 'marketing', status: 'granted', legalBasis: 'whim' },
      { channel: 'email', purpose: 'marketing', status: 'granted', source: 'unsubscribe' },
      { channel: 'email', purpose: 'marketing', status: 'granted', proof: 'x' },
      { channel: 'email', purpose: 'marketing', status: 'granted', proof: { blob: 'x'.repeat(5000) } },
      { channel: 'email', purpose: 'marketing', status: 'granted', recordedAt: '2020-01-01T00:00:00Z' },
      { purpose: 'marketing', status: 'granted' },
    ];
    for (const data of cases) {
      const res = await t.api.post(`/contacts/${id}/consents`, { data });
      expect(res.status, JSON.stringify(data)).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
      expect(res.body.error.details.errors.length).toBeGreaterThan(0);
    }
    const missing = await t.api.post('/contacts/nope/consents', {
      data: { channel: 'email', purpose: 'marketing', status: 'granted' },
    });
    expect(missing.status).toBe(404);
    expect((await t.api.get('/contacts/nope/consents')).status).toBe(404);
  });

  test('the ledger is append-only: no route changes or deletes an entry, and the database refuses UPDATE', async () => {
    const t = await newTenant();
    const id = await contactOf(t);
    const e = await t.api.post(`/contacts/${id}/consents`, {
      data: { channel: 'sms', purpose: 'marketing', status: 'granted' },
    });
    for (const method of ['put', 'patch', 'delete'] as const) {
      const res = await (t.api as any)[method](`/contacts/${id}/consents/${e.body.documentId}`, { data: {} });
      expect(res.status).toBe(404);
      const whole = await (t.api as any)[method](`/contacts/${id}/consents`, { data: {} });
      expect([404, 405]).toContain(whole.status);
    }
    const refused = await ctx.db.system
      .execute(sql`update contact_consents set status = 'withdrawn' where document_id = ${e.body.documentId}`)
      .then(
        () => 'updated',
        (err: any) => String(err.cause?.message ?? err.message),
      );
    expect(refused).toMatch(/append-only/);
    const read = await t.api.get(`/contacts/${id}/consents`);
    expect(read.body.history).toHaveLength(1);
    expect(read.body.history[0].status).toBe('granted');
  });

  test('a member records, a viewer only reads', async () => {
    const t = await newTenant();
    const id = await contactOf(t);
    const member = await addMember(t, 'member');
    const viewer = await addMember(t, 'viewer');
    const body = { data: { channel: 'email', purpose: 'marketing', status: 'granted' } };
    const byMember = await member.api.post(`/contacts/${id}/consents`, body);
    expect(byMember.status).toBe(201);
    expect(byMember.body.recordedBy).toBe(member.membershipId);
    expect((await viewer.api.post(`/contacts/${id}/consents`, body)).status).toBe(403);
    expect((await viewer.api.get(`/contacts/${id}/consents`)).body.history).toHaveLength(1);
  });

  test('deleting the contact takes its ledger with it', async () => {
    const t = await newTenant();
    const id = await contactOf(t);
    await t.api.post(`/contacts/${id}/consents`, {
      data: { channel: 'email', purpose: 'marketing', status: 'granted' },
    });
    expect((await t.api.delete(`/contacts/${id}`)).status).toBe(200);
    expect((await t.api.get(`/contacts/${id}/consents`)).status).toBe(404);
  });
});
