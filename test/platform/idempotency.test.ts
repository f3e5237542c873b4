import { sql } from 'drizzle-orm';
import { describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant, registerUser, unique } from '../helpers/app.js';

describe('Idempotency-Key', () => {
  test('replays the first response for the same key and body, without doing the work twice', async () => {
    const t = await newTenant();
    const u = await registerUser(t.app);
    const body = { data: { email: u.email, role: 'member' } };
    const first = await t.api.post('/memberships', body, { 'idempotency-key': 'k-1' });
    expect(first.status).toBe(202);
    const second = await t.api.post('/memberships', body, { 'idempotency-key': 'k-1' });
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    // A second invitation would have renewed the first one (updatedAt); the replay did no work at all.
    const list = await t.api.get('/invitations');
    expect(list.body.meta.pagination.total).toBe(1);
    expect(list.body.data[0].updatedAt).toBe(first.body.updatedAt);
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
    expect((await t.api.get('/invitations')).body.meta.pagination.total).toBe(1);
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
    expect(first.status).toBe(202);
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
    expect(fresh.status).toBe(202);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect((await t.api.get('/invitations')).body.meta.pagination.total).toBe(2);
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
    const admin = await addMember(t, 'admin');
    // An admin may not invite an owner: a 403 from the service, stored and replayed.
    const bad = { data: { email: 'ghost@nowhere.example', role: 'owner' } };
    const r1 = await admin.api.post('/memberships', bad, { 'idempotency-key': 'k-3' });
    const r2 = await admin.api.post('/memberships', bad, { 'idempotency-key': 'k-3' });
    expect(r1.status).toBe(403);
    expect(r2.status).toBe(403);
    expect(r2.headers['idempotent-replayed']).toBe('true');
  });
});
