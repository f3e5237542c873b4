import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { afterAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { queryRows } from '../../src/platform/db/client.js';
import { pruneIdempotencyKeys } from '../../src/platform/idempotency/plugin.js';
import { sealLegacyReplays } from '../../src/platform/idempotency/seal-legacy.js';
import {
  addMember,
  apiClient,
  getApp,
  newTenant,
  registerUser,
  type Tenant,
  testConfig,
  unique,
} from '../helpers/app.js';

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
      { data: { name: unique('Same key A ') } },
      { 'idempotency-key': 'shared' },
    );
    const rb = await b.userApi.post(
      '/organizations',
      { data: { name: unique('Same key B ') } },
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

/**
 * An app on the worker's database whose requests can be stopped at a point of their life: `x-test-gate`
 * names a gate the test opens later; `before-commit` gates stop after the key is taken (preHandler),
 * `after-commit` ones after the handler's transaction committed, before the answer is stored (preSerialization).
 * `x-test-fail: after-commit` makes the answer a 500 after the commit.
 */
async function gatedApp(leaseSeconds: number) {
  const { db } = await getApp();
  const app = await buildApp({ config: testConfig({ CRM_IDEMPOTENCY_LEASE_SECONDS: leaseSeconds }), db });
  const gates = new Map<string, { stage: string; reached: () => void; opened: Promise<void> }>();
  const stop = async (req: FastifyRequest, stage: string) => {
    const g = gates.get(String(req.headers['x-test-gate']));
    if (g?.stage !== stage) return;
    g.reached();
    await g.opened;
  };
  app.addHook('preHandler', async (req) => stop(req, 'before-commit'));
  app.addHook('preSerialization', async (req, _reply, payload) => {
    await stop(req, 'after-commit');
    if (req.headers['x-test-fail'] === 'after-commit') throw new Error('test: fails after the commit');
    return payload;
  });
  await app.ready();
  const gate = (stage: 'before-commit' | 'after-commit') => {
    const id = unique('gate-');
    let reached!: () => void;
    let open!: () => void;
    const at = new Promise<void>((r) => (reached = r));
    const opened = new Promise<void>((r) => (open = r));
    gates.set(id, { stage, reached, opened });
    return { headers: { 'x-test-gate': id }, reached: at, open };
  };
  const clientOf = (t: Tenant) =>
    apiClient(app, { authorization: `Bearer ${t.user.jwt}`, 'x-tenant-id': t.slug });
  return { app, db, gate, clientOf };
}

const contactCount = async (t: Tenant) => (await t.api.get('/contacts')).body.meta.pagination.total as number;

describe('Idempotency-Key: a request whose process stalls or dies', () => {
  test('while the first request runs, a retry gets 409 with Retry-After; once it answered, the retry replays', async () => {
    const g = await gatedApp(30);
    const t = await newTenant();
    const api = g.clientOf(t);
    const key = unique('k-live-');
    const body = { data: { name: 'Live lease' } };
    const hold = g.gate('after-commit');
    const first = api.post('/contacts', body, { 'idempotency-key': key, ...hold.headers });
    await hold.reached;
    const retry = await t.api.post('/contacts', body, { 'idempotency-key': key });
    expect(retry.status).toBe(409);
    expect(retry.body.error.name).toBe('ConflictError');
    const after = Number(retry.headers['retry-after']);
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(30);
    // Same key, another body: still the 422, also while the first runs.
    const other = await t.api.post('/contacts', { data: { name: 'Other' } }, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    hold.open();
    const done = await first;
    expect(done.status).toBe(201);
    const replay = await t.api.post('/contacts', body, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(done.body);
    expect(await contactCount(t)).toBe(1);
    await g.app.close();
  });

  test('the lease is renewed while the request runs: a retry after the lease time still gets 409', async () => {
    const g = await gatedApp(1);
    const t = await newTenant();
    const key = unique('k-renew-');
    const body = { data: { name: 'Slow but alive' } };
    const hold = g.gate('before-commit');
    const first = g.clientOf(t).post('/contacts', body, { 'idempotency-key': key, ...hold.headers });
    await hold.reached;
    await new Promise((r) => setTimeout(r, 2500));
    const retry = await t.api.post('/contacts', body, { 'idempotency-key': key });
    expect(retry.status).toBe(409);
    hold.open();
    expect((await first).status).toBe(201);
    expect(await contactCount(t)).toBe(1);
    await g.app.close();
  });

  test('a stalled request whose lease expired is taken over: the retry runs, the stalled one cannot commit', async () => {
    const g = await gatedApp(30);
    const t = await newTenant();
    const key = unique('k-fence-');
    const body = { data: { name: 'Fenced' } };
    const hold = g.gate('before-commit');
    const stalled = g.clientOf(t).post('/contacts', body, { 'idempotency-key': key, ...hold.headers });
    await hold.reached;
    // As if its process had stopped renewing (a long pause): the lease runs out.
    await g.db.system.execute(
      sql`update idempotency_keys set locked_until = now() - interval '1 second'
        where user_id = ${t.user.id} and key = ${key}`,
    );
    const retry = await t.api.post('/contacts', body, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    hold.open();
    const late = await stalled;
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/took over/);
    expect(await contactCount(t)).toBe(1);
    const again = await t.api.post('/contacts', body, { 'idempotency-key': key });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.documentId).toBe(retry.body.documentId);
    await g.app.close();
  });

  test('a 500 after the write committed keeps the key: the retry replays what the write produced', async () => {
    const g = await gatedApp(30);
    const t = await newTenant();
    const key = unique('k-500-');
    const body = { data: { name: 'Committed then failed' } };
    const failed = await g
      .clientOf(t)
      .post('/contacts', body, { 'idempotency-key': key, 'x-test-fail': 'after-commit' });
    expect(failed.status).toBe(500);
    const retry = await t.api.post('/contacts', body, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.name).toBe('Committed then failed');
    const list = await t.api.get('/contacts');
    expect(list.body.meta.pagination.total).toBe(1);
    expect(retry.body.documentId).toBe(list.body.data[0].documentId);
    await g.app.close();
  });
  test('a user-level write (POST /organizations) marks its key too: a 500 after its commit replays', async () => {
    const g = await gatedApp(30);
    const u = await registerUser(g.app);
    const api = apiClient(g.app, { authorization: `Bearer ${u.jwt}` });
    const key = unique('k-org-');
    const body = { data: { name: unique('Org after commit ') } };
    const failed = await api.post('/organizations', body, {
      'idempotency-key': key,
      'x-test-fail': 'after-commit',
    });
    expect(failed.status).toBe(500);
    const retry = await api.post('/organizations', body, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const orgs = await api.get('/organizations');
    expect(orgs.body.data.map((o: { documentId: string }) => o.documentId)).toEqual([retry.body.documentId]);
    await g.app.close();
  });
});

describe('Idempotency-Key: storage', () => {
  test('a tenant transaction cannot read or change stored responses; the commit function needs the lease', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const key = unique('k-iso-');
    const stored = await b.api.post('/contacts', { data: { name: 'B secret' } }, { 'idempotency-key': key });
    expect(stored.status).toBe(201);
    const { db } = await getApp();
    const [{ id: orgA }] = await queryRows<{ id: number }>(
      db.system,
      sql`select id from organizations where slug = ${a.slug}`,
    );
    const inA = <T>(q: SQL) => db.tenantTransaction(orgA, (tx) => queryRows<T>(tx, q));
    const sqlState = (p: Promise<unknown>) =>
      p.then(
        () => 'no error',
        (err) => (err.cause ?? err).code,
      );
    expect(await sqlState(inA(sql`select response_body from idempotency_keys`))).toBe('42501');
    expect(await sqlState(inA(sql`update idempotency_keys set status_code = 200`))).toBe('42501');
    expect(await sqlState(inA(sql`delete from idempotency_keys`))).toBe('42501');

    // A key of B in progress, held under lease token `held`: only that token marks it.
    const running = unique('k-iso-run-');
    const held = crypto.randomUUID();
    await db.system.execute(
      sql`insert into idempotency_keys (user_id, key, request_hash, lease_token, locked_until)
        values (${b.user.id}, ${running}, 'h', ${held}::uuid, now() + interval '30 seconds')`,
    );
    // pg_current_xact_id() makes the transaction one that wrote (the function ignores read-only ones).
    const commitAs = (token: string) =>
      inA<{ ok: boolean }>(
        sql`select pg_current_xact_id() is not null as wrote,
          crm_idempotency_commit(${b.user.id}, ${running}, ${token}::uuid, '{"forged":true}'::jsonb) as ok`,
      );
    const state = async () =>
      (
        await queryRows<{ committed: boolean }>(
          db.system,
          sql`select committed from idempotency_keys where user_id = ${b.user.id} and key = ${running}`,
        )
      )[0].committed;
    expect((await commitAs(crypto.randomUUID()))[0].ok).toBe(false);
    expect(await state()).toBe(false);
    expect((await commitAs(held))[0].ok).toBe(true);
    expect(await state()).toBe(true);
    // B's answered key still replays its stored response.
    const replay = await b.api.post('/contacts', { data: { name: 'B secret' } }, { 'idempotency-key': key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(stored.body);
  });

  test('keys past their 24 h are pruned periodically, fresh ones kept', async () => {
    const t = await newTenant();
    const [old, fresh] = [unique('k-old-'), unique('k-fresh-')];
    await t.api.post('/contacts', { data: { name: 'Old' } }, { 'idempotency-key': old });
    await t.api.post('/contacts', { data: { name: 'Fresh' } }, { 'idempotency-key': fresh });
    const { db } = await getApp();
    await db.system.execute(
      sql`update idempotency_keys set created_at = now() - interval '25 hours'
        where user_id = ${t.user.id} and key = ${old}`,
    );
    await pruneIdempotencyKeys(db.system);
    const rows = await queryRows<{ key: string }>(
      db.system,
      sql`select key from idempotency_keys where user_id = ${t.user.id} order by key`,
    );
    expect(rows.map((r) => r.key)).toEqual([fresh]);
  });
});

/** A server process; resolves its URL once it printed its listening line, and waits for lines it prints. */
function spawnServer(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const waitFor = (re: RegExp, ms = 180_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not seen ${re}: ${out} ${err}`)), ms);
      const check = () => {
        const m = out.match(re);
        if (m) {
          clearTimeout(timer);
          resolve(m);
        }
      };
      child.stdout.on('data', check);
      child.once('exit', () => reject(new Error(`exited: ${out} ${err}`)));
      check();
    });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { child, waitFor, exited, url: waitFor(/listening on (http:\/\/\S+)/).then((m) => m[1]) };
}

const spawned: ChildProcess[] = [];
const tempDirs: string[] = [];
afterAll(() => {
  for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

async function http(base: string, method: string, path: string, body?: unknown, headers = {}) {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

describe('Idempotency-Key: the API process is killed with SIGKILL mid-request', () => {
  test('retries on a restarted `crm serve` replay the committed write or run the uncommitted one, once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'crm-idem-kill-'));
    tempDirs.push(dataDir);
    const env = {
      CRM_DATA_DIR: dataDir,
      CRM_LOG_LEVEL: 'silent',
      CRM_IDEMPOTENCY_LEASE_SECONDS: '2',
      CRM_WORKERS: 'external',
      PORT: '0',
    };
    const root = join(import.meta.dirname, '../..');
    const first = spawnServer(
      ['--import', 'tsx', join(root, 'test/platform/fixtures/hanging-server.ts')],
      env,
    );
    const a = await first.url;

    const username = unique('kill');
    const reg = await http(a, 'POST', '/auth/local/register', {
      username,
      email: `${username}@test.example`,
      password: 'correct-horse-battery',
    });
    expect(reg.status).toBe(200);
    const auth = { authorization: `Bearer ${reg.body.jwt}` };
    const slug = unique('org-kill-');
    expect((await http(a, 'POST', '/organizations', { data: { name: slug, slug } }, auth)).status).toBe(201);
    const tenant = { ...auth, 'x-tenant-id': slug };

    const committed = { key: unique('k-after-'), body: { data: { name: 'Killed after commit' } } };
    const uncommitted = { key: unique('k-before-'), body: { data: { name: 'Killed before commit' } } };
    const post = (base: string, c: typeof committed, extra: Record<string, string> = {}) =>
      http(base, 'POST', '/contacts', c.body, { ...tenant, 'idempotency-key': c.key, ...extra });
    // Both requests stop in the process: one after its write committed, one before anything was written.
    const lost = [
      post(a, committed, { 'x-test-hang': 'after-commit' }).catch(() => null),
      post(a, uncommitted, { 'x-test-hang': 'before-commit' }).catch(() => null),
    ];
    await first.waitFor(new RegExp(`hanging ${committed.key}`));
    await first.waitFor(new RegExp(`hanging ${uncommitted.key}`));

    // While their process lives (and renews their leases, also past the lease time), retries get 409.
    for (const c of [committed, uncommitted]) {
      const busy = await post(a, c);
      expect(busy.status).toBe(409);
      expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    await new Promise((r) => setTimeout(r, 3000));
    expect((await post(a, committed)).status).toBe(409);

    first.child.kill('SIGKILL');
    await first.exited;
    await Promise.all(lost);
    const killedAt = Date.now();

    // The real `crm serve` on the same database (PGlite: the dead process's lock is stale and taken over).
    const second = spawnServer([join(root, 'bin/crm.js'), 'serve'], env);
    const b = await second.url;
    await new Promise((r) => setTimeout(r, Math.max(0, killedAt + 2500 - Date.now())));

    // Committed before the kill: replayed, as the route answers (201, the contact), not written again.
    const replayed = await post(b, committed);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.name).toBe('Killed after commit');
    // Nothing committed before the kill: the retry takes the key over and runs, once.
    const ran = await post(b, uncommitted);
    expect(ran.status).toBe(201);
    expect(ran.headers.get('idempotent-replayed')).toBeNull();
    const ranAgain = await post(b, uncommitted);
    expect(ranAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(ranAgain.body.documentId).toBe(ran.body.documentId);
    // The same key with another body is still refused.
    const other = await http(
      b,
      'POST',
      '/contacts',
      { data: { name: 'Other' } },
      {
        ...tenant,
        'idempotency-key': committed.key,
      },
    );
    expect(other.status).toBe(422);

    const list = await http(b, 'GET', '/contacts', undefined, tenant);
    expect(list.body.meta.pagination.total).toBe(2);
    const byName = new Map(
      list.body.data.map((c: { name: string; documentId: string }) => [c.name, c.documentId]),
    );
    expect(byName.get('Killed after commit')).toBe(replayed.body.documentId);
    expect(byName.get('Killed before commit')).toBe(ran.body.documentId);

    second.child.kill('SIGTERM');
    await second.exited;
  }, 420_000);
});

describe('secrets shown once', () => {
  test('a new API token replays the same token, and its replay record is sealed', async () => {
    const t = await newTenant();
    const key = unique('k-token-');
    const first = await t.userApi.post(
      '/users/generate-token',
      { expiration: '1d' },
      { 'idempotency-key': key },
    );
    const second = await t.userApi.post(
      '/users/generate-token',
      { expiration: '1d' },
      { 'idempotency-key': key },
    );
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    expect((await t.userApi.get('/users/tokens')).body.data).toHaveLength(1);
    const { db } = await getApp();
    const rows = await queryRows<{ response: string; provisional: string | null }>(
      db.system,
      sql`select response_body::text as response, provisional_body::text as provisional
          from idempotency_keys where user_id = ${t.user.id} and key = ${key}`,
    );
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0].response)).toEqual({ $sealed: expect.stringMatching(/^v1\./) });
    expect(rows[0].response).not.toContain(first.body.token);
    expect(rows[0].provisional ?? '').not.toContain(first.body.token);
  });

  test('the start after an upgrade seals the replay records 0.1.0 kept in clear; a retry still replays the same answer', async () => {
    const t = await newTenant();
    const key = unique('k-legacy-');
    const body = { data: { url: 'https://hooks.example.com/legacy', events: ['card.created'] } };
    const first = await t.api.post('/webhook-subscriptions', body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const { db, config } = await getApp();
    // As 0.1.0 stored it: the answer itself, in clear.
    await db.system.execute(
      sql`update idempotency_keys set response_body = ${JSON.stringify(first.body)}::jsonb,
            provisional_body = ${JSON.stringify(first.body)}::jsonb
          where user_id = ${t.user.id} and key = ${key}`,
    );
    expect(await sealLegacyReplays(config, db)).toBeGreaterThanOrEqual(1);
    const [row] = await queryRows<{ response: string; provisional: string }>(
      db.system,
      sql`select response_body::text as response, provisional_body::text as provisional
          from idempotency_keys where user_id = ${t.user.id} and key = ${key}`,
    );
    expect(JSON.parse(row.response)).toEqual({ $sealed: expect.stringMatching(/^v1\./) });
    expect(`${row.response}${row.provisional}`).not.toContain(first.body.secret);
    const again = await t.api.post('/webhook-subscriptions', body, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const [none] = await queryRows<{ n: number }>(
      db.system,
      sql`select count(*)::int as n from idempotency_keys where user_id = ${t.user.id} and key = ${key}
            and not (response_body ? '$sealed' and provisional_body ? '$sealed')`,
    );
    expect(none.n).toBe(0);
  });

  test('a sealed record opens only for its own user and key (copied onto another key it is refused)', async () => {
    const t = await newTenant();
    const [a, b] = [unique('k-a-'), unique('k-b-')];
    const body = { data: { url: 'https://hooks.example.com/x', events: ['card.created'] } };
    const first = await t.api.post('/webhook-subscriptions', body, { 'idempotency-key': a });
    expect(first.status).toBe(201);
    const { db } = await getApp();
    // Another key of the same user, made to look answered with a's record: it must not open (bound to its key),
    // and the refusal is a 422 naming the key, never a 500.
    await db.system.execute(
      sql`insert into idempotency_keys (user_id, key, request_hash, status_code, response_body)
          select user_id, ${b}, request_hash, status_code, response_body from idempotency_keys
          where user_id = ${t.user.id} and key = ${a}`,
    );
    const copied = await t.api.post('/webhook-subscriptions', body, { 'idempotency-key': b });
    expect(copied.status).toBe(422);
    expect(copied.body.error.details).toMatchObject({ idempotencyKey: b });
    expect(JSON.stringify(copied.body)).not.toContain(first.body.secret);
  });
});
