import { Redis } from 'ioredis';
import { afterAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { apiClient, getApp, newTenant, testConfig, unique } from '../helpers/app.js';

async function limitedApp(overrides: Parameters<typeof testConfig>[0]) {
  const { db } = await getApp();
  const app = await buildApp({ config: testConfig(overrides), db });
  await app.ready();
  return app;
}

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
async function redisUp() {
  const r = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

describe('rate limiting', () => {
  const apps: Awaited<ReturnType<typeof limitedApp>>[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });

  test('per token: the N+1th request → 429 with Retry-After and RateLimit headers, other tokens unaffected', async () => {
    const app = await limitedApp({ RATE_LIMIT_MAX: 3 });
    apps.push(app);
    const a = await newTenant();
    const b = await newTenant();
    const apiA = apiClient(app, { authorization: `Bearer ${a.user.jwt}`, 'x-tenant-id': a.slug });
    const apiB = apiClient(app, { authorization: `Bearer ${b.user.jwt}`, 'x-tenant-id': b.slug });
    for (let i = 0; i < 3; i++) expect((await apiA.get('/memberships')).status).toBe(200);
    const limited = await apiA.get('/memberships');
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ status: 429, name: 'TooManyRequestsError' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect((await apiB.get('/memberships')).status).toBe(200);
  });

  test('login has a stricter bucket keyed by IP', async () => {
    const app = await limitedApp({ RATE_LIMIT_LOGIN_MAX: 2 });
    apps.push(app);
    const anon = apiClient(app, {});
    for (let i = 0; i < 2; i++)
      expect((await anon.post('/auth/local', { identifier: 'x', password: 'y' })).status).toBe(400);
    const res = await anon.post('/auth/local', { identifier: 'x', password: 'y' });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
  });

  test('token generation has a stricter bucket', async () => {
    const app = await limitedApp({ RATE_LIMIT_TOKEN_MAX: 1 });
    apps.push(app);
    const t = await newTenant();
    const api = apiClient(app, { authorization: `Bearer ${t.user.jwt}` });
    expect((await api.post('/users/generate-token', { expiration: '1d' })).status).toBe(201);
    expect((await api.post('/users/generate-token', { expiration: '1d' })).status).toBe(429);
    expect((await api.get('/users/me')).status).toBe(200);
  });

  test('the bucket is the resolved user: changing the case or spacing of the header does not give a fresh one', async () => {
    const app = await limitedApp({ RATE_LIMIT_TOKEN_MAX: 2 });
    apps.push(app);
    const t = await newTenant();
    const spellings = [
      `Bearer ${t.user.jwt}`,
      `bearer ${t.user.jwt}`,
      `BEARER    ${t.user.jwt}  `,
      `Bearer\t${t.user.jwt}`,
    ];
    const statuses: number[] = [];
    for (const authorization of spellings)
      statuses.push(
        (await apiClient(app, { authorization }).post('/users/generate-token', { expiration: '1d' })).status,
      );
    expect(statuses).toEqual([201, 201, 429, 429]);
  });

  test('failed authentications are counted per IP: bogus tokens and wrong passwords, then 429 before any lookup', async () => {
    const app = await limitedApp({ RATE_LIMIT_AUTH_FAILURES_MAX: 5 });
    apps.push(app);
    const t = await newTenant();
    const ip = '203.0.113.7';
    const from = (headers: Record<string, string>) => ({ headers, remoteAddress: ip });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({
        method: 'GET',
        url: '/api/memberships',
        ...from({ authorization: `Bearer crm_pat_bogus${i}`, 'x-tenant-id': t.slug }),
      });
      statuses.push(res.statusCode);
    }
    for (let i = 0; i < 2; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/local',
        payload: { identifier: t.user.email, password: `wrong-${i}` },
        remoteAddress: ip,
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 400, 400]);
    const blocked = await app.inject({
      method: 'GET',
      url: '/api/users/me',
      ...from({ authorization: 'Bearer nope' }),
    });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toMatchObject({ status: 429, name: 'TooManyRequestsError' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // The right password from the blocked address waits too; another address is unaffected.
    const login = await app.inject({
      method: 'POST',
      url: '/api/auth/local',
      payload: { identifier: t.user.email, password: t.user.password },
      remoteAddress: ip,
    });
    expect(login.statusCode).toBe(429);
    const other = await app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: { authorization: `Bearer ${t.user.jwt}` },
      remoteAddress: '203.0.113.8',
    });
    expect(other.statusCode).toBe(200);
    // Requests without credentials (the public form, health) are not blocked.
    const health = await app.inject({ method: 'GET', url: '/api/health', remoteAddress: ip });
    expect(health.statusCode).toBe(200);
  });

  test('with REDIS_URL the counters live in Redis and are shared by processes', async (ctx) => {
    if (!(await redisUp())) ctx.skip();
    const overrides = { RATE_LIMIT_MAX: 2, REDIS_URL: redisUrl };
    const one = await limitedApp(overrides);
    const two = await limitedApp(overrides);
    apps.push(one, two);
    const t = await newTenant();
    // Counters are keyed by user id, which an in-memory test database hands out again on every run.
    const r = new Redis(redisUrl);
    const stale = await r.keys(`crm-rl:*u:${t.user.id}`);
    if (stale.length) await r.del(...stale);
    r.disconnect();
    const headers = { authorization: `Bearer ${t.user.jwt}`, 'x-tenant-id': t.slug, 'x-test': unique() };
    expect((await apiClient(one, headers).get('/memberships')).status).toBe(200);
    expect((await apiClient(two, headers).get('/memberships')).status).toBe(200);
    expect((await apiClient(one, headers).get('/memberships')).status).toBe(429);
  });
});
