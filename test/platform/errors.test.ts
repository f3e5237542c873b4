import { describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { getApp, newTenant, testConfig } from '../helpers/app.js';

describe('error envelope', () => {
  test('unknown route → 404 envelope', async () => {
    const { app } = await getApp();
    const res = await app.inject({ method: 'GET', url: '/api/no-such-thing' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      data: null,
      error: { status: 404, name: 'NotFoundError', message: expect.any(String), details: {} },
    });
  });

  test('malformed JSON → 400', async () => {
    const { app } = await getApp();
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/local',
      headers: { 'content-type': 'application/json' },
      payload: '{"identifier": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ status: 400, name: 'BadRequestError' });
  });

  test('validation errors list path and message', async () => {
    const t = await newTenant();
    const res = await t.api.post('/memberships', { data: { email: 'not-an-email', role: 'boss' } });
    expect(res.status).toBe(400);
    expect(res.body.error.name).toBe('ValidationError');
    const paths = res.body.error.details.errors.map((e: any) => e.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['email', 'role']));
    for (const e of res.body.error.details.errors) expect(e.message).toEqual(expect.any(String));
  });

  test('body too large → 413', async () => {
    const { app, config } = await getApp();
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/local',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ identifier: 'x'.repeat(config.CRM_BODY_LIMIT_BYTES + 10), password: 'y' }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatchObject({ status: 413, name: 'PayloadTooLargeError' });
  });

  test('unexpected error → 500 with the message hidden, logged with the request id', async () => {
    const { db } = await getApp();
    const lines: string[] = [];
    const stream = { write: (s: string) => lines.push(s) };
    const app = await buildApp({ config: testConfig(), db, logger: { level: 'error', stream } });
    app.get('/api/boom', { config: { auth: 'public' } }, async () => {
      throw new Error('secret internals: password=hunter2');
    });
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/api/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      data: null,
      error: { status: 500, name: 'InternalServerError', message: 'Internal Server Error', details: {} },
    });
    expect(res.body).not.toContain('hunter2');
    const reqId = res.headers['x-request-id'];
    expect(reqId).toBeTruthy();
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    expect(logged.reqId).toBe(reqId);
    expect(JSON.stringify(logged)).toContain('hunter2');
    await app.close();
  });
});
