import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, apiClient, getApp, invitationMail, newTenant, registerUser } from '../../helpers/app.js';

describe('invitations: tenancy', () => {
  beforeAll(async () => {
    await getApp();
  });

  test('another organization cannot list, filter, count or revoke them', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const u = await registerUser(a.app);
    const invited = await a.api.post('/memberships', { data: { email: u.email, role: 'member' } });
    const id = invited.body.documentId;

    const list = await b.api.get('/invitations');
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.pagination.total).toBe(0);
    expect(
      (await b.api.get('/invitations', { 'filters[documentId][$eq]': id })).body.meta.pagination.total,
    ).toBe(0);
    expect(
      (await b.api.get('/invitations', { 'filters[email][$eq]': u.email })).body.meta.pagination.total,
    ).toBe(0);
    expect((await b.api.delete(`/invitations/${id}`)).status).toBe(404);
    // B's owner using A's slug is refused outright.
    const intruder = apiClient(a.app, { authorization: `Bearer ${b.user.jwt}`, 'x-tenant-id': a.slug });
    expect((await intruder.get('/invitations')).status).toBe(403);
    expect((await intruder.delete(`/invitations/${id}`)).status).toBe(403);
    expect(
      (await intruder.post('/memberships', { data: { email: b.user.email, role: 'owner' } })).status,
    ).toBe(403);

    // A's invitation is untouched and still works.
    expect((await a.api.get('/invitations')).body.data.map((i: any) => i.documentId)).toEqual([id]);
    const { path } = await invitationMail(u.email);
    const userApi = apiClient(a.app, { authorization: `Bearer ${u.jwt}` });
    expect((await userApi.post(`${path}/accept`)).body.organization.slug).toBe(a.slug);
  });

  test("an organization's invitation admits into that organization only", async () => {
    const a = await newTenant();
    const b = await newTenant();
    await addMember(a, 'viewer'); // A has members and invitations of its own
    const u = await registerUser(a.app);
    // B invites the user; the same address also has a pending invitation in A.
    await a.api.post('/memberships', { data: { email: u.email, role: 'admin' } });
    const fromA = await invitationMail(u.email);
    await b.api.post('/memberships', { data: { email: u.email, role: 'member' } });
    const fromB = await invitationMail(u.email);
    expect(fromB.token).not.toBe(fromA.token);

    const userApi = apiClient(a.app, { authorization: `Bearer ${u.jwt}` });
    const accepted = await userApi.post(`${fromB.path}/accept`);
    expect(accepted.body).toMatchObject({ organization: { slug: b.slug }, membership: { role: 'member' } });
    // Accepting B's link gave nothing in A: A's invitation is still pending and A still refuses the user.
    const inA = apiClient(a.app, { authorization: `Bearer ${u.jwt}`, 'x-tenant-id': a.slug });
    expect((await inA.get('/memberships')).status).toBe(403);
    expect((await a.api.get('/invitations')).body.data.map((i: any) => i.email)).toEqual([u.email]);
    expect((await a.api.get('/memberships')).body.data.map((m: any) => m.user.email)).not.toContain(u.email);
    const orgs = await userApi.get('/organizations');
    expect(orgs.body.data.map((o: any) => o.slug)).toEqual([b.slug]);
  });
});
