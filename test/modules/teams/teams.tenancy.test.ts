import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant } from '../../helpers/app.js';

beforeAll(async () => {
  await getApp();
});

describe('teams tenancy', () => {
  test('another organization cannot see, count, filter, change or delete teams and their members', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const m = await addMember(a, 'member');
    const { body: team } = await a.api.post('/teams', { data: { name: 'Segredo' } });
    await a.api.post(`/teams/${team.documentId}/members`, { data: { membership: m.membershipId } });
    const id = team.documentId;

    expect((await b.api.get(`/teams/${id}`)).status).toBe(404);
    expect((await b.api.put(`/teams/${id}`, { data: { name: 'hack' } })).status).toBe(404);
    expect((await b.api.delete(`/teams/${id}`)).status).toBe(404);
    expect((await b.api.get(`/teams/${id}/members`)).status).toBe(404);
    expect((await b.api.get(`/teams/${id}/members/${m.membershipId}`)).status).toBe(404);
    expect((await b.api.delete(`/teams/${id}/members/${m.membershipId}`)).status).toBe(404);
    expect((await b.api.post(`/teams/${id}/members`, { data: { membership: b.membershipId } })).status).toBe(
      404,
    );
    const list = await b.api.get('/teams', { 'filters[name][$eq]': 'Segredo' });
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.pagination.total).toBe(0);
    expect((await b.api.get('/teams')).body.meta.pagination.total).toBe(0);

    // B's own team cannot take A's membership, and B's contacts cannot point at A's team.
    const { body: own } = await b.api.post('/teams', { data: { name: 'Segredo' } });
    expect(
      (await b.api.post(`/teams/${own.documentId}/members`, { data: { membership: m.membershipId } })).status,
    ).toBe(400);
    expect((await b.api.post('/contacts', { data: { name: 'x', team: id } })).status).toBe(400);

    expect((await a.api.get(`/teams/${id}`)).body).toMatchObject({ name: 'Segredo', memberCount: 1 });
  });
});
