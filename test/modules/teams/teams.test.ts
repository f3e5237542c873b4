import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant } from '../../helpers/app.js';

beforeAll(async () => {
  await getApp();
});

describe('teams', () => {
  test('CRUD with memberCount', async () => {
    const t = await newTenant();
    const created = await t.api.post('/teams', { data: { name: 'Vendas', description: 'Time de vendas' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Vendas', description: 'Time de vendas', memberCount: 0 });
    const id = created.body.documentId;
    expect((await t.api.get(`/teams/${id}`)).body).toEqual(created.body);
    const updated = await t.api.put(`/teams/${id}`, { data: { name: 'Vendas B2B', description: null } });
    expect(updated.body).toMatchObject({ name: 'Vendas B2B', description: null });
    await t.api.post('/teams', { data: { name: 'Apoio' } });
    const list = await t.api.get('/teams');
    expect(list.body.data.map((x: { name: string }) => x.name)).toEqual(['Apoio', 'Vendas B2B']);
    expect(list.body.meta.pagination.total).toBe(2);
    const filtered = await t.api.get('/teams', { 'filters[name][$containsi]': 'b2b' });
    expect(filtered.body.data).toHaveLength(1);
    expect((await t.api.delete(`/teams/${id}`)).body).toEqual({ documentId: id, deleted: true });
    expect((await t.api.get(`/teams/${id}`)).status).toBe(404);
  });

  test('members: add, list, get, remove; duplicates and unknown memberships', async () => {
    const t = await newTenant();
    const m = await addMember(t, 'member');
    const { body: team } = await t.api.post('/teams', { data: { name: 'Suporte' } });
    const base = `/teams/${team.documentId}/members`;
    const added = await t.api.post(base, { data: { membership: m.membershipId } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      documentId: m.membershipId,
      role: 'member',
      user: { email: m.user.email },
    });
    await t.api.post(base, { data: { membership: t.membershipId } });
    const list = await t.api.get(base);
    expect(list.body.meta.pagination.total).toBe(2);
    expect(list.body.data.map((x: { documentId: string }) => x.documentId)).toEqual([
      m.membershipId,
      t.membershipId,
    ]);
    expect((await t.api.get(`/teams/${team.documentId}`)).body.memberCount).toBe(2);
    expect((await t.api.get(`${base}/${m.membershipId}`)).body.documentId).toBe(m.membershipId);

    const dup = await t.api.post(base, { data: { membership: m.membershipId } });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details.duplicateKeys).toEqual(['membership']);
    expect((await t.api.post(base, { data: { membership: 'abcdefghijklmnopqrstuvwx' } })).status).toBe(400);

    expect((await t.api.delete(`${base}/${m.membershipId}`)).body).toEqual({
      documentId: m.membershipId,
      deleted: true,
    });
    expect((await t.api.get(`${base}/${m.membershipId}`)).status).toBe(404);
    expect((await t.api.delete(`${base}/${m.membershipId}`)).status).toBe(404);
  });

  test('removing a membership from the organization removes it from its teams', async () => {
    const t = await newTenant();
    const m = await addMember(t, 'member');
    const { body: team } = await t.api.post('/teams', { data: { name: 'X' } });
    await t.api.post(`/teams/${team.documentId}/members`, { data: { membership: m.membershipId } });
    expect((await t.api.delete(`/memberships/${m.membershipId}`)).status).toBe(200);
    expect((await t.api.get(`/teams/${team.documentId}/members`)).body.data).toEqual([]);
  });

  test('errors: duplicate name, validation, unknown team, roles', async () => {
    const t = await newTenant();
    const member = await addMember(t, 'member');
    const viewer = await addMember(t, 'viewer');
    const { body: team } = await t.api.post('/teams', { data: { name: 'Único' } });
    const dup = await t.api.post('/teams', { data: { name: 'Único' } });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details.duplicateKeys).toEqual(['name']);
    expect((await t.api.post('/teams', { data: { name: '' } })).status).toBe(400);
    expect((await t.api.post('/teams', { data: { name: 'x', extra: 1 } })).status).toBe(400);
    expect((await t.api.get('/teams/abcdefghijklmnopqrstuvwx')).status).toBe(404);
    expect((await t.api.get('/teams/abcdefghijklmnopqrstuvwx/members')).status).toBe(404);
    expect((await t.api.get(`/teams/${team.documentId}/members`, { sort: 'name:asc' })).status).toBe(400);
    // Members and viewers read; only admins configure.
    expect((await viewer.api.get('/teams')).status).toBe(200);
    expect((await member.api.get(`/teams/${team.documentId}/members`)).status).toBe(200);
    expect((await member.api.post('/teams', { data: { name: 'y' } })).status).toBe(403);
    expect((await member.api.put(`/teams/${team.documentId}`, { data: { name: 'y' } })).status).toBe(403);
    expect((await member.api.delete(`/teams/${team.documentId}`)).status).toBe(403);
    expect(
      (
        await member.api.post(`/teams/${team.documentId}/members`, {
          data: { membership: member.membershipId },
        })
      ).status,
    ).toBe(403);
    const admin = await addMember(t, 'admin');
    expect((await admin.api.post('/teams', { data: { name: 'Do admin' } })).status).toBe(201);
  });
});
