import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, apiClient, getApp, newTenant, registerUser, type Tenant } from '../../helpers/app.js';

/** Organization settings: the time zone (docs/tasks.md), read and written through /organizations. */

const orgOf = async (t: Tenant) =>
  (await t.userApi.get('/organizations')).body.data.find((o: { slug: string }) => o.slug === t.slug);

let t: Tenant;
beforeAll(async () => {
  await getApp();
  t = await newTenant();
});

describe('organization time zone', () => {
  test('defaults to America/Sao_Paulo; GET /organizations/{id} reads it; owners change it', async () => {
    const org = await orgOf(t);
    expect(org.timeZone).toBe('America/Sao_Paulo');
    const got = await t.userApi.get(`/organizations/${org.documentId}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ documentId: org.documentId, slug: t.slug, role: 'owner' });
    // Case is forgiven: the canonical IANA name is stored.
    const put = await t.userApi.put(`/organizations/${org.documentId}`, {
      data: { timeZone: 'europe/lisbon' },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.timeZone).toBe('Europe/Lisbon');
    expect((await orgOf(t)).timeZone).toBe('Europe/Lisbon');
  });

  test('chosen at creation; an invalid time zone is a 400 naming the field and the expected form', async () => {
    const { app } = await getApp();
    const user = await registerUser(app);
    const api = apiClient(app, { authorization: `Bearer ${user.jwt}` });
    const slug = `tz-${Math.random().toString(36).slice(2, 10)}`;
    const created = await api.post('/organizations', {
      data: { name: 'Lisboa', slug, timeZone: 'Europe/Lisbon' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.timeZone).toBe('Europe/Lisbon');
    for (const timeZone of ['Mars/Olympus', 'EST', 'GMT-3', '', 'America/../etc', 42]) {
      const bad = await api.put(`/organizations/${created.body.documentId}`, { data: { timeZone } });
      expect(bad.status, JSON.stringify(timeZone)).toBe(400);
      expect(bad.body.error.name).toBe('ValidationError');
      expect(JSON.stringify(bad.body.error)).toContain('timeZone');
      if (typeof timeZone === 'string' && timeZone)
        expect(bad.body.error.details.errors[0].message).toMatch(
          /IANA time zone name, e\.g\. America\/Sao_Paulo/,
        );
      const badCreate = await api.post('/organizations', {
        data: { name: 'x', slug: `${slug}-x`, timeZone },
      });
      expect(badCreate.status).toBe(400);
    }
    expect((await api.get(`/organizations/${created.body.documentId}`)).body.timeZone).toBe('Europe/Lisbon');
  });

  test('admins change it; members and viewers get 403; non-members 404', async () => {
    const org = await orgOf(t);
    const admin = await addMember(t, 'admin');
    const adminApi = apiClient(t.app, { authorization: `Bearer ${admin.user.jwt}` });
    const ok = await adminApi.put(`/organizations/${org.documentId}`, {
      data: { timeZone: 'America/Manaus' },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ timeZone: 'America/Manaus', role: 'admin' });
    for (const role of ['member', 'viewer'] as const) {
      const m = await addMember(t, role);
      const api = apiClient(t.app, { authorization: `Bearer ${m.user.jwt}` });
      const res = await api.put(`/organizations/${org.documentId}`, { data: { timeZone: 'UTC' } });
      expect(res.status).toBe(403);
      expect((await api.get(`/organizations/${org.documentId}`)).body.timeZone).toBe('America/Manaus');
    }
    const other = await newTenant();
    expect((await other.userApi.get(`/organizations/${org.documentId}`)).status).toBe(404);
    const res = await other.userApi.put(`/organizations/${org.documentId}`, { data: { timeZone: 'UTC' } });
    expect(res.status).toBe(404);
    expect((await orgOf(t)).timeZone).toBe('America/Manaus');
  });

  test('the slug and plan are not settings: unknown keys are refused', async () => {
    const org = await orgOf(t);
    for (const data of [{ slug: 'other' }, { plan: 'free' }]) {
      const res = await t.userApi.put(`/organizations/${org.documentId}`, { data });
      expect(res.status).toBe(400);
    }
  });
});
