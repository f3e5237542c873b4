import { beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant, type Tenant } from '../../helpers/app.js';

const CPF = '52998224725';

beforeAll(async () => {
  await getApp();
});

describe('contacts tenancy', () => {
  let a: Tenant;
  let b: Tenant;
  let secret: { documentId: string };
  beforeAll(async () => {
    a = await newTenant();
    b = await newTenant();
    const res = await a.api.post('/contacts', {
      data: {
        name: 'Segredo Alfa',
        email: 'segredo@alfa.com',
        phone: '+5511999990000',
        cpf: CPF,
        city: 'Recife',
        customFields: { tier: 'gold' },
        owner: a.membershipId,
      },
    });
    secret = res.body;
    await a.api.post(`/contacts/${secret.documentId}/notes`, { data: { description: 'confidencial' } });
  });

  test('B cannot read, change or delete A contact (404)', async () => {
    const id = secret.documentId;
    expect((await b.api.get(`/contacts/${id}`)).status).toBe(404);
    expect((await b.api.put(`/contacts/${id}`, { data: { name: 'hack' } })).status).toBe(404);
    expect((await b.api.delete(`/contacts/${id}`)).status).toBe(404);
    expect((await b.api.get(`/contacts/${id}/activities`)).status).toBe(404);
    expect((await b.api.post(`/contacts/${id}/notes`, { data: { description: 'x' } })).status).toBe(404);
    expect(
      (
        await b.api.post(`/contacts/${id}/activities`, {
          data: { activityType: 'call_attempted', description: 'x' },
        })
      ).status,
    ).toBe(404);
  });

  test('B lists, counts, searches and filters nothing of A', async () => {
    const queries: Record<string, string>[] = [
      {},
      { q: 'segredo' },
      { q: CPF },
      { q: '99999' },
      { 'filters[city][$eq]': 'Recife' },
      { 'filters[email][$containsi]': 'alfa' },
      { 'filters[customFields][tier][$eq]': 'gold' },
      { 'filters[owner][documentId][$eq]': a.membershipId },
      { 'filters[owner][user][email][$eq]': a.user.email },
    ];
    for (const query of queries) {
      const res = await b.api.get('/contacts', query);
      expect(res.status, JSON.stringify(query)).toBe(200);
      expect(res.body.data, JSON.stringify(query)).toEqual([]);
      expect(res.body.meta.pagination.total).toBe(0);
    }
  });

  test('B mass operations never match or touch A contacts', async () => {
    const del = await b.api.post('/contacts/bulk-delete', { ids: [secret.documentId] });
    expect(del.body).toEqual({ matched: 0, deleted: 0, notFound: [secret.documentId] });
    expect((await b.api.post('/contacts/bulk-delete', { q: 'segredo' })).body.deleted).toBe(0);
    expect((await b.api.post('/contacts/bulk-delete', { filters: { city: 'Recife' } })).body.deleted).toBe(0);
    const upd = await b.api.post('/contacts/bulk-update', {
      filters: { city: 'Recife' },
      data: { city: 'Hacked' },
    });
    expect(upd.body.updated).toBe(0);
    const byIds = await b.api.post('/contacts/bulk-update', {
      ids: [secret.documentId],
      data: { city: 'Hacked' },
    });
    expect(byIds.body).toMatchObject({ updated: 0, notFound: [secret.documentId] });
    // B's owner cannot be set on A's contact, and A's membership cannot own B's contacts.
    expect((await b.api.post('/contacts', { data: { name: 'x', owner: a.membershipId } })).status).toBe(400);
    const { body: own } = await b.api.post('/contacts', { data: { name: 'Own B' } });
    expect(
      (await b.api.post('/contacts/merge', { survivor: own.documentId, merged: [secret.documentId] })).status,
    ).toBe(404);
    expect(
      (await b.api.post('/contacts/merge', { survivor: secret.documentId, merged: [own.documentId] })).status,
    ).toBe(404);
    const after = await a.api.get(`/contacts/${secret.documentId}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ name: 'Segredo Alfa', city: 'Recife' });
    expect((await a.api.get(`/contacts/${secret.documentId}/activities`)).body.meta.pagination.total).toBe(3);
  });

  test("B's import neither matches nor updates A's contacts; the same CPF is a new contact in B", async () => {
    const res = await b.api.request({
      method: 'POST',
      url: '/api/contacts/import',
      headers: { 'content-type': 'text/csv' },
      payload: `name,email,cpf\nImported,segredo@alfa.com,${CPF}`,
    });
    expect(res.body).toMatchObject({ created: 1, updated: 0, failed: 0 });
    expect((await a.api.get(`/contacts/${secret.documentId}`)).body.name).toBe('Segredo Alfa');
    expect((await a.api.get('/contacts', { q: 'imported' })).body.data).toEqual([]);
  });
});
