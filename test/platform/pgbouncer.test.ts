import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type Config, databaseOptions, loadConfig } from '../../src/config.js';
import { modules } from '../../src/modules.js';
import { type Database, openDatabase, preparedRows, queryRows } from '../../src/platform/db/client.js';
import { MAINTENANCE_LOCK, runMaintenance } from '../../src/platform/db/maintenance.js';
import { MIGRATION_LOCK, migrateDatabase } from '../../src/platform/db/migrate.js';
import { startJobs, type WorkerDeps } from '../../src/workers.js';
import { type Api, apiClient, testConfig, unique } from '../helpers/app.js';
import { createWhatsAppChannel, type MessagingEnv } from '../helpers/messaging.js';
import { startWhatsAppPeer, type WhatsAppPeer } from '../helpers/peers/whatsapp.js';
import { type PgBouncer, pgbouncerMissing, startPgBouncer } from '../helpers/pgbouncer.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';
import { inbound, waNumber } from '../modules/inbox/helpers.js';
import { openStream, quietFor, type SseStream } from '../modules/inbox/sse.js';

/**
 * The service behind a real PgBouncer (Debian's 1.18) in transaction pooling mode (docs/postgresql.md, "Behind a
 * connection pooler"): a database of its own, migrated through the pooler; requests, a job, LISTEN. Pools:
 * `pooled` (3 server connections), `single` and `broken` (1 each: every client shares one server connection, so
 * what the pooler mixes up is mixed up every time). CRM_JOBS_NAMESPACE is empty here: PgBouncer 1.18 refuses the
 * `options` startup parameter it travels in, and the database is this file's alone.
 */
const missing = pgbouncerMissing();
const adminUrl = process.env.DATABASE_URL ?? '';
const dbName = `crm_pgb_${process.pid}`;
const directUrl = (() => {
  if (!adminUrl) return '';
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
})();

let bouncer: PgBouncer;
let wa: WhatsAppPeer;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (missing) return;
  await admin(`drop database if exists ${dbName} with (force)`);
  await admin(`create database ${dbName}`);
  bouncer = await startPgBouncer(directUrl, { pooled: 3, single: 1, broken: 1 });
  wa = await startWhatsAppPeer();
  // Migrated through the pooler: the statements go through it, the migration lock on the direct URL.
  const db = await open('pooled', { preparedStatements: false, directUrl });
  await migrateDatabase(db, modules);
  await db.close();
}, 120_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await wa?.close();
  await bouncer?.stop();
  if (!missing) await admin(`drop database if exists ${dbName} with (force)`);
}, 60_000);

