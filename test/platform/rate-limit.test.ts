import { randomInt } from 'node:crypto';
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

  // Each scenario on both counters: in process, and in Redis (REDIS_URL) when it is up.
  const backends = [
    ['memory', async () => ({})],
    ['Redis', async () => ((await redisUp()) ? { REDIS_URL: redisUrl } : null)],
  ] as const;
  // A fresh address per test and run: Redis windows outlive a run, and test files share Redis.
  const freshIp = () => `198.51.${randomInt(1, 255)}.${randomInt(1, 255)}`;
  const inject = (
    app: Awaited<ReturnType<typeof limitedApp>>,
    ip: string,
    url: string,
    headers: Record<string, string> = {},
  ) => app.inject({ method: 'GET', url, headers, remoteAddress: ip });

  describe.each(backends)('failed authentications (%s counters)', (_name, backend) => {
    test('60 anonymous 401s from an address: a valid token from it still gets 200; the anonymous requests get 429', async (ctx) => {
      const extra = await backend();
      if (!extra) return ctx.skip();
      // The default limit (the test config raises it elsewhere).
      const app = await limitedApp({ ...extra, RATE_LIMIT_AUTH_FAILURES_MAX: 60 });
      apps.push(app);
      const t = await newTenant();
      const ip = freshIp();
      const statuses = new Map<number, number>();
      for (let i = 0; i < 65; i++) {
        const res = await inject(app, ip, '/api/memberships', { 'x-tenant-id': t.slug });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      }
      // 60 anonymous 401s, then their own 429s.
      expect(Object.fromEntries(statuses)).toEqual({ 401: 60, 429: 5 });
      const anon = await inject(app, ip, '/api/users/me');
      expect(anon.statusCode).toBe(429);
      expect(anon.json().error).toMatchObject({ status: 429, name: 'TooManyRequestsError' });
      expect(Number(anon.headers['retry-after'])).toBeGreaterThan(0);
      // The office behind the same address works: session JWT and API token alike.
      const token = await apiClient(app, { authorization: `Bearer ${t.user.jwt}` }).post(
        '/users/generate-token',
        {
          expiration: '1d',
        },
      );
      expect(token.status).toBe(201);
      for (const bearer of [t.user.jwt, token.body.token]) {
        const res = await inject(app, ip, '/api/memberships', {
          authorization: `Bearer ${bearer}`,
          'x-tenant-id': t.slug,
        });
        expect(res.statusCode).toBe(200);
      }
      // Password sign-in from that address is not touched by anonymous failures either.
      const login = await app.inject({
        method: 'POST',
        url: '/api/auth/local',
        payload: { identifier: t.user.email, password: t.user.password },
        remoteAddress: ip,
      });
      expect(login.statusCode).toBe(200);
    });

    test('a flood of bad tokens gets 429 itself; valid tokens from the same address keep 200', async (ctx) => {
      const extra = await backend();
      if (!extra) return ctx.skip();
      const app = await limitedApp({ ...extra, RATE_LIMIT_AUTH_FAILURES_MAX: 5 });
      apps.push(app);
      const t = await newTenant();
      const ip = freshIp();
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const bogus = i % 2 ? `crm_pat_bogus${i}` : 'expired.session.jwt';
        statuses.push(
          (await inject(app, ip, '/api/users/me', { authorization: `Bearer ${bogus}` })).statusCode,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      const blocked = await inject(app, ip, '/api/users/me', { authorization: 'Basic bm9wZQ==' });
      expect(blocked.statusCode).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(blocked.headers['ratelimit-policy']).toMatch(/^5;w=60;comment="failed authentications"/);
      const valid = await inject(app, ip, '/api/memberships', {
        authorization: `Bearer ${t.user.jwt}`,
        'x-tenant-id': t.slug,
      });
      expect(valid.statusCode).toBe(200);
      // Anonymous requests from that address have their own bucket: still a plain 401.
      expect((await inject(app, ip, '/api/users/me')).statusCode).toBe(401);
      // Another address is unaffected.
      expect(
        (await inject(app, freshIp(), '/api/users/me', { authorization: 'Bearer nope' })).statusCode,
      ).toBe(401);
      // Requests to public routes are never counted nor refused.
      expect((await inject(app, ip, '/api/health')).statusCode).toBe(200);
    });

    test('password sign-in keeps its per-address and per-account limits', async (ctx) => {
      const extra = await backend();
      if (!extra) return ctx.skip();
      const app = await limitedApp({
        ...extra,
        RATE_LIMIT_AUTH_FAILURES_MAX: 4,
        RATE_LIMIT_ACCOUNT_FAILURES_MAX: 3,
      });
      apps.push(app);
      const victim = await newTenant();
      const other = await newTenant();
      const signIn = (ip: string, identifier: string, password: string) =>
        app.inject({
          method: 'POST',
          url: '/api/auth/local',
          payload: { identifier, password },
          remoteAddress: ip,
        });
      // Per account, from any address: 3 wrong passwords, then even the right one waits out the window.
      const wrong: number[] = [];
      for (let i = 0; i < 3; i++)
        wrong.push((await signIn(freshIp(), victim.user.email, `wrong-${i}`)).statusCode);
      expect(wrong).toEqual([400, 400, 400]);
      const locked = await signIn(freshIp(), ` ${victim.user.email.toUpperCase()} `, victim.user.password);
      expect(locked.statusCode).toBe(429);
      expect(locked.headers['ratelimit-policy']).toMatch(/failed sign-ins of this account/);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      // The account's bearers are not sign-ins: they keep working.
      const me = await inject(app, freshIp(), '/api/users/me', {
        authorization: `Bearer ${victim.user.jwt}`,
      });
      expect(me.statusCode).toBe(200);
      // Per address: 4 wrong passwords for different accounts, then that address's sign-ins wait.
      const ip = freshIp();
      for (let i = 0; i < 4; i++)
        expect((await signIn(ip, `nobody-${i}@example.com`, 'x')).statusCode).toBe(400);
      const fromIp = await signIn(ip, other.user.email, other.user.password);
      expect(fromIp.statusCode).toBe(429);
      expect(fromIp.headers['ratelimit-policy']).toMatch(/failed sign-ins from this address/);
      // ... but a valid bearer from that address passes, and the same account signs in from elsewhere.
      const bearer = await inject(app, ip, '/api/users/me', { authorization: `Bearer ${other.user.jwt}` });
      expect(bearer.statusCode).toBe(200);
      expect((await signIn(freshIp(), other.user.email, other.user.password)).statusCode).toBe(200);
    });
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
