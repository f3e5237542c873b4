import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { modules } from '../../src/modules.js';
import { type Database, openDatabase, queryRows } from '../../src/platform/db/client.js';
import { migrateDatabase } from '../../src/platform/db/migrate.js';
import { queueNameIn } from '../../src/platform/jobs/jobs.js';
import { type MailJob, type MailMessage, openMail } from '../../src/platform/mail/mailer.js';
import { secretBox } from '../../src/platform/secrets/encryption.js';

export interface TestContext {
  app: FastifyInstance;
  db: Database;
  config: Config;
}

let shared: Promise<TestContext> | undefined;

// Uploads and the mail outbox of this test worker go to a temporary directory.
const dataDir = mkdtempSync(join(tmpdir(), 'crm-test-'));

export function testConfig(overrides: Partial<Config> = {}): Config {
  return loadConfig(
    { ...process.env, CRM_LOG_LEVEL: 'silent', CRM_DATA_DIR: dataDir },
    {
      RATE_LIMIT_MAX: 100_000,
      RATE_LIMIT_LOGIN_MAX: 100_000,
      RATE_LIMIT_TOKEN_MAX: 100_000,
      RATE_LIMIT_PUBLIC_MAX: 100_000,
      RATE_LIMIT_AUTH_FAILURES_MAX: 100_000,
      RATE_LIMIT_ACCOUNT_FAILURES_MAX: 100_000,
      // WhatsApp's 6 s between two messages to one person, shortened: tests write to the same number often.
      CRM_WHATSAPP_PAIR_INTERVAL_MS: 100,
      ...overrides,
    },
  );
}

/** The worker's database: in-memory PGlite, or the PostgreSQL of DATABASE_URL (migrated by global setup). */
export async function testDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  const db = await openDatabase({ databaseUrl: url, dataDir: 'memory://', poolSize: 5 });
  if (!url) await migrateDatabase(db, modules);
  return db;
}

/**
 * An app on an in-memory PGlite of its own, for tests that drop triggers or truncate tables, which the shared
 * test database must never see. Close it after the file.
 */
export async function openPrivateApp() {
  const db = await openDatabase({ dataDir: 'memory://' });
  await migrateDatabase(db, modules);
  const app = await buildApp({ config: testConfig(), db });
  await app.ready();
  return {
    db,
    app,
    async close() {
      await app.close();
      await db.close();
    },
  };
}

/** One app and database per test worker, shared by its files. */
export function getApp(): Promise<TestContext> {
  shared ??= (async () => {
    const config = testConfig();
    const db = await testDatabase();
    const app = await buildApp({ config, db });
    await app.ready();
    return { app, db, config };
  })();
  return shared;
}

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
}

export interface Api {
  get<T = any>(path: string, query?: Record<string, unknown>): Promise<Res<T>>;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<Res<T>>;
  put<T = any>(path: string, body?: unknown): Promise<Res<T>>;
  patch<T = any>(path: string, body?: unknown): Promise<Res<T>>;
  delete<T = any>(path: string): Promise<Res<T>>;
  request<T = any>(opts: InjectOptions): Promise<Res<T>>;
}

export function apiClient(app: FastifyInstance, headers: Record<string, string>): Api {
  const request = async (opts: InjectOptions) => {
    const res = await app.inject({
      ...opts,
      headers: { ...headers, ...(opts.headers as Record<string, string>) },
    });
    let body: any = res.body;
    if (String(res.headers['content-type'] ?? '').includes('json') && res.body) body = JSON.parse(res.body);
    return { status: res.statusCode, body, headers: res.headers as Record<string, unknown> };
  };
  const url = (path: string) => (path.startsWith('/api') ? path : `/api${path}`);
  return {
    request,
    get: (path, query) => request({ method: 'GET', url: url(path), query: query as any }),
    post: (path, body, h) => request({ method: 'POST', url: url(path), payload: body as any, headers: h }),
    put: (path, body) => request({ method: 'PUT', url: url(path), payload: body as any }),
    patch: (path, body) => request({ method: 'PATCH', url: url(path), payload: body as any }),
    delete: (path) => request({ method: 'DELETE', url: url(path) }),
  };
}

