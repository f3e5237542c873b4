import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import type { Config } from '../../../src/config.js';
import { type Database, queryRows } from '../../../src/platform/db/client.js';
import { startJobs, type WorkerDeps } from '../../../src/workers.js';
import { type Api, apiClient, getApp, newTenant, type Tenant, testConfig } from '../../helpers/app.js';
import { type LeadAdsPeer, startLeadAdsPeer } from '../../helpers/peers/lead-ads.js';
import { createPipeline } from '../cards/factory.js';

export const VERIFY_TOKEN = 'lead-ads-verify-me';

/** An app whose lead ads provider is a local peer, optionally running the workers. */
export interface LeadAdsEnv {
  app: FastifyInstance;
  db: Database;
  config: Config;
  peer: LeadAdsPeer;
  background?: WorkerDeps;
  /** The public webhook, signed by the peer. */
  post(hook: { body: string; headers: Record<string, string> }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startLeadAds(
  opts: { workers?: boolean; config?: Partial<Config> } = {},
): Promise<LeadAdsEnv> {
  const peer = await startLeadAdsPeer();
  const { db } = await getApp();
  const config = testConfig({
    CRM_LEAD_ADS_API_URL: peer.url,
    CRM_LEAD_ADS_OAUTH_URL: peer.oauthUrl,
    CRM_LEAD_ADS_APP_ID: peer.appId,
    CRM_LEAD_ADS_APP_SECRET: peer.appSecret,
    CRM_LEAD_ADS_VERIFY_TOKEN: VERIFY_TOKEN,
    CRM_PROVIDER_TIMEOUT_MS: 3000,
    CRM_JOBS_POLL_SECONDS: 0.5,
    ...opts.config,
  });
  const background = opts.workers ? await startJobs(config, db, true) : undefined;
  const app = await buildApp({ config, db, background });
  await app.ready();
  const anon = apiClient(app, {});
  return {
    app,
    db,
    config,
    peer,
    background,
    async post(hook) {
      const res = await anon.request({
        method: 'POST',
        url: '/api/webhooks/lead-ads',
        payload: hook.body,
        headers: hook.headers,
      });
      return { status: res.status, body: res.body };
    },
    async close() {
      await app.close();
      await background?.jobs.stop();
      await peer.close();
    },
  };
}

let pageSeq = 0;
const uniquePage = () => `${Date.now() % 1_000_000}${process.pid % 1000}${++pageSeq}`;

export interface Connected {
  tenant: Tenant;
  api: Api;
  userId: string;
  pageId: string;
  formId: string;
  otherFormId: string;
  integration: any;
  board: Awaited<ReturnType<typeof createPipeline>>;
}

/** A tenant on the env's app with a provider user (one page, two forms) connected through the OAuth flow. */
export async function connectTenant(env: LeadAdsEnv): Promise<Connected> {
  const tenant = await newTenant(env.app);
  const pageId = `p${uniquePage()}`;
  const formId = `f${uniquePage()}`;
  const otherFormId = `f${uniquePage()}`;
  const userId = env.peer.addUser([
    { id: pageId, name: 'Acme Page', forms: [{ id: formId, name: 'Spring form' }, { id: otherFormId }] },
  ]);
  const integration = await oauth(env, tenant.api, userId);
  const board = await createPipeline(tenant.api);
  return { tenant, api: tenant.api, userId, pageId, formId, otherFormId, integration, board };
}

export async function oauth(env: LeadAdsEnv, api: Api, userId: string, integration?: string) {
  const start = await api.post('/lead-ads/oauth/start', {
    data: {
      redirectUri: 'https://app.example.com/lead-ads/callback',
      ...(integration ? { integration } : {}),
    },
  });
  if (start.status !== 200) throw new Error(`oauth start: ${JSON.stringify(start.body)}`);
  const { code, state } = env.peer.authorize(start.body.authorizationUrl, userId);
  const done = await api.post('/lead-ads/oauth/complete', { data: { code, state } });
  if (done.status !== 200) throw new Error(`oauth complete: ${JSON.stringify(done.body)}`);
  return done.body;
}

export const standardMapping = {
  mappings: [
    { source: 'full_name', target: 'name' },
    { source: 'email', target: 'email' },
    { source: 'company', target: 'title' },
  ],
};

export async function createRoute(c: Connected, extra: Record<string, unknown> = {}) {
  const res = await c.api.post('/lead-form-routes', {
    data: {
      name: `Route ${Math.random().toString(36).slice(2, 7)}`,
      leadIntegrationDocumentId: c.integration.documentId,
      targetBoardDocumentId: c.board.boardId,
      leadFormId: c.formId,
      fieldMapping: standardMapping,
      ...extra,
    },
  });
  if (res.status !== 201) throw new Error(`route create: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Polls the route's deliveries until `done` holds (bounded: `seconds`). */
export async function waitDeliveries(
  api: Api,
  routeId: string,
  done: (rows: any[]) => boolean,
  seconds = 50,
  pageSize = 100,
) {
  let rows: any[] = [];
  const until = Date.now() + seconds * 1000;
  // Embedded, every query shares the one connection with the workers: poll gently.
  while (Date.now() < until) {
    rows = [];
    for (let page = 1; page <= 20; page++) {
      const res = await api.get(`/lead-form-routes/${routeId}/deliveries`, {
        'pagination[page]': page,
        'pagination[pageSize]': pageSize,
      });
      rows.push(...res.body.data);
      if (res.body.data.length < pageSize) break;
    }
    if (done(rows)) return rows;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`deliveries did not settle: ${JSON.stringify(rows.slice(0, 3))}`);
}

export async function orgIdOf(db: Database, slug: string) {
  const [row] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${slug}`,
  );
  return Number(row.id);
}
