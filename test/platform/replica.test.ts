/**
 * Reads that may lag on a real streaming replica (issue 34, docs/postgresql.md#a-read-replica): a primary and a hot
 * standby of Debian's PostgreSQL in a temporary directory (scripts/cluster/pg-pair.ts). Where a read ran is shown
 * by its data: with the standby's replay paused, a card written on the primary is missing from what the standby
 * answers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../../scripts/cluster/pg-pair.js';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { runExport } from '../../src/modules/org-lifecycle/exports.js';
import { exportFilePath } from '../../src/modules/privacy/links.js';
import { runPrivacyRequest } from '../../src/modules/privacy/worker.js';
import { type Database, queryRows } from '../../src/platform/db/client.js';
import { jobReads } from '../../src/platform/db/job-reads.js';
import { type LaggingReason, type LaggingTarget, MEASURE_EVERY_MS } from '../../src/platform/db/replica.js';
import { queueNameIn } from '../../src/platform/jobs/jobs.js';
import { type MailJob, openMail } from '../../src/platform/mail/mailer.js';
import { createMetrics } from '../../src/platform/metrics/metrics.js';
import { secretBox } from '../../src/platform/secrets/encryption.js';
import { createBackground } from '../../src/workers.js';
import {
  type Api,
  apiClient,
  invitationLink,
  newTenant,
  registerUser,
  type Tenant,
  testConfig,
} from '../helpers/app.js';
import {
  openReplicaDatabase,
  type PgPair,
  pgReplicaMissing,
  startMigratedPair,
} from '../helpers/pg-replica.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';

const missing = pgReplicaMissing();
if (missing) console.warn(missing);
const REDIS = '/usr/bin/redis-server';

describe.skipIf(missing !== null)('reads that may lag, on a streaming replica', () => {
  let pair: PgPair;
  let db: Database;
  let config: Config;
  let app: FastifyInstance;
  let a: Tenant; // the writer
  let b: { api: Api; headers: Record<string, string> }; // an admin of the same organization who writes nothing in these tests
  let c: Tenant; // another organization
  let boardA: string;
  let boardC: string;
  const seen: [LaggingTarget, LaggingReason][] = [];
  const observer = (target: LaggingTarget, reason: LaggingReason) => seen.push([target, reason]);

  /** The last routes seen since `from` (a read answered: what the observers were told). */
  const routesSince = (from: number) => seen.slice(from);
  /** The next lagging read measures the standby again. */
  const nextMeasurement = () => sleep(MEASURE_EVERY_MS + 100);

  async function reportTotal(api: Api, boardId = boardA) {
    const res = await api.get(`/boards/${boardId}/report`);
    expect(res.status).toBe(200);
    return res.body.summary.totalCards as number;
  }
  async function aggregateCount(api: Api, boardId = boardA) {
    const res = await api.get(`/boards/${boardId}/cards/aggregate`, { fn: 'count' });
    expect(res.status).toBe(200);
    return res.body.count as number;
  }
  const card = (api: Api, boardId: string, name: string) =>
    createCard(api, boardId, { value: 10, fields: { name, email: `${name}@x.io` } });

  /** A member of `t` (invited, then accepting: the invitation taken from this pair's job queue). */
  async function addMember(t: Tenant) {
    const user = await registerUser(app);
    expect((await t.api.post('/memberships', { data: { email: user.email, role: 'admin' } })).status).toBe(
      202,
    );
    const [job] = await queryRows<{ data: MailJob }>(
      db.system,
      sql`select data from pgboss.job where name = ${queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', 'mail-send')}
            and data->>'to' = ${user.email}`,
    );
    const { path } = invitationLink(await openMail(job.data, () => secretBox(config, db)));
    const userApi = apiClient(app, { authorization: `Bearer ${user.jwt}` });
    expect((await userApi.post(`${path}/accept`)).status).toBe(200);
    const headers = { authorization: `Bearer ${user.jwt}`, 'x-tenant-id': t.slug };
    return { api: apiClient(app, headers), headers };
  }

  let redis: ChildProcess | undefined;
  let redisUrl: string | undefined;

  beforeAll(async () => {
    const t0 = Date.now();
    if (existsSync(REDIS)) ({ redis, redisUrl } = await startRedis());
    const took = (what: string) => console.log(`${what}: ${Date.now() - t0} ms`);
    ({ pair, db } = await startMigratedPair(1000));
    took('pair started and migrated');
    db.replicaReads!.observers.add(observer);
    config = testConfig(redisUrl ? { REDIS_URL: redisUrl } : {});
    app = await buildApp({ config, db });
    await app.ready();
    a = await newTenant(app);
    b = await addMember(a);
    boardA = (await createPipeline(a.api)).boardId;
    for (const n of ['a1', 'a2']) await card(a.api, boardA, n);
    c = await newTenant(app);
    boardC = (await createPipeline(c.api)).boardId;
    for (const n of ['c1', 'c2', 'c3']) await card(c.api, boardC, n);
    await pair.waitForReplay();
    await nextMeasurement();
    took('seeded');
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await db?.close();
    await pair?.stop();
    if (redis?.pid && redis.exitCode === null) {
      const gone = new Promise((r) => redis!.once('exit', r));
      process.kill(redis.pid, 'SIGTERM');
      await gone;
    }
  }, 30_000);

  test('caught up: the report and the statistics read from the replica, and only the tenant’s rows', async () => {
    const from = seen.length;
    expect(await reportTotal(b.api)).toBe(2);
    expect(await aggregateCount(b.api)).toBe(2);
    expect(await reportTotal(a.api)).toBe(2); // a's writes are replayed
    expect(await reportTotal(c.api, boardC)).toBe(3);
    expect(routesSince(from)).toEqual(Array(4).fill(['replica', 'caught_up']));
    // Another organization's board is not found there either.
    expect((await b.api.get(`/boards/${boardC}/report`)).status).toBe(404);
    // RLS on the standby: the read-only tenant transaction sees its organization's rows only.
    const orgA = (
      await queryRows<{ id: number }>(db.system, sql`select id from organizations where slug = ${a.slug}`)
    )[0].id;
    const counted = await db.replicaReads!.transaction(orgA, async (tx) => {
      const [row] = await queryRows<{ n: number; readonly: string; standby: boolean }>(
        tx,
        sql`select count(*)::int as n, current_setting('transaction_read_only') as readonly, pg_is_in_recovery() as standby from cards`,
      );
      return row;
    });
    expect(counted).toEqual({ n: 2, readonly: 'on', standby: true });
  });

  test('read your writes: the writer reads the primary until the replica has replayed the write; others read the replica', async () => {
    db.replicaReads!.maxLagMs = 600_000; // the lag budget out of the way: only the write mark decides
    try {
      await pair.pauseReplay();
      await card(a.api, boardA, 'a3'); // on the primary only
      const from = seen.length;
      expect(await reportTotal(a.api)).toBe(3);
      expect(await aggregateCount(a.api)).toBe(3);
      expect(await reportTotal(b.api)).toBe(2); // the replica, which has not replayed a3
      expect(await aggregateCount(b.api)).toBe(2);
      expect(routesSince(from)).toEqual([
        ['primary', 'own_write'],
        ['primary', 'own_write'],
        ['replica', 'caught_up'],
        ['replica', 'caught_up'],
      ]);
      await pair.resumeReplay();
      await pair.waitForReplay();
      await nextMeasurement();
      const after = seen.length;
      expect(await reportTotal(a.api)).toBe(3);
      expect(await reportTotal(b.api)).toBe(3);
      expect(routesSince(after)).toEqual(Array(2).fill(['replica', 'caught_up']));
    } finally {
      db.replicaReads!.maxLagMs = 1000;
      await pair.resumeReplay();
    }
  });

  test('a replica behind by more than CRM_REPLICA_MAX_LAG_MS: the primary answers', async () => {
    try {
      await pair.pauseReplay();
      await card(a.api, boardA, 'a4');
      await sleep(1200); // past the budget, and a new measurement
      const from = seen.length;
      expect(await reportTotal(b.api)).toBe(4);
      expect(await aggregateCount(b.api)).toBe(4);
      expect(routesSince(from)).toEqual(Array(2).fill(['primary', 'behind']));
    } finally {
      await pair.resumeReplay();
    }
    await pair.waitForReplay();
    await nextMeasurement();
    const from = seen.length;
    expect(await reportTotal(b.api)).toBe(4);
    expect(routesSince(from)).toEqual([['replica', 'caught_up']]);
  });

  test('the replica stopped: the primary answers (200, right), and the replica is used again once back', async () => {
    await pair.stopReplica();
    const from = seen.length;
    expect(await reportTotal(b.api)).toBe(4);
    expect(await aggregateCount(b.api)).toBe(4);
    await nextMeasurement();
    expect(await reportTotal(b.api)).toBe(4);
    const routes = routesSince(from);
    expect(routes.every(([target]) => target === 'primary')).toBe(true);
    expect(routes.at(-1)).toEqual(['primary', 'down']);
    await pair.startReplica();
    await pair.waitForReplay();
    await nextMeasurement();
    const back = seen.length;
    expect(await reportTotal(b.api)).toBe(4);
    expect(routesSince(back)).toEqual([['replica', 'caught_up']]);
  }, 30_000);

  test('metrics: where the lagging reads went, and the lag', async () => {
    const metrics = createMetrics(db, 'replica_test');
    try {
      expect(await reportTotal(b.api)).toBe(4);
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/^crm_db_lagging_reads_total\{target="replica",reason="caught_up"\} 1$/m);
      expect(text).toMatch(/^crm_db_replica_lag_seconds \d/m);
    } finally {
      metrics.close();
    }
  });

  test('exports (jobs) read the replica once it has replayed what was committed before they began', async () => {
    // An organization of its own (the counts of the tests above stay as they are).
    const d = await newTenant(app);
    const orgD = (
      await queryRows<{ id: number }>(db.system, sql`select id from organizations where slug = ${d.slug}`)
    )[0].id;
    const created = await d.api.post('/contacts', { data: { name: 'Before Export', email: 'be@x.io' } });
    expect(created.status).toBe(201);
    const contact = created.body.documentId as string;
    const exportJobs = { schedule: async () => 'x' } as never;
    /** The person's export requested and run as the worker would; its contact.json and the routes it took. */
    async function personExport() {
      const req = await d.api.post(`/contacts/${contact}/data-export`);
      expect(req.status).toBe(202);
      const [row] = await queryRows<{ id: number }>(
        db.system,
        sql`select id from privacy_requests where document_id = ${req.body.documentId}`,
      );
      const from = seen.length;
      await runPrivacyRequest(
        { db, config, jobs: exportJobs },
        { orgId: orgD, requestId: Number(row.id), userId: d.user.id },
      );
      const done = await d.api.get(`/privacy-requests/${req.body.documentId}`);
      expect(done.body.status).toBe('done');
      const zip = unzipSync(
        new Uint8Array(readFileSync(exportFilePath(config, orgD, req.body.documentId as string))),
      );
      const json = JSON.parse(new TextDecoder().decode(zip['contact.json'])) as { name: string }[];
      return { names: json.map((c) => c.name), routes: routesSince(from) };
    }
    db.replicaReads!.maxLagMs = 600_000; // only the job's start position decides
    try {
      await pair.waitForReplay();
      await nextMeasurement();
      const caughtUp = await personExport();
      expect(caughtUp.names).toEqual(['Before Export']);
      expect(caughtUp.routes.length).toBeGreaterThan(10); // every page of every section
      expect(new Set(caughtUp.routes.map((r) => r.join()))).toEqual(new Set(['replica,caught_up']));

      // A change committed before the job began, not replayed yet: the job reads the primary, and sees it.
      await pair.pauseReplay();
      expect((await d.api.put(`/contacts/${contact}`, { data: { name: 'Renamed Before' } })).status).toBe(
        200,
      );
      await nextMeasurement();
      const behind = await personExport();
      expect(behind.names).toEqual(['Renamed Before']);
      expect(new Set(behind.routes.map((r) => r.join()))).toEqual(new Set(['primary,own_write']));

      // The organization export likewise: its tables' pages from the primary while the replica misses the change.
      const orgDoc = (await d.userApi.get('/organizations')).body.data.find(
        (o: { slug: string }) => o.slug === d.slug,
      ).documentId as string;
      const requested = await d.userApi.post(`/organizations/${orgDoc}/export`);
      expect(requested.status).toBe(202);
      const [exp] = await queryRows<{ id: number }>(
        db.system,
        sql`select id from organization_exports where document_id = ${requested.body.documentId}`,
      );
      let from = seen.length;
      await runExport({ db, config }, orgD, Number(exp.id));
      const orgRoutes = routesSince(from);
      expect(orgRoutes.length).toBeGreaterThan(10);
      expect(new Set(orgRoutes.map((r) => r.join()))).toEqual(new Set(['primary,own_write']));

      // A job's view begun before a change: the replica (it has replayed the start), without the later change.
      await pair.resumeReplay();
      await pair.waitForReplay();
      await nextMeasurement();
      const view = await jobReads(db);
      await pair.pauseReplay();
      expect((await d.api.put(`/contacts/${contact}`, { data: { name: 'Renamed After' } })).status).toBe(200);
      from = seen.length;
      const [seenByJob] = await view.tenantTransaction(orgD, (tx) =>
        queryRows<{ name: string }>(tx, sql`select name from contacts where document_id = ${contact}`),
      );
      expect(seenByJob.name).toBe('Renamed Before');
      expect(routesSince(from)).toEqual([['replica', 'caught_up']]);
    } finally {
      db.replicaReads!.maxLagMs = 1000;
      await pair.resumeReplay();
    }
    await pair.waitForReplay();
    await nextMeasurement();
  }, 60_000);

  test.skipIf(!existsSync(REDIS))(
    'two processes sharing Redis: a write through one, the same user reads the primary through the other',
    async () => {
      // A second app on a Database of its own: another process behind the same load balancer, as far as the
      // write marks go (its jobs are not started: it only reads).
      const db2 = await openReplicaDatabase(pair, 600_000);
      const config = testConfig({ REDIS_URL: redisUrl! });
      const app2 = await buildApp({ config, db: db2, background: await createBackground(config, db2) });
      const seen2: [LaggingTarget, LaggingReason][] = [];
      db2.replicaReads!.observers.add((t, r) => seen2.push([t, r]));
      try {
        await app2.ready();
        await pair.pauseReplay();
        await card(a.api, boardA, 'a5'); // through the first app
        const headers = { authorization: `Bearer ${a.user.jwt}`, 'x-tenant-id': a.slug };
        const report = await app2.inject({ method: 'GET', url: `/api/boards/${boardA}/report`, headers });
        expect(report.statusCode).toBe(200);
        expect(report.json().summary.totalCards).toBe(5);
        expect(seen2).toEqual([['primary', 'own_write']]);
        // Another user, through the second app: the replica (its lag budget is out of the way), without a5.
        expect(await reportTotal(apiClient(app2, b.headers))).toBe(4);
        expect(seen2.at(-1)).toEqual(['replica', 'caught_up']);
      } finally {
        await pair.resumeReplay();
        await app2.close();
        await db2.close();
      }
    },
    30_000,
  );
});

/** A Redis of the test's own on a free loopback port (stopped by pid in afterAll). */
async function startRedis() {
  const port = await freePort();
  const redis = spawn(
    REDIS,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      }).once('error', () => resolve(false));
    });
    if (up) break;
    if (i > 100) throw new Error('redis-server did not start');
    await sleep(100);
  }
  return { redis, redisUrl: `redis://127.0.0.1:${port}` };
}
