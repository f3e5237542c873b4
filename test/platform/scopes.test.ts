import { describe, expect, test } from 'vitest';
import { SCOPE_AREAS, SCOPES } from '../../src/platform/auth/scopes.js';
import { apiClient, getApp, newTenant, type Tenant } from '../helpers/app.js';
import { openApiDocument } from '../helpers/openapi.js';

/**
 * Token scopes over every operation of the OpenAPI document: each one declares the scopes it needs, and a token
 * narrowed to one area is refused everywhere else and let through on its own area. Generated from the document,
 * so a route added tomorrow is covered the day it lands.
 */
async function operations() {
  return (await openApiDocument()).operations;
}

const areaOf = (scope: string) => scope.split(':')[0];
const fill = (path: string) => path.replace(/\{[^}]+\}/g, 'zzzzzzzzzzzzzzzzzzzzzzzz');

async function scopedToken(t: Tenant, scopes: string[]) {
  const res = await t.userApi.post('/users/generate-token', { expiration: '1d', scopes });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return apiClient(t.app, { authorization: `Bearer ${res.body.token}`, 'x-tenant-id': t.slug });
}

/**
 * Operations any token may call, whatever its scopes: a credential reading its own scopes, and an OAuth access
 * token reading what it was issued for (404 for any other bearer: OAUTH_ONLY).
 */
const ANY_TOKEN = ['get /api/users/tokens/current', 'get /api/oauth/token-info'];
const OAUTH_ONLY = ['get /api/oauth/token-info'];

