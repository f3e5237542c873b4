import { SignJWT } from 'jose';
import { describe, expect, test } from 'vitest';
import { addMember, apiClient, getApp, newTenant, registerUser, unique } from '../helpers/app.js';

async function anon() {
  return apiClient((await getApp()).app, {});
}

describe('POST /auth/local', () => {
  test('logs in by email or username and returns { jwt, user }', async () => {
    const { app } = await getApp();
    const u = await registerUser(app);
    for (const identifier of [u.email, u.username, u.email.toUpperCase()]) {
      const res = await (await anon()).post('/auth/local', { identifier, password: u.password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        jwt: expect.any(String),
        user: { id: u.id, username: u.username, email: u.email, name: null },
      });
      expect(Number.isInteger(res.body.user.id)).toBe(true);
    }
  });

  test('bad credentials → 400 ValidationError "Invalid identifier or password"', async () => {
    const { app } = await getApp();
    const u = await registerUser(app);
    for (const body of [
      { identifier: u.email, password: 'wrong-password' },
      { identifier: 'nobody@nowhere.example', password: 'whatever1' },
    ]) {
      const res = await (await anon()).post('/auth/local', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        data: null,
        error: {
          status: 400,
          name: 'ValidationError',
          message: 'Invalid identifier or password',
          details: {},
        },
      });
    }
  });

  test('a missing password is a validation error naming it', async () => {
    const res = await (await anon()).post('/auth/local', { identifier: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toContainEqual(expect.objectContaining({ path: ['password'] }));
  });
});

describe('POST /auth/local/register', () => {
  test('creates a user and returns a session', async () => {
    const username = unique('reg');
    const res = await (await anon()).post('/auth/local/register', {
      username,
      email: `${username}@Example.com`,
      password: 'long-enough-pw',
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ username, email: `${username}@example.com` });
  });

  test('refuses unknown fields such as role or confirmed', async () => {
    for (const extra of [{ role: 'admin' }, { confirmed: true }, { blocked: false }]) {
      const username = unique('reg');
      const res = await (await anon()).post('/auth/local/register', {
        username,
        email: `${username}@example.com`,
        password: 'long-enough-pw',
        ...extra,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
    }
  });

  test('a taken email or username → 400', async () => {
    const { app } = await getApp();
    const u = await registerUser(app);
    const res = await (await anon()).post('/auth/local/register', {
      username: unique('r'),
      email: u.email,
      password: 'long-enough-pw',
    });
    expect(res.status).toBe(400);
    const res2 = await (await anon()).post('/auth/local/register', {
      username: u.username,
      email: `${unique()}@x.example`,
      password: 'long-enough-pw',
    });
    expect(res2.status).toBe(400);
  });
});

describe('API tokens', () => {
  test('generate-token accepts only 1d, 30d, 365d, 36500d', async () => {
    const t = await newTenant();
    for (const expiration of ['7d', '1y', '', 'never']) {
      const res = await t.userApi.post('/users/generate-token', { expiration });
      expect(res.status).toBe(400);
    }
    const days = { '1d': 1, '30d': 30, '365d': 365, '36500d': 36500 };
    for (const [expiration, n] of Object.entries(days)) {
      const res = await t.userApi.post('/users/generate-token', { expiration });
      expect(res.status).toBe(201);
      expect(res.body.token).toMatch(/^crm_pat_[0-9A-Za-z]{43}$/);
      const ms = new Date(res.body.expiresAt).getTime() - Date.now();
      expect(Math.round(ms / 86_400_000)).toBe(n);
    }
  });

  test('a token works with the tenant header, is listed without its secret, and is dead once revoked', async () => {
    const t = await newTenant();
    const { app } = await getApp();
    const created = await t.userApi.post('/users/generate-token', { expiration: '30d', name: 'ci' });
    const tokenApi = apiClient(app, { authorization: `Bearer ${created.body.token}`, 'x-tenant-id': t.slug });
    expect((await tokenApi.get('/memberships')).status).toBe(200);
    const list = await t.userApi.get('/users/tokens');
    expect(list.body.data.map((x: any) => x.documentId)).toContain(created.body.documentId);
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);
    expect((await t.userApi.delete(`/users/tokens/${created.body.documentId}`)).status).toBe(200);
    const after = await tokenApi.get('/memberships');
    expect(after.status).toBe(401);
    expect(after.body.error.name).toBe('UnauthorizedError');
  });

  test('a token cannot be revoked by another user', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const created = await a.userApi.post('/users/generate-token', { expiration: '1d' });
    expect((await b.userApi.delete(`/users/tokens/${created.body.documentId}`)).status).toBe(404);
  });

  test('an API token cannot mint more tokens (needs a session JWT)', async () => {
    const t = await newTenant();
    const { app } = await getApp();
    const created = await t.userApi.post('/users/generate-token', { expiration: '1d' });
    const tokenApi = apiClient(app, { authorization: `Bearer ${created.body.token}` });
    const res = await tokenApi.post('/users/generate-token', { expiration: '1d' });
    expect(res.status).toBe(403);
  });
});

describe('tenant routes', () => {
  test('missing token → 401 in the error envelope', async () => {
    const t = await newTenant();
    const res = await (await anon()).request({
      method: 'GET',
      url: '/api/memberships',
      headers: { 'x-tenant-id': t.slug },
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ data: null, error: { status: 401, name: 'UnauthorizedError' } });
  });

  test('invalid and expired tokens → 401', async () => {
    const t = await newTenant();
    const { app } = await getApp();
    for (const auth of ['Bearer nope', 'Bearer crm_pat_000', 'Basic abc', 'Bearer ']) {
      const res = await apiClient(app, { authorization: auth, 'x-tenant-id': t.slug }).get('/memberships');
      expect(res.status).toBe(401);
    }
    // A JWT signed with another key, and one already expired.
    const foreign = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(t.user.id))
      .setIssuer('crm')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('x'.repeat(48)));
    expect(
      (
        await apiClient(app, { authorization: `Bearer ${foreign}`, 'x-tenant-id': t.slug }).get(
          '/memberships',
        )
      ).status,
    ).toBe(401);
  });

  test('missing x-tenant-id → 400 saying the header is required', async () => {
    const t = await newTenant();
    const res = await t.userApi.get('/memberships');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/x-tenant-id.*required/i);
  });

  test('an organization the user does not belong to → 403; an unknown slug → 403 too', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const { app } = await getApp();
    const foreign = apiClient(app, { authorization: `Bearer ${a.user.jwt}`, 'x-tenant-id': b.slug });
    const res = await foreign.get('/memberships');
    expect(res.status).toBe(403);
    expect(res.body.error.name).toBe('ForbiddenError');
    const unknown = apiClient(app, {
      authorization: `Bearer ${a.user.jwt}`,
      'x-tenant-id': 'no-such-org-xyz',
    });
    expect((await unknown.get('/memberships')).body).toEqual(res.body);
  });

  test('a role without the permission → 403', async () => {
    const t = await newTenant();
    const viewer = await addMember(t, 'viewer');
    const member = await addMember(t, 'member');
    const u = await registerUser(t.app);
    expect((await viewer.api.post('/memberships', { data: { email: u.email, role: 'member' } })).status).toBe(
      403,
    );
    expect((await member.api.post('/memberships', { data: { email: u.email, role: 'member' } })).status).toBe(
      403,
    );
    expect((await viewer.api.get('/memberships')).status).toBe(200);
  });
});