async function admin(text: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A process's database through the pooler's `alias`. */
async function open(alias: string, opts: { preparedStatements?: boolean; directUrl?: string }) {
  const db = await openDatabase({
    databaseUrl: bouncer.url(alias),
    dataDir: 'memory://',
    poolSize: 3,
    namespace: '',
    ...opts,
  });
  closers.push(() => db.close());
  return db;
}

function config(alias: string, overrides: Partial<Config> = {}) {
  return testConfig({
    DATABASE_URL: bouncer.url(alias),
    CRM_JOBS_NAMESPACE: '',
    CRM_JOBS_POLL_SECONDS: 0.5,
    CRM_OUTBOUND_ALLOWLIST: '127.0.0.1',
    CRM_WHATSAPP_API_URL: wa.url,
    ...overrides,
  });
}

/** An API process on `db`, listening on loopback (SSE needs real HTTP). */
async function apiProcess(db: Database, cfg: Config, background?: WorkerDeps) {
  const app = await buildApp({ config: cfg, db, background });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  return { app, url };
}

/** Signs up (and signs in again, as a returning user does) and creates an organization: each answer's status. */
async function signUpAndCreateOrg(app: FastifyInstance, via: FastifyInstance = app) {
  const username = unique('u');
  const email = `${username}@test.example`;
  const password = 'correct-horse-battery';
  const registered = await apiClient(app, {}).post('/auth/local/register', { username, email, password });
  const signedIn = await apiClient(via, {}).post('/auth/local', { identifier: email, password });
  const jwt = signedIn.body?.jwt ?? registered.body?.jwt;
  const slug = unique('org-');
  const org = await apiClient(via, { authorization: `Bearer ${jwt}` }).post('/organizations', {
    data: { name: `Org ${slug}`, slug },
  });
  return { registered, signedIn, org, jwt, slug };
}

function tenantApi(app: FastifyInstance, jwt: string, slug: string): Api {
  return apiClient(app, { authorization: `Bearer ${jwt}`, 'x-tenant-id': slug });
}

describe('pooler settings', () => {
  test('DATABASE_PREPARED_STATEMENTS is true or false; DATABASE_DIRECT_URL is a postgres URL and needs DATABASE_URL', () => {
    const base = { CRM_LOG_LEVEL: 'silent' };
    expect(loadConfig(base).DATABASE_PREPARED_STATEMENTS).toBe(true);
    expect(loadConfig({ ...base, DATABASE_PREPARED_STATEMENTS: 'false' }).DATABASE_PREPARED_STATEMENTS).toBe(
      false,
    );
    expect(() => loadConfig({ ...base, DATABASE_PREPARED_STATEMENTS: 'no' })).toThrow(
      /DATABASE_PREPARED_STATEMENTS/,
    );
    expect(() => loadConfig({ ...base, DATABASE_DIRECT_URL: 'postgres://db/crm' })).toThrow(
      /DATABASE_DIRECT_URL: needs DATABASE_URL/,
    );
    expect(() =>
      loadConfig({ ...base, DATABASE_URL: 'postgres://pooler/crm', DATABASE_DIRECT_URL: 'mysql://db/crm' }),
    ).toThrow(/DATABASE_DIRECT_URL: must be a postgres/);
    const both = loadConfig({
      ...base,
      DATABASE_URL: 'postgres://pooler:6432/crm',
      DATABASE_DIRECT_URL: 'postgres://db:5432/crm',
      DATABASE_PREPARED_STATEMENTS: 'false',
    });
    expect(databaseOptions(both)).toMatchObject({
      databaseUrl: 'postgres://pooler:6432/crm',
      directUrl: 'postgres://db:5432/crm',
      preparedStatements: false,
    });
  });
});

describe.skipIf(!!missing)(
  `behind PgBouncer 1.18, transaction pooling${missing ? ` (${missing})` : ''}`,
  () => {
    test('named prepared statements on: a second process on the same server connection fails (why the setting exists)', async () => {
      // Two API processes, prepared statements on (the default), sharing the pooler's one server connection.
      const [dbA, dbB] = [await open('broken', {}), await open('broken', {})];
      const a = await apiProcess(dbA, config('broken'));
      const b = await apiProcess(dbB, config('broken'));
      // A alone: its names are prepared on the server connection it believes it owns.
      const first = await signUpAndCreateOrg(a.app);
      expect([first.registered.status, first.signedIn.status, first.org.status]).toEqual([200, 200, 201]);
      // B sends the same names on the same server connection: PostgreSQL refuses to prepare them again.
      const second = await signUpAndCreateOrg(b.app);
      expect([second.registered.status, second.signedIn.status, second.org.status]).toContain(500);
      // The error behind it: a statement A prepared, then B.
      const [org] = await queryRows<{ id: number }>(dbA.system, sql`select id from organizations limit 1`);
      const probe = (db: Database) =>
        db.tenantTransaction(org.id, (tx) =>
          preparedRows(tx, sql`select count(*)::int as n from boards where organization_id = ${org.id}`),
        );
      expect(await probe(dbA)).toEqual([{ n: 0 }]);
      const error = await probe(dbB).then(
        () => undefined,
        (err: Error & { cause?: Error }) => err.cause?.message ?? err.message,
      );
      expect(error).toMatch(/^prepared statement "crm_[\w-]+" already exists$/);
    });

    test('LISTEN through the pooler: a live inbox update never arrives (why DATABASE_DIRECT_URL exists)', async () => {
      const db = await open('pooled', { preparedStatements: false });
      const { app, url } = await apiProcess(db, config('pooled'));
      const { jwt, slug, org } = await signUpAndCreateOrg(app);
      expect(org.status).toBe(201);
      const api = tenantApi(app, jwt, slug);
      const channel = await createWhatsAppChannel(api, { wa } as MessagingEnv);
      const stream = await openSse(url, jwt, slug);
      const from = waNumber();
      expect(
        (await inbound({ wa, app } as MessagingEnv, channel.documentId, [{ from, text: 'lost' }])).status,
      ).toBe(200);
      // The message is stored…
      expect((await api.get('/conversations', { q: from })).body.data).toHaveLength(1);
      // …but its NOTIFY reached the LISTEN's server connection while another client (or none) held it.
      expect(await quietFor(stream, (e) => e.event === 'message.created', 1500)).toEqual([]);
    });

    describe('DATABASE_PREPARED_STATEMENTS=false and DATABASE_DIRECT_URL', () => {
      let db: Database;
      let reader: Database;
      let app: FastifyInstance;
      let readerUrl: string;
      let background: WorkerDeps;

      beforeAll(async () => {
        const cfg = config('pooled', { DATABASE_DIRECT_URL: directUrl, DATABASE_PREPARED_STATEMENTS: false });
        db = await open('pooled', { preparedStatements: false, directUrl });
        // Jobs (pg-boss: its own locks are transaction-scoped) through the pooler.
        background = await startJobs(cfg, db, true);
        closers.push(() => background.jobs.stop());
        ({ app } = await apiProcess(db, cfg, background));
        // A second API process, on the one-connection pool: the live update crosses processes by LISTEN/NOTIFY.
        reader = await open('single', { preparedStatements: false, directUrl });
        ({ url: readerUrl } = await apiProcess(reader, config('single', { DATABASE_DIRECT_URL: directUrl })));
      }, 60_000);

      test('two processes on one server connection: sign-up, sign-in and organizations work on either', async () => {
        const [dbA, dbB] = [
          await open('broken', { preparedStatements: false }),
          await open('broken', { preparedStatements: false }),
        ];
        const a = await apiProcess(dbA, config('broken'));
        const b = await apiProcess(dbB, config('broken'));
        for (const [x, y] of [
          [a, b],
          [b, a],
          [a, a],
        ]) {
          const r = await signUpAndCreateOrg(x.app, y.app);
          expect([r.registered.status, r.signedIn.status, r.org.status]).toEqual([200, 200, 201]);
          const structure = await createPipeline(tenantApi(y.app, r.jwt, r.slug));
          expect((await tenantApi(x.app, r.jwt, r.slug).get(`/boards/${structure.boardId}`)).status).toBe(
            200,
          );
        }
      });

      test('boards, cards, contacts, a webhook delivered by the worker, a live inbox update over SSE', async () => {
        const receiver = await hookReceiver();
        const { jwt, slug, org } = await signUpAndCreateOrg(app);
        expect(org.status).toBe(201);
        const api = tenantApi(app, jwt, slug);
        const hook = await api.post('/webhook-subscriptions', {
          data: { url: `${receiver.url}/hook`, events: ['card.created', 'card.phase_changed'] },
        });
        expect(hook.status).toBe(201);

        // The board and its structure (the prepared structure query of every card request).
        const { boardId, phase } = await createPipeline(api);
        const board = await api.get(`/boards/${boardId}`);
        expect(board.status).toBe(200);
        expect(board.body.phases.map((p: { slug: string }) => p.slug)).toEqual([
          'lead',
          'qualified',
          'won',
          'lost',
        ]);
        const card = await createCard(api, boardId, { title: 'Through the pooler' });
        const moved = await api.post(`/boards/${boardId}/cards/${card.documentId}/move`, {
          phase: 'qualified',
        });
        expect(moved.status).toBe(200);
        const list = await api.get(`/boards/${boardId}/cards`);
        expect(list.status).toBe(200);
        expect(list.body.data.map((c: { documentId: string }) => c.documentId)).toEqual([card.documentId]);
        expect(JSON.stringify(list.body.data[0])).toContain(phase('qualified'));

        // The contact search.
        const contact = await api.post('/contacts', { data: { name: 'Ana Souza', email: 'ana@souza.test' } });
        expect(contact.status).toBe(201);
        const found = await api.get('/contacts', { q: 'souza' });
        expect(found.status).toBe(200);
        expect(found.body.data.map((c: { name: string }) => c.name)).toEqual(['Ana Souza']);

        // The webhook deliveries: the dispatcher woken by the events LISTEN (direct), the delivery a pg-boss job.
        await until(() => receiver.got.length >= 2, 15_000);
        expect(receiver.got.map((g) => JSON.parse(g).type)).toEqual(['card.created', 'card.phase_changed']);

        // Live inbox: the change is made on this process, the reader listens on the other.
        const channel = await createWhatsAppChannel(api, { wa } as MessagingEnv);
        const stream = await openSse(readerUrl, jwt, slug);
        const from = waNumber();
        const sent = await inbound({ wa, app } as MessagingEnv, channel.documentId, [
          { from, text: 'pooled hello' },
        ]);
        expect(sent.status).toBe(200);
        const created = await stream.next(
          (e) => e.event === 'message.created' && e.data.conversation.waId === from,
        );
        expect(created.data.message).toMatchObject({ direction: 'incoming', content: 'pooled hello' });
      });

      test('tenant settings stay in their transaction: the next client on the same server connection has none', async () => {
        const { jwt, slug } = await signUpAndCreateOrg(app);
        const other = await signUpAndCreateOrg(app);
        const [row] = await queryRows<{ id: number }>(
          db.system,
          sql`select id from organizations where slug = ${slug}`,
        );
        // One server connection behind `single`: the tenant transaction and the plain client below share it.
        const inTx = await reader.tenantTransaction(row.id, async (tx) => {
          const [r] = await queryRows<{ pid: number; role: string; org: string }>(
            tx,
            sql`select pg_backend_pid() as pid, current_user as role, current_setting('app.organization_id') as org`,
          );
          return r;
        });
        expect(inTx).toMatchObject({ role: 'crm_app', org: String(row.id) });
        const plain = new pg.Client({ connectionString: bouncer.url('single') });
        await plain.connect();
        closers.push(() => plain.end());
        const after = await plain.query(
          `select pg_backend_pid() as pid, current_user as role, coalesce(current_setting('app.organization_id', true), '') as org`,
        );
        expect(after.rows[0]).toMatchObject({ pid: inTx.pid, org: '' });
        expect(after.rows[0].role).not.toBe('crm_app');
        // And through the API, each organization sees its own rows only.
        const mine = await createPipeline(tenantApi(app, jwt, slug));
        const theirs = tenantApi(app, other.jwt, other.slug);
        expect((await theirs.get(`/boards/${mine.boardId}`)).status).toBe(404);
        expect((await theirs.get('/boards')).body.data).toEqual([]);
      });

      test('migration and maintenance take their session locks on the direct connection, and release them', async () => {
        expect(db.sessionPool).not.toBe(db.pool);
        await migrateDatabase(db, modules);
        const report = await runMaintenance(db, modules, { vacuum: true });
        expect(report?.vacuumed.length).toBeGreaterThan(0);
        const held = new pg.Client({ connectionString: directUrl });
        await held.connect();
        closers.push(() => held.end());
        const { rows } = await held.query(
          `select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = 0 and objsubid = 1
           and objid = any($1) and database = (select oid from pg_database where datname = current_database())`,
          [[MIGRATION_LOCK, MAINTENANCE_LOCK]],
        );
        expect(rows[0].n).toBe(0);
      });
    });
  },
);

async function openSse(base: string, jwt: string, slug: string): Promise<SseStream> {
  const s = await openStream(base, '/api/conversations/events', {
    authorization: `Bearer ${jwt}`,
    'x-tenant-id': slug,
  });
  expect(s.status).toBe(200);
  closers.push(async () => s.close());
  return s;
}

async function hookReceiver() {
  const got: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function until(check: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
