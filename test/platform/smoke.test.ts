import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { getApp, newTenant } from '../helpers/app.js';

describe('platform smoke', () => {
  test('health answers ok with the database', async () => {
    const { app } = await getApp();
    const res = await app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(res.json()).toEqual({ status: 'ok', db: 'ok', version });
  });

  test('ready once the app is; the probes are public', async () => {
    const { app } = await getApp();
    const res = await app.inject({ method: 'GET', url: '/api/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', db: 'ok' });
  });

  test('a fresh tenant lists its owner membership', async () => {
    const t = await newTenant();
    const res = await t.api.get('/memberships');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].role).toBe('owner');
    expect(res.body.meta.pagination).toEqual({ page: 1, pageSize: 25, pageCount: 1, total: 1 });
  });
});
