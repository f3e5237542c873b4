import { Writable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { COMPRESS_THRESHOLD_BYTES, EXPOSED_HEADERS } from '../../src/platform/http/conventions.js';
import { loggerOptions } from '../../src/platform/http/request-log.js';
import { apiClient, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { createPipeline, multipart } from '../modules/cards/factory.js';

let app: FastifyInstance;
const apps: FastifyInstance[] = [];
beforeAll(async () => {
  app = (await getApp()).app;
});
afterAll(async () => {
  for (const a of apps) await a.close();
});

async function appWith(overrides: Parameters<typeof testConfig>[0], logger?: object) {
  const { db } = await getApp();
  const a = await buildApp({ config: testConfig(overrides), db, logger });
  await a.ready();
  apps.push(a);
  return a;
}

const auth = (t: Tenant) => ({ authorization: `Bearer ${t.user.jwt}`, 'x-tenant-id': t.slug });

/** The body as the client decodes it, whatever encoding the server chose. */
function decoded(res: LightMyRequestResponse): string {
  const enc = res.headers['content-encoding'];
  if (enc === 'gzip') return gunzipSync(res.rawPayload).toString();
  if (enc === 'br') return brotliDecompressSync(res.rawPayload).toString();
  expect(enc).toBeUndefined();
  return res.body;
}

async function tenantWithContacts(n: number) {
  const t = await newTenant();
  for (let i = 0; i < n; i++) {
    const res = await t.api.post('/contacts', {
      data: {
        name: `Contato número ${i} com um nome comprido`,
        email: `c${i}@example.com`,
        city: 'São Paulo',
      },
    });
    expect(res.status).toBe(201);
  }
  return t;
}

describe('compression', () => {
  test.each(['gzip', 'br'])(
    'openapi.json and a list are sent %s-encoded when asked, and decode to the same JSON',
    async (enc) => {
      const plain = await app.inject({ url: '/api/openapi.json' });
      expect(plain.headers['content-encoding']).toBeUndefined();
      const packed = await app.inject({ url: '/api/openapi.json', headers: { 'accept-encoding': enc } });
      expect(packed.statusCode).toBe(200);
      expect(packed.headers['content-encoding']).toBe(enc);
      expect(packed.headers.vary).toMatch(/accept-encoding/i);
      expect(packed.headers['content-type']).toMatch(/^application\/json/);
      expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
      expect(JSON.parse(decoded(packed))).toEqual(plain.json());

      const t = await tenantWithContacts(12);
      const list = await app.inject({
        url: '/api/contacts',
        headers: { ...auth(t), 'accept-encoding': enc },
      });
      expect(list.statusCode).toBe(200);
      expect(list.headers['content-encoding']).toBe(enc);
      const body = JSON.parse(decoded(list));
      expect(body.data).toHaveLength(12);
      expect(body.meta.pagination.total).toBe(12);
    },
  );

  test('both offered: br is preferred; neither offered: identity', async () => {
    const both = await app.inject({
      url: '/api/openapi.json',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(both.headers['content-encoding']).toBe('br');
    const none = await app.inject({ url: '/api/openapi.json', headers: { 'accept-encoding': 'identity' } });
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.json().openapi).toBe('3.1.0');
  });

  test('tiny bodies and small error envelopes are sent as they are, still application/json', async () => {
    const t = await newTenant();
    const small = await app.inject({
      url: '/api/contacts',
      headers: { ...auth(t), 'accept-encoding': 'gzip, br' },
    });
    expect(small.statusCode).toBe(200);
    expect(small.rawPayload.length).toBeLessThan(COMPRESS_THRESHOLD_BYTES);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json().data).toEqual([]);

    const missing = await app.inject({
      url: '/api/contacts/doesnotexist000000000000',
      headers: { ...auth(t), 'accept-encoding': 'gzip, br' },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
    expect(missing.json()).toMatchObject({ data: null, error: { status: 404, name: 'NotFoundError' } });
  });

  test('a large error envelope is compressed and decodes to the envelope', async () => {
    const t = await newTenant();
    const query = Array.from({ length: 80 }, (_, i) => `unknownParameterNumber${i}=x`).join('&');
    const res = await app.inject({
      url: `/api/contacts?${query}`,
      headers: { ...auth(t), 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decoded(res))).toMatchObject({ data: null, error: { status: 400 } });
  });

  test('a compressed request body is not inflated: the JSON parser refuses it with a 4xx envelope', async () => {
    const t = await newTenant();
    const { gzipSync } = await import('node:zlib');
    const res = await app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: { ...auth(t), 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(JSON.stringify({ data: { name: 'zipped' } })),
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json().error.status).toBe(res.statusCode);
    expect((await t.api.get('/contacts')).body.meta.pagination.total).toBe(0);
  });
});

describe('ETag and If-None-Match', () => {
  test('a GET carries a weak ETag; If-None-Match answers 304 without a body, also when compressed; a write changes it', async () => {
    const t = await tenantWithContacts(2);
    const first = await app.inject({ url: '/api/contacts', headers: auth(t) });
    expect(first.statusCode).toBe(200);
    const tag = first.headers.etag as string;
    expect(tag).toMatch(/^W\/".+"$/);

    const again = await app.inject({ url: '/api/contacts', headers: { ...auth(t), 'if-none-match': tag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(tag);
    // The tag names the content, not its encoding: a gzip client revalidates the same tag.
    const zipped = await app.inject({
      url: '/api/contacts',
      headers: { ...auth(t), 'if-none-match': tag, 'accept-encoding': 'gzip' },
    });
    expect(zipped.statusCode).toBe(304);
    const zippedFull = await app.inject({
      url: '/api/contacts',
      headers: { ...auth(t), 'accept-encoding': 'gzip' },
    });
    expect(zippedFull.headers.etag).toBe(tag);

    const other = await app.inject({
      url: '/api/contacts',
      headers: { ...auth(t), 'if-none-match': 'W/"stale"' },
    });
    expect(other.statusCode).toBe(200);

    const created = await t.api.post('/contacts', { data: { name: 'Novo' } });
    expect(created.status).toBe(201);
    expect(created.headers.etag).toBeUndefined();
    const after = await app.inject({ url: '/api/contacts', headers: { ...auth(t), 'if-none-match': tag } });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(tag);
    expect(after.json().meta.pagination.total).toBe(3);
  });

  test('a write never answers 304, whatever If-None-Match it sends', async () => {
    const t = await newTenant();
    const body = { data: { name: 'Same' } };
    const one = await app.inject({ method: 'POST', url: '/api/contacts', headers: auth(t), payload: body });
    const id = one.json().documentId;
    const put = (h: Record<string, string>) =>
      app.inject({ method: 'PUT', url: `/api/contacts/${id}`, headers: { ...auth(t), ...h }, payload: body });
    const plain = await put({});
    expect(plain.statusCode).toBe(200);
    const { createHash } = await import('node:crypto');
    const wouldBe = `W/"${createHash('sha1').update(plain.rawPayload).digest('base64')}"`;
    const res = await put({ 'if-none-match': wouldBe });
    expect(res.statusCode).toBe(200);
    expect(res.json().name).toBe('Same');
  });

  test("another organization's tag does not revalidate its own different list", async () => {
    const a = await tenantWithContacts(1);
    const b = await tenantWithContacts(1);
    const tagA = (await app.inject({ url: '/api/contacts', headers: auth(a) })).headers.etag as string;
    const res = await app.inject({ url: '/api/contacts', headers: { ...auth(b), 'if-none-match': tagA } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toHaveLength(1);
    expect(res.json().data[0].email).toBe('c0@example.com');
    expect(res.headers.etag).not.toBe(tagA);
  });

  test('a streamed file download is sent whole: no body-hash ETag, no 304, decodes to the upload', async () => {
    const t = await newTenant();
    const p = await createPipeline(t.api);
    const field = await t.api.post(`/boards/${p.boardId}/fields`, {
      data: { label: 'CV', slug: 'cv', type: 'file', phase: 'lead' },
    });
    expect(field.status).toBe(201);
    const content = 'linha de um arquivo de texto\n'.repeat(200);
    const up = await app.inject({
      method: 'POST',
      url: `/api/boards/${p.boardId}/public-upload`,
      ...multipart('file', 'notes.txt', 'text/plain', Buffer.from(content)),
    });
    expect(up.statusCode).toBe(201);
    const url = `/api/boards/${p.boardId}/files/${up.json().documentId}`;
    for (const enc of ['identity', 'gzip', 'br']) {
      const res = await app.inject({
        url,
        headers: { ...auth(t), 'accept-encoding': enc, 'if-none-match': '*' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBeUndefined();
      expect(res.headers['content-disposition']).toMatch(/notes\.txt/);
      expect(decoded(res)).toBe(content);
    }
  });
});

describe('CORS', () => {
  const origin = 'https://app.example.com';

  test('off by default: no Access-Control-Allow-Origin on answers or preflights', async () => {
    const t = await newTenant();
    const res = await app.inject({ url: '/api/contacts', headers: { ...auth(t), origin } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/api/contacts',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.headers['access-control-allow-methods']).toBeUndefined();
  });

  test('CORS_ORIGINS: listed origins get preflights answered before authentication and headers exposed', async () => {
    const cors = await appWith({ CORS_ORIGINS: [origin, 'https://admin.example.com'] });
    const pre = await cors.inject({
      method: 'OPTIONS',
      url: '/api/contacts',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,x-tenant-id,idempotency-key,content-type',
      },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(origin);
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    expect(String(pre.headers['access-control-allow-methods'])).toMatch(/POST/);
    const allowed = String(pre.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    for (const h of ['authorization', 'x-tenant-id', 'idempotency-key', 'content-type'])
      expect(allowed).toContain(h);
    expect(pre.headers.vary).toMatch(/origin/i);

    const t = await newTenant(cors);
    const res = await cors.inject({ url: '/api/contacts', headers: { ...auth(t), origin } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    const exposed = String(res.headers['access-control-expose-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    for (const h of [
      'ratelimit-remaining',
      'ratelimit-reset',
      'retry-after',
      'x-request-id',
      'idempotent-replayed',
    ])
      expect(exposed).toContain(h);
    expect(exposed).toEqual(EXPOSED_HEADERS);
    // Errors carry the headers too, so a browser script can read the envelope of a 401.
    const denied = await cors.inject({ url: '/api/contacts', headers: { origin, 'x-tenant-id': t.slug } });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe(origin);

    const evil = await cors.inject({
      method: 'OPTIONS',
      url: '/api/contacts',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    const evilGet = await cors.inject({
      url: '/api/contacts',
      headers: { ...auth(t), origin: 'https://evil.example' },
    });
    expect(evilGet.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('`*` answers any origin without credentials; `*` with CORS_CREDENTIALS is refused at startup', async () => {
    const any = await appWith({ CORS_ORIGINS: ['*'] });
    const res = await any.inject({ url: '/api/health', headers: { origin: 'https://anything.example' } });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();

    expect(loadConfig({ CORS_ORIGINS: ' https://a.example/ , https://b.example' }).CORS_ORIGINS).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
    expect(loadConfig({}).CORS_ORIGINS).toEqual([]);
    expect(() => loadConfig({ CORS_ORIGINS: '*', CORS_CREDENTIALS: 'true' })).toThrow(/CORS_ORIGINS/);
    const withCreds = await appWith({ CORS_ORIGINS: [origin], CORS_CREDENTIALS: true });
    const pre = await withCreds.inject({
      method: 'OPTIONS',
      url: '/api/contacts',
      headers: { origin, 'access-control-request-method': 'GET' },
    });
    expect(pre.headers['access-control-allow-origin']).toBe(origin);
    expect(pre.headers['access-control-allow-credentials']).toBe('true');
  });
});

describe('security headers', () => {
  test('/api/docs has helmet headers and a CSP that still allows every asset the page loads', async () => {
    const base = new URL('http://localhost/api/docs/');
    const res = await app.inject({ url: base.pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/img-src 'self' data:/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).not.toMatch(/upgrade-insecure-requests/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');

    // No inline script (script-src 'self' would block it): every script and stylesheet is a same-origin file.
    const html = res.body;
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>\s*\S/);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      const url = new URL(asset, base);
      expect(url.origin).toBe('http://localhost');
      const got = await app.inject({ url: url.pathname });
      expect(got.statusCode, url.pathname).toBe(200);
      expect(got.headers['x-content-type-options']).toBe('nosniff');
      if (asset.endsWith('.js')) expect(got.headers['content-type']).toMatch(/javascript/);
      if (asset.endsWith('.css')) expect(got.headers['content-type']).toMatch(/^text\/css/);
    }
    // The initializer points Swagger UI at a same-origin document (connect-src 'self').
    const initializer = assets.find((a) => a.endsWith('swagger-initializer.js'));
    expect(initializer).toBeTruthy();
    const init = await app.inject({ url: new URL(initializer!, base).pathname });
    expect(init.body).toContain("url: resolveUrl('./json')");
    const spec = await app.inject({ url: new URL('./json', base).pathname });
    expect(spec.statusCode).toBe(200);
    expect(spec.json().openapi).toBe('3.1.0');
  });

  test('JSON answers carry nosniff but no page policy', async () => {
    const t = await newTenant();
    const res = await app.inject({ url: '/api/contacts', headers: auth(t) });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBeUndefined();
    const err = await app.inject({ url: '/api/contacts' });
    expect(err.statusCode).toBe(401);
    expect(err.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('request log', () => {
  test('one completion line per request, with tenant, organization and user, and no query string values', async () => {
    const lines: any[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        cb();
      },
    });
    const logged = await appWith({}, { level: 'info', stream });
    const t = await newTenant(logged);
    const api = apiClient(logged, auth(t));
    const secret = 'segredo.do.filtro@example.com';
    const res = await api.get('/contacts', { 'filters[email][$eq]': secret });
    expect(res.status).toBe(200);
    const requestId = res.headers['x-request-id'];

    const mine = lines.filter((l) => l.reqId === requestId);
    expect(mine).toHaveLength(1);
    const [line] = mine;
    expect(line).toMatchObject({
      msg: 'request completed',
      tenant: t.slug,
      userId: t.user.id,
      req: { method: 'GET', url: '/api/contacts', route: '/api/contacts' },
      res: { statusCode: 200 },
    });
    expect(typeof line.orgId).toBe('number');
    expect(typeof line.responseTime).toBe('number');
    const all = JSON.stringify(lines);
    expect(all).not.toContain('segredo');
    expect(all).not.toContain(encodeURIComponent(secret));

    // Refused requests are logged too: no identity before authentication, the user once it is known.
    const anon = await logged.inject({ url: '/api/contacts?filters[email][$eq]=other-secret' });
    const anonLine = lines.find((l) => l.reqId === anon.headers['x-request-id']);
    expect(anonLine).toMatchObject({ res: { statusCode: 401 }, req: { url: '/api/contacts' } });
    expect(anonLine.userId).toBeUndefined();
    const stranger = await newTenant(logged);
    const foreign = await logged.inject({
      url: '/api/contacts',
      headers: { ...auth(stranger), 'x-tenant-id': t.slug },
    });
    expect(foreign.statusCode).toBe(403);
    const foreignLine = lines.find((l) => l.reqId === foreign.headers['x-request-id']);
    expect(foreignLine).toMatchObject({ userId: stranger.user.id, res: { statusCode: 403 } });
    expect(foreignLine.tenant).toBeUndefined();
    expect(JSON.stringify(lines)).not.toContain('other-secret');
  });

  test('pino-pretty when stdout is a terminal and nothing else is configured; JSON otherwise', async () => {
    const config = loadConfig({});
    expect(loggerOptions(config, undefined, true)).toMatchObject({ transport: { target: 'pino-pretty' } });
    expect(loggerOptions(config, undefined, false)).not.toHaveProperty('transport');
    expect(loggerOptions({ ...config, CRM_LOG_FORMAT: 'json' }, undefined, true)).not.toHaveProperty(
      'transport',
    );
    expect(loggerOptions({ ...config, CRM_LOG_FORMAT: 'pretty' }, undefined, false)).toHaveProperty(
      'transport',
    );
    expect(loggerOptions(config, { level: 'warn' }, true)).not.toHaveProperty('transport');
    expect(loggerOptions({ ...config, CRM_LOG_LEVEL: 'silent' }, undefined, true)).toBe(false);
    // A dependency, not a dev dependency: `npm start` on a fresh install must find it.
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as any;
    expect(pkg.dependencies['pino-pretty']).toBeTruthy();
    await expect(import('pino-pretty')).resolves.toBeTruthy();
  });
});