export const unique = (prefix = 'x') => `${prefix}${randomBytes(5).toString('hex')}`;

export interface TestUser {
  id: number;
  username: string;
  email: string;
  password: string;
  jwt: string;
}

export async function registerUser(app: FastifyInstance): Promise<TestUser> {
  const username = unique('u');
  const email = `${username}@test.example`;
  const password = 'correct-horse-battery';
  const res = await apiClient(app, {}).post('/auth/local/register', { username, email, password });
  if (res.status !== 200) throw new Error(`register failed: ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, username, email, password, jwt: res.body.jwt };
}

export interface Tenant {
  slug: string;
  user: TestUser;
  /** Session-JWT client with x-tenant-id. */
  api: Api;
  /** Same user, no tenant header. */
  userApi: Api;
  membershipId: string;
  app: FastifyInstance;
}

/** A fresh organization whose owner is a fresh user: the isolation unit of every test. */
export async function newTenant(app?: FastifyInstance): Promise<Tenant> {
  const theApp = app ?? (await getApp()).app;
  const user = await registerUser(theApp);
  const userApi = apiClient(theApp, { authorization: `Bearer ${user.jwt}` });
  const slug = unique('org-');
  const org = await userApi.post('/organizations', { data: { name: `Org ${slug}`, slug } });
  if (org.status !== 201) throw new Error(`org create failed: ${JSON.stringify(org.body)}`);
  const api = apiClient(theApp, { authorization: `Bearer ${user.jwt}`, 'x-tenant-id': slug });
  const members = await api.get('/memberships');
  return { slug, user, api, userApi, membershipId: members.body.data[0].documentId, app: theApp };
}

/**
 * Takes the newest invitation e-mail queued for `email` out of the mail queue (the mailbox of the test): its
 * link and token. The shared app runs no workers, so the message waits in the queue exactly as it would be
 * delivered; taking it keeps a shared PostgreSQL database from piling up mail for the tests that run workers.
 */
export async function invitationMail(email: string) {
  const { db, config } = await getApp();
  const [job] = await queryRows<{ data: MailJob }>(
    db.system,
    sql`delete from pgboss.job where id = (
          select id from pgboss.job where name = ${queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', 'mail-send')} and data->>'to' = ${email}
            and data->>'subject' like 'Invitation to join %' order by created_on desc limit 1)
        returning data`,
  );
  if (!job) throw new Error(`no invitation mail to ${email}`);
  return invitationLink(await openMail(job.data, () => secretBox(config, db)));
}

/** The link and token of an invitation e-mail (its body opened: invitations are queued sealed). */
export function invitationLink(mail: MailMessage) {
  const match = /(https?:\/\/\S+\/api(\/invitations\/(crm_inv_\w+)))/.exec(mail.text);
  if (!match) throw new Error(`no invitation link in: ${mail.text}`);
  return { ...mail, link: match[1], path: match[2], token: match[3] };
}

/** Adds a fresh user with a role to the tenant (invited, then accepting); returns its client and membership documentId. */
export async function addMember(tenant: Tenant, role: 'owner' | 'admin' | 'member' | 'viewer') {
  const user = await registerUser(tenant.app);
  const res = await tenant.api.post('/memberships', { data: { email: user.email, role } });
  if (res.status !== 202) throw new Error(`invite failed: ${JSON.stringify(res.body)}`);
  const { path } = await invitationMail(user.email);
  const userApi = apiClient(tenant.app, { authorization: `Bearer ${user.jwt}` });
  const accepted = await userApi.post(`${path}/accept`);
  if (accepted.status !== 200) throw new Error(`accept failed: ${JSON.stringify(accepted.body)}`);
  const api = apiClient(tenant.app, { authorization: `Bearer ${user.jwt}`, 'x-tenant-id': tenant.slug });
  return { user, api, membershipId: accepted.body.membership.documentId as string };
}