describe('users, organizations, memberships', () => {
  test('GET /users/me lists the organizations with roles', async () => {
    const t = await newTenant();
    const res = await t.userApi.get('/users/me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: t.user.id, email: t.user.email });
    expect(res.body.organizations).toEqual([expect.objectContaining({ slug: t.slug, role: 'owner' })]);
  });

  test('GET/POST /organizations: create, list only mine, duplicate slug → 400', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const list = await a.userApi.get('/organizations');
    expect(list.body.data.map((o: any) => o.slug)).toEqual([a.slug]);
    expect(list.body.meta.pagination.total).toBe(1);
    const dup = await b.userApi.post('/organizations', { data: { name: 'x', slug: a.slug } });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details.duplicateKeys).toEqual(['slug']);
    const made = await a.userApi.post('/organizations', { data: { name: 'Açaí Comércio Ltda' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ slug: 'acai-comercio-ltda', role: 'owner', plan: 'business' });
  });

  test('memberships: change role, remove; the last owner stays', async () => {
    const t = await newTenant();
    const m = await addMember(t, 'member');
    const added = await t.api.get(`/memberships/${m.membershipId}`);
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({
      role: 'member',
      user: { email: m.user.email, username: m.user.username, blocked: false },
    });
    const changed = await t.api.put(`/memberships/${added.body.documentId}`, { data: { role: 'admin' } });
    expect(changed.body.role).toBe('admin');
    const demote = await t.api.put(`/memberships/${t.membershipId}`, { data: { role: 'admin' } });
    expect(demote.status).toBe(422);
    const leave = await t.api.delete(`/memberships/${t.membershipId}`);
    expect(leave.status).toBe(422);
    expect((await t.api.delete(`/memberships/${added.body.documentId}`)).status).toBe(200);
    expect((await t.api.get(`/memberships/${added.body.documentId}`)).status).toBe(404);
  });

  test('an admin cannot grant owner; a removed member loses access at once', async () => {
    const t = await newTenant();
    const admin = await addMember(t, 'admin');
    const member = await addMember(t, 'member');
    expect(
      (await admin.api.put(`/memberships/${member.membershipId}`, { data: { role: 'owner' } })).status,
    ).toBe(403);
    expect((await admin.api.delete(`/memberships/${member.membershipId}`)).status).toBe(200);
    expect((await member.api.get('/memberships')).status).toBe(403);
  });

  test('memberships of another organization are invisible and untouchable', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const bList = await b.api.get('/memberships');
    const foreignId = bList.body.data[0].documentId;
    expect((await a.api.get(`/memberships/${foreignId}`)).status).toBe(404);
    expect((await a.api.put(`/memberships/${foreignId}`, { data: { role: 'viewer' } })).status).toBe(404);
    expect((await a.api.delete(`/memberships/${foreignId}`)).status).toBe(404);
    const aList = await a.api.get('/memberships', { 'filters[documentId][$eq]': foreignId });
    expect(aList.body.data).toEqual([]);
    expect(aList.body.meta.pagination.total).toBe(0);
    expect((await b.api.get(`/memberships/${foreignId}`)).body.role).toBe('owner');
  });
});
