import { sql } from 'drizzle-orm';
import { describe, expect, test } from 'vitest';
import { getApp, newTenant, registerUser, unique } from '../helpers/app.js';

describe('Idempotency-Key', () => {
  test('replays the first response for the same key and body, without doing the work twice', async () => {
    const t = await newTenant();
    const u = await registerUser(t.app);
    const body = { data: { email: u.email, role: 'member' } };
    const first = await t.api.post('/memberships', body, { 'idempotency-key': 'k-1' });
    expect(first.status).toBe(201);
    const second = await t.api.post('/memberships', body, { 'idempotency-key': 'k-1' });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const list = await t.api.get('/memberships');
    expect(list.body.meta.pagination.total).toBe(2);
  });

  test('the same key with another body → 422', async () => {
    const t = await newTenant();
    const u1 = await registerUser(t.app);
    const u2 = await registerUser(t.app);
    await t.api.post(
      '/memberships',
      { data: { email: u1.email, role: 'member' } },
      { 'idempotency-key': 'k-2' },
    );
    const res = await t.api.post(
      '/memberships',
      { data: { email: u2.email, role: 'member' } },
      { 'idempotency-key': 'k-2' },
    );
    expect(res.status).toBe(422);
    expect(res.body.error.name).toBe('UnprocessableEntityError');
    expect((await t.api.get('/memberships')).body.meta.pagination.total).toBe(2);
  });

  test('a key is kept 24 h: within it the first response replays, after it the key is free again', async () => {
    const t = await newTenant();
    const u1 = await registerUser(t.app);
    const u2 = await registerUser(t.app);
    const key = unique('k-ttl-');
    const first = await t.api.post(
      '/memberships',
      { data: { email: u1.email, role: 'member' } },
      { 'idempotency-key': key },
    );
    expect(first.status).toBe(201);
    const { db } = await getApp();
    const age = (hours: number) =>
      db.system.execute(
        sql`update idempotency_keys set created_at = now() - make_interval(hours => ${hours})
          where user_id = ${t.user.id} and key = ${key}`,
      );
    await age(23);
    const replay = await t.api.post(
      '/memberships',
      { data: { email: u1.email, role: 'member' } },
      { 'idempotency-key': key },
    );
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await age(25);
    const fresh = await t.api.post(
      '/memberships',
      { data: { email: u2.email, role: 'member' } },
      { 'idempotency-key': key },
    );
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect((await t.api.get('/memberships')).body.meta.pagination.total).toBe(3);
  });

  test('keys are per user: another user with the same key is not replayed', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const ra = await a.userApi.post(
      '/organizations',
      { data: { name: 'Same key A' } },
      { 'idempotency-key': 'shared' },
    );
    const rb = await b.userApi.post(
      '/organizations',
      { data: { name: 'Same key B' } },
      { 'idempotency-key': 'shared' },
    );
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(rb.body.documentId).not.toBe(ra.body.documentId);
  });

  test('error responses are replayed too; without a key nothing is stored', async () => {
    const t = await newTenant();
    const bad = { data: { email: 'ghost@nowhere.example', role: 'member' } };
    const r1 = await t.api.post('/memberships', bad, { 'idempotency-key': 'k-3' });
    const r2 = await t.api.post('/memberships', bad, { 'idempotency-key': 'k-3' });
    expect(r1.status).toBe(404);
    expect(r2.status).toBe(404);
    expect(r2.headers['idempotent-replayed']).toBe('true');
  });
});
