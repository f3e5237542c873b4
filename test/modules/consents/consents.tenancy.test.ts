import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant, type Tenant } from '../../helpers/app.js';

beforeAll(async () => {
  await getApp();
});

describe('consents tenancy', () => {
  let a: Tenant;
  let b: Tenant;
  let secret: string;
  beforeAll(async () => {
    a = await newTenant();
    b = await newTenant();
    secret = (await a.api.post('/contacts', { data: { name: 'Segredo', phone: '+5511988887777' } })).body
      .documentId;
    await a.api.post(`/contacts/${secret}/consents`, {
      data: { channel: 'whatsapp', purpose: 'marketing', status: 'granted', proof: { ip: '198.51.100.7' } },
    });
  });

  test('another organization can neither read nor write the ledger of a contact: the same 404 as for none', async () => {
    const read = await b.api.get(`/contacts/${secret}/consents`);
    const none = await b.api.get('/contacts/zzzzzzzzzzzzzzzzzzzzzzzz/consents');
    expect(read.status).toBe(404);
    expect(read.body.error.message).toBe(none.body.error.message);
    const write = await b.api.post(`/contacts/${secret}/consents`, {
      data: { channel: 'whatsapp', purpose: 'marketing', status: 'withdrawn' },
    });
    expect(write.status).toBe(404);
    const mine = await a.api.get(`/contacts/${secret}/consents`);
    expect(mine.body.history).toHaveLength(1);
    expect(mine.body.history[0].status).toBe('granted');
  });

  test('nothing of A shows in B: its own contacts start with no state and no entries', async () => {
    const own = (await b.api.post('/contacts', { data: { name: 'Segredo', phone: '+5511988887777' } })).body
      .documentId;
    const read = await b.api.get(`/contacts/${own}/consents`);
    expect(read.body.history).toEqual([]);
    expect(read.body.current.every((s: { status: string }) => s.status === 'none')).toBe(true);
  });

  test('a tenant header of another organization is refused before any consent is read', async () => {
    const res = await b.userApi.request({
      method: 'GET',
      url: `/api/contacts/${secret}/consents`,
      headers: { 'x-tenant-id': a.slug },
    });
    expect([401, 403, 404]).toContain(res.status);
  });
});