describe('token scopes', () => {
  test('every non-public operation declares its scopes, from the closed catalogue, in security and x-required-scopes', async () => {
    const wrong: string[] = [];
    for (const op of await operations()) {
      if (op.public) continue;
      const raw = op.op;
      if (!op.scopes.length && !ANY_TOKEN.includes(`${op.method} ${op.path}`))
        wrong.push(`${op.method} ${op.path}: no scope`);
      for (const s of op.scopes)
        if (!SCOPES.includes(s as never)) wrong.push(`${op.method} ${op.path}: ${s}`);
      // Tenant operations also require the tenantId scheme (x-tenant-id); user routes (no tenant) do not.
      const tenant = !/^\/api\/(users|organizations|oauth|auth)(\/|$)|^\/api\/invitations\/\{token\}/.test(
        op.path,
      );
      const expected = tenant ? { bearerAuth: op.scopes, tenantId: [] } : { bearerAuth: op.scopes };
      if (JSON.stringify(raw.security) !== JSON.stringify([expected]))
        wrong.push(`${op.method} ${op.path}: security ${JSON.stringify(raw.security)}`);
      if (!String(raw.description ?? '').includes('Token scope'))
        wrong.push(`${op.method} ${op.path}: description`);
    }
    expect(wrong).toEqual([]);
    expect((await operations()).filter((o) => !o.public).length).toBeGreaterThan(90);
  });

  test('GET /users/tokens/current: any token reads its own scopes (null for a session or an unscoped token)', async () => {
    const t = await newTenant();
    for (const scopes of [['contacts:read'], ['chat:write', 'tasks:read']]) {
      const api = await scopedToken(t, scopes);
      const res = await api.get('/users/tokens/current');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ via: 'token', scopes });
    }
    const unscoped = await t.userApi.post('/users/generate-token', { expiration: '1d' });
    const all = apiClient(t.app, { authorization: `Bearer ${unscoped.body.token}` });
    expect((await all.get('/users/tokens/current')).body).toEqual({ via: 'token', scopes: null });
    expect((await t.userApi.get('/users/tokens/current')).body).toEqual({ via: 'session', scopes: null });
    const anonymous = apiClient(t.app, {});
    expect((await anonymous.get('/users/tokens/current')).status).toBe(401);
  });

  test('unknown, malformed or empty scope lists in generate-token → 400; known ones are kept', async () => {
    const t = await newTenant();
    for (const scopes of [['contacts:admin'], ['nope:read'], ['contacts'], [], ['CONTACTS:READ']]) {
      const res = await t.userApi.post('/users/generate-token', { expiration: '1d', scopes });
      expect(res.status, JSON.stringify(scopes)).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
    }
    const ok = await t.userApi.post('/users/generate-token', {
      expiration: '1d',
      scopes: ['chat:read', 'contacts:write'],
    });
    expect(ok.status).toBe(201);
    expect(ok.body.scopes).toEqual(['chat:read', 'contacts:write']);
    expect(Object.keys(SCOPE_AREAS)).toContain('chat');
  });

  test("an owner's token scoped to contacts:read cannot create boards, cards or products, change roles or delete a board", async () => {
    const t = await newTenant();
    const board = await t.api.post('/boards', { data: { name: 'Pipeline', phases: [{ name: 'New' }] } });
    expect(board.status).toBe(201);
    const api = await scopedToken(t, ['contacts:read']);
    const denied = [
      await api.post('/boards', { data: { name: 'X' } }),
      await api.post(`/boards/${board.body.documentId}/cards`, { data: { title: 'X' } }),
      await api.post('/products', { data: { name: 'X', price: 1 } }),
      await api.put(`/memberships/${t.membershipId}`, { data: { role: 'viewer' } }),
      await api.delete(`/boards/${board.body.documentId}`),
    ];
    for (const res of denied) {
      expect(res.status).toBe(403);
      expect(res.body.error.details.missingScopes).toHaveLength(1);
    }
    expect((await t.api.get(`/boards/${board.body.documentId}`)).status).toBe(200);
    expect((await api.get('/contacts')).status).toBe(200);
    expect((await api.post('/contacts', { data: { name: 'Ana' } })).status).toBe(403);
  });

  test('a token scoped to one area gets 403 on every operation of every other area, and passes on its own', async () => {
    const t = await newTenant();
    const ops = (await operations()).filter((o) => !o.public);
    const areas = [...new Set(ops.flatMap((o) => o.scopes.map(areaOf)))];
    expect(areas.length).toBeGreaterThan(8);
    const wrong: string[] = [];
    for (const area of areas) {
      const api = await scopedToken(t, [`${area}:write`]);
      for (const op of ops) {
        const own = op.scopes.every((s) => areaOf(s) === area);
        const res = await api.request({
          method: op.method.toUpperCase() as any,
          url: fill(op.path),
          payload: op.method === 'get' || op.method === 'delete' ? undefined : {},
        });
        const scopeRefusal = res.status === 403 && res.body?.error?.details?.missingScopes !== undefined;
        if (own && scopeRefusal) wrong.push(`${area}:write refused on its own ${op.method} ${op.path}`);
        if (!own && !scopeRefusal) wrong.push(`${area}:write → ${res.status} on ${op.method} ${op.path}`);
        // Its own collections answer 2xx (no path parameter, nothing to create).
        const collection =
          op.method === 'get' && !op.path.includes('{') && !OAUTH_ONLY.includes(`get ${op.path}`);
        if (own && collection && (res.status < 200 || res.status > 299))
          wrong.push(`${area}:write → ${res.status} on its own ${op.method} ${op.path}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 300_000);

  test('read scope reads but does not write; write includes read', async () => {
    const t = await newTenant();
    const reader = await scopedToken(t, ['contacts:read']);
    const writer = await scopedToken(t, ['contacts:write']);
    const created = await writer.post('/contacts', { data: { name: 'Bia' } });
    expect(created.status).toBe(201);
    expect((await writer.get(`/contacts/${created.body.documentId}`)).status).toBe(200);
    expect((await reader.get(`/contacts/${created.body.documentId}`)).status).toBe(200);
    const refused = await reader.put(`/contacts/${created.body.documentId}`, { data: { name: 'X' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ missingScopes: ['contacts:write'] });
  });

  test('a scope never widens the role: a viewer token with boards:write still cannot create a board', async () => {
    const t = await newTenant();
    const { addMember } = await import('../helpers/app.js');
    const viewer = await addMember(t, 'viewer');
    const { app } = await getApp();
    const userApi = apiClient(app, { authorization: `Bearer ${viewer.user.jwt}` });
    const token = await userApi.post('/users/generate-token', { expiration: '1d', scopes: ['boards:write'] });
    const api = apiClient(app, { authorization: `Bearer ${token.body.token}`, 'x-tenant-id': t.slug });
    const res = await api.post('/boards', { data: { name: 'X' } });
    expect(res.status).toBe(403);
    expect(res.body.error.details.missingScopes).toBeUndefined();
  });
});
