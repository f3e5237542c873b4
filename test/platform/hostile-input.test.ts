import { connect } from 'node:net';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import { instanceSecret } from '../../src/platform/secrets/secrets.js';
import { apiClient, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';

/** Item 6 of the hardening issue: hostile input answers 4xx in the envelope, never a 500. */

const envelope = (status: number, name?: string) => ({
  data: null,
  error: {
    status,
    name: name ?? expect.any(String),
    message: expect.any(String),
    details: expect.any(Object),
  },
});

let t: Tenant;
let h: Record<string, string>;
beforeAll(async () => {
  t = await newTenant();
  h = { authorization: `Bearer ${t.user.jwt}`, 'x-tenant-id': t.slug };
});

async function send(opts: {
  method?: string;
  url: string;
  payload?: string;
  headers?: Record<string, string | undefined>;
}) {
  const { app } = await getApp();
  return app.inject({
    method: (opts.method ?? 'GET') as 'GET',
    url: opts.url,
    payload: opts.payload,
    headers: {
      ...h,
      ...(opts.payload !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
  });
}

async function board() {
  const res = await t.api.post('/boards', {
    data: {
      name: 'Hostile',
      phases: [{ name: 'Entry', fields: [{ label: 'Notes', slug: 'notes', type: 'richtext' }] }],
    },
  });
  expect(res.status).toBe(201);
  return res.body.documentId as string;
}

describe('NUL bytes and bad unicode', () => {
  test('a NUL byte in the path, the query, a header, a JSON string or a JSON key → 400', async () => {
    const b = await board();
    const cases = [
      { url: '/api/boards/%00' },
      { url: `/api/boards/${b}%00` },
      { url: '/api/boards?filters[name][$eq]=a%00b' },
      { url: '/api/boards?sort=name%00' },
      { url: '/api/boards', headers: { 'x-tenant-id': `${t.slug}\u0000` } },
      { method: 'POST', url: '/api/boards', payload: '{"data":{"name":"a\\u0000b"}}' },
      { method: 'POST', url: `/api/boards/${b}/cards`, payload: '{"data":{"fields":{"no\\u0000tes":"x"}}}' },
      { method: 'POST', url: `/api/boards/${b}/cards`, payload: '{"data":{"fields":{"notes":["\\u0000"]}}}' },
      {
        method: 'POST',
        url: '/api/auth/local',
        payload: '{"identifier":"\\u0000","password":"x"}',
        headers: {},
      },
    ];
    for (const c of cases) {
      const res = await send(c);
      expect(res.statusCode, `${c.url} ${c.payload ?? ''}`).toBe(400);
      expect(res.json()).toEqual(envelope(400));
    }
    const body = await send({ method: 'POST', url: '/api/boards', payload: '{"data":{"name":"a\\u0000b"}}' });
    expect(body.json().error.details.errors).toEqual([
      expect.objectContaining({ path: ['data', 'name'], message: 'contains a NUL character' }),
    ]);
  });

  test('an unpaired surrogate in a JSON string → 400 (it would be stored as U+FFFD, silently changed)', async () => {
    const res = await send({ method: 'POST', url: '/api/boards', payload: '{"data":{"name":"x\\ud800y"}}' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.errors[0].message).toMatch(/unpaired surrogate/);
    // A well-formed pair (an emoji) is fine.
    const ok = await send({
      method: 'POST',
      url: '/api/boards',
      payload: '{"data":{"name":"x\\ud83d\\ude00y"}}',
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().name).toBe('x😀y');
  });

  test('a NUL byte in an imported CSV row is that row’s error, not a failed import', async () => {
    const res = await send({
      method: 'POST',
      url: '/api/contacts/import',
      payload: 'name,email\na\u0000b,nul@example.com\nGood,good@example.com\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ rows: 2, created: 1, failed: 1 });
    expect(res.json().errors[0]).toMatchObject({
      row: 1,
      field: 'name',
      message: 'contains a NUL character',
    });
  });
});

describe('nesting and body framing', () => {
  test('5,000-level (and 100,000-level) nested JSON → 400, arrays and objects alike', async () => {
    for (const depth of [5000, 100_000]) {
      for (const payload of [
        `{"data":{"name":"x","fields":${'['.repeat(depth)}${']'.repeat(depth)}}}`,
        `{"data":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
      ]) {
        const res = await send({ method: 'POST', url: '/api/boards', payload });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual(envelope(400));
      }
    }
  });

  test('64 levels are still accepted by the guard (the schema decides)', async () => {
    const res = await send({
      method: 'POST',
      url: '/api/boards',
      payload: `{"data":{"name":"x","z":${'['.repeat(60)}${']'.repeat(60)}}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.errors[0].path).toEqual(['z']); // unknown key, not "nested too deeply"
  });

  test('multipart without a boundary, or truncated, → 400 on both multipart routes', async () => {
    const b = await board();
    for (const url of [`/api/boards/${b}/public-upload`, '/api/contacts/import']) {
      const noBoundary = await send({
        method: 'POST',
        url,
        payload: 'abc',
        headers: { 'content-type': 'multipart/form-data' },
      });
      expect(noBoundary.statusCode).toBe(400);
      expect(noBoundary.json().error.message).toMatch(/boundary/);
      for (const payload of [
        '--xx\r\ngarbage',
        '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\nname\r\n',
      ]) {
        const res = await send({
          method: 'POST',
          url,
          payload,
          headers: { 'content-type': 'multipart/form-data; boundary=xx' },
        });
        expect(res.statusCode, `${url} ${JSON.stringify(payload)}`).toBe(400);
        expect(res.json()).toEqual(envelope(400));
      }
    }
  });
});

describe('router errors and the query string parser', () => {
  test('bad percent-encoding → 400, a too-long path parameter or URL → 414, in the envelope with a request id', async () => {
    for (const [url, status] of [
      ['/api/boards/%zz', 400],
      ['/api/boards/%E0%A4%A', 400],
      [`/api/boards/${'a'.repeat(101)}`, 414],
      [`/api/boards?x=${'a'.repeat(9000)}`, 414],
    ] as const) {
      const res = await send({ url });
      expect(res.statusCode, url.slice(0, 40)).toBe(status);
      expect(res.json()).toEqual(envelope(status, status === 414 ? 'URITooLongError' : 'BadRequestError'));
      expect(res.headers['content-type']).toMatch(/application\/json/);
    }
  });

  test('query strings beyond the parser limits → 400 instead of silently truncated', async () => {
    for (const url of [
      `/api/boards?${'sort[]=name&'.repeat(101)}`,
      `/api/boards?${Array.from({ length: 501 }, (_, i) => `p${i}=1`).join('&')}`,
      '/api/boards?filters[a][b][c][d][e][f][g][h][i][j][k][l]=1',
    ]) {
      const res = await send({ url });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toMatch(/^Invalid query string/);
    }
  });

  test('prototype-named query keys are reported, not dropped', async () => {
    const res = await send({ url: '/api/boards?constructor=1' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.errors[0].path).toEqual(['constructor']);
  });

  test('Node’s HTTP parser errors (garbage request line, oversized headers) answer in the envelope', async () => {
    const { db } = await getApp();
    const app = await buildApp({ config: testConfig(), db });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (app.server.address() as { port: number }).port;
      const raw = (text: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => socket.write(text));
          let out = '';
          socket.on('data', (d) => {
            out += d;
          });
          socket.on('close', () => resolve(out));
          socket.on('error', reject);
        });
      const garbage = await raw('GARBAGE\r\n\r\n');
      expect(garbage).toMatch(/^HTTP\/1.1 400/);
      expect(JSON.parse(garbage.split('\r\n\r\n')[1])).toEqual(envelope(400, 'BadRequestError'));
      const huge = await raw(`GET /api/health?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(huge).toMatch(/^HTTP\/1.1 431/);
      expect(JSON.parse(huge.split('\r\n\r\n')[1])).toEqual(
        envelope(431, 'RequestHeaderFieldsTooLargeError'),
      );
    } finally {
      await app.close();
    }
  });
});

describe('unknown query parameters on single-object and user routes', () => {
  test('→ 400 naming the parameter; the same routes without it still answer', async () => {
    const b = await board();
    for (const [path, api] of [
      [`/boards/${b}`, t.api],
      ['/users/me', t.userApi],
      ['/users/tokens', t.userApi],
    ] as const) {
      const bad = await api.get(path, { foo: '1' });
      expect(bad.status, path).toBe(400);
      expect(bad.body.error.details.errors[0].path).toEqual(['foo']);
      expect((await api.get(path)).status, path).toBe(200);
    }
  });

  test('a route declaring a querystring that drops unknown keys is refused at startup', async () => {
    const { db } = await getApp();
    const app = await buildApp({ config: testConfig(), db });
    expect(() =>
      app.get(
        '/api/loose',
        { config: { auth: 'public' }, schema: { querystring: z.object({ a: z.string().optional() }) } },
        async () => ({}),
      ),
    ).toThrow(/strict/);
    await app.close();
  });
});

describe('session JWTs', () => {
  async function withSecret(build: (s: SignJWT) => SignJWT) {
    const { db } = await getApp();
    const key = new TextEncoder().encode(await instanceSecret(db, 'jwt'));
    return build(new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(String(t.user.id)))
      .setIssuer('crm')
      .sign(key);
  }
  const me = async (jwt: string) => {
    const { app } = await getApp();
    return apiClient(app, { authorization: `Bearer ${jwt}` }).get('/users/me');
  };

  test('the issued session carries exp (2 h after iat)', async () => {
    const [, payload] = t.user.jwt.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(2 * 60 * 60);
  });

  test('a correctly signed token without exp (or without iat) → 401; the same with them → 200', async () => {
    expect((await me(await withSecret((s) => s.setIssuedAt()))).status).toBe(401);
    expect((await me(await withSecret((s) => s.setExpirationTime('1h')))).status).toBe(401);
    expect((await me(await withSecret((s) => s.setIssuedAt().setExpirationTime('1h')))).status).toBe(200);
    // A far-future exp does not outlive the session length either.
    expect(
      (
        await me(
          await withSecret((s) => s.setIssuedAt(Date.now() / 1000 - 3 * 3600).setExpirationTime('10y')),
        )
      ).status,
    ).toBe(401);
  });
});

describe('rich text is sanitised on write', () => {
  const evil =
    '<p onclick="steal()">Hi <b>there</b><script>alert(1)</script><img src=x onerror=alert(2)>' +
    '<a href="javascript:alert(3)">js</a> <a href="https://example.com" target="_blank">ok</a>' +
    '<style>p{}</style><iframe src="https://evil.example"></iframe></p>';
  const clean =
    '<p>Hi <b>there</b><a>js</a> <a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">ok</a></p>';

  test('card and task descriptions, on create and update', async () => {
    const b = await board();
    const card = await t.api.post(`/boards/${b}/cards`, { data: { title: 'c', description: evil } });
    expect(card.status).toBe(201);
    expect(card.body.description).toBe(clean);
    const upd = await t.api.put(`/boards/${b}/cards/${card.body.documentId}`, {
      data: { description: '<a href=" JaVaScRiPt:x">a</a><a href="data:text/html,x">b</a>' },
    });
    expect(upd.body.description).toBe('<a>a</a><a>b</a>');
    const task = await t.api.post('/tasks', { data: { name: 'n', description: evil } });
    expect(task.status).toBe(201);
    expect(task.body.description).toBe(clean);
    const tupd = await t.api.put(`/tasks/${task.body.documentId}`, {
      data: { description: '<svg onload=x>' },
    });
    expect(tupd.body.description).toBe('');
    // Plain text survives, escaped as HTML text.
    const plain = await t.api.post('/tasks', { data: { name: 'n', description: 'a < b & c' } });
    expect(plain.body.description).toBe('a &lt; b &amp; c');
  });

  test('richtext card field values', async () => {
    const b = await board();
    const card = await t.api.post(`/boards/${b}/cards`, { data: { fields: { notes: evil } } });
    expect(card.status).toBe(201);
    const got = await t.api.get(`/boards/${b}/cards/${card.body.documentId}`);
    expect(JSON.stringify(got.body)).not.toMatch(/<script|onclick|onerror|javascript:|<iframe/);
    expect(JSON.stringify(got.body)).toContain('<b>there</b>');
  });

  test('html comments are sanitised; plain ones are kept as text; switching to html sanitises', async () => {
    const b = await board();
    const card = await t.api.post(`/boards/${b}/cards`, { data: { title: 'c' } });
    const base = `/boards/${b}/cards/${card.body.documentId}/comments`;
    const html = await t.api.post(base, { data: { content: evil, contentFormat: 'html' } });
    expect(html.status).toBe(201);
    expect(html.body.content).toBe(clean);
    const plain = await t.api.post(base, { data: { content: 'x <script>y</script>' } });
    expect(plain.body.content).toBe('x <script>y</script>');
    const switched = await t.api.put(`${base}/${plain.body.documentId}`, { data: { contentFormat: 'html' } });
    expect(switched.status).toBe(200);
    expect(switched.body.content).toBe('x');
    const empty = await t.api.post(base, { data: { content: '<script>x</script>', contentFormat: 'html' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.errors[0].path).toEqual(['content']);
  });
});

describe('a 500 logs no query string and no SQL parameters', () => {
  let app: FastifyInstance;
  const lines: string[] = [];
  beforeAll(async () => {
    const { db } = await getApp();
    app = await buildApp({
      config: testConfig(),
      db,
      logger: { level: 'info', stream: { write: (s: string) => lines.push(s) } },
    });
    const query = z.strictObject({ token: z.string() });
    app.get('/api/boom-sql', { config: { auth: 'public' }, schema: { querystring: query } }, async () => {
      // A failing statement bound to a secret-looking parameter, as the token lookup binds a token hash.
      await db.system.execute(sql`select ${'c0ffee-token-hash'}::text as h, 1 / 0 as boom`);
      return {};
    });
    await app.ready();
  });
  afterAll(() => app.close());

  test('the request URL is logged without its query, the error without its bound parameters', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/boom-sql?token=s3cr3t-query-token' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual(envelope(500, 'InternalServerError'));
    const all = lines.join('\n');
    expect(all).not.toContain('s3cr3t-query-token');
    expect(all).not.toContain('c0ffee-token-hash');
    const logged = lines.map((l) => JSON.parse(l));
    const completed = logged.find((l) => l.msg === 'request completed' && l.req?.route === '/api/boom-sql');
    expect(completed.req.url).toBe('/api/boom-sql');
    expect(completed.res.statusCode).toBe(500);
    const error = logged.find((l) => l.msg === 'unhandled error');
    expect(error.route).toBe('/api/boom-sql');
    expect(error.err.message).toContain('params: [redacted]');
    expect(error.err.message).toMatch(/division by zero/);
  });
});
