/**
 * Lead ads: N leads (default 1,000) arrive as signed leadgen webhooks through the local Graph-style peer, on the
 * embedded database (or DATABASE_URL), workers in process. Reports leads per second and the time from each
 * lead's webhook to its card (its delivery's processed_at, the clock at the card transaction's last statement, −
 * the moment its webhook was sent): p50, p95, p99, max; and checks that every lead became exactly one card.
 *
 *   npx tsx bench/lead-ads.ts [N] [webhooks sent at once (default 20)] [leads per webhook (default 1)]
 *
 * BENCH_SPLIT=1 (PostgreSQL): the deployed shape instead — the API (`bin/crm.js serve`, CRM_WORKERS=external) and
 * one worker process (`bin/crm.js worker`) of their own, the webhooks over HTTP from this process (which also
 * serves the Graph peer), started before the burst; statements are then not counted, CPU per lead is the API and
 * worker processes' (from /proc; in one process it is the bench process's, the Graph peer and the sending included).
 * The database's CPU per lead is its server processes' (PostgreSQL on this machine, from /proc) in both shapes.
 */

import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.js';
import { type Database, queryRows } from '../src/platform/db/client.js';
import { type LeadAdsPeer, type PeerLead, startLeadAdsPeer } from '../test/helpers/peers/lead-ads.js';
import {
  type BenchRequest,
  databaseCpuMeter,
  inPool,
  loadAverage,
  percentile,
  startBenchApp,
  startSplitService,
  statementMeter,
} from './lib.js';

const N = Number(process.argv[2] ?? 1000);
const CONCURRENCY = Number(process.argv[3] ?? 20);
const PER_HOOK = Number(process.argv[4] ?? 1);
const p = percentile;

/** The service under test: in this process, or (split) its own API and worker processes. */
interface LeadsService {
  db: Database;
  req: BenchRequest;
  h: Record<string, string>;
  close: () => Promise<void>;
  /**
   * Split: the API and worker processes' CPU (the bench's own, sending and serving the Graph peer, left out).
   */
  serviceCpuMs?: () => number;
}

async function startService(peer: LeadAdsPeer, slug: string, split: boolean): Promise<LeadsService> {
  const config = loadConfig(
    { ...process.env, CRM_LOG_LEVEL: 'silent', CRM_DATA_DIR: `/tmp/crm-bench-leads-${process.pid}` },
    {
      CRM_LEAD_ADS_API_URL: peer.url,
      CRM_LEAD_ADS_OAUTH_URL: peer.oauthUrl,
      CRM_LEAD_ADS_APP_ID: peer.appId,
      CRM_LEAD_ADS_APP_SECRET: peer.appSecret,
      CRM_JOBS_POLL_SECONDS: 0.5,
      RATE_LIMIT_ENABLED: false,
    },
  );
  if (!split) return startBenchApp(config, slug);
  const { db, req, h, close, cpuMs } = await startSplitService(
    18_340,
    {
      CRM_LEAD_ADS_API_URL: peer.url,
      CRM_LEAD_ADS_OAUTH_URL: peer.oauthUrl,
      CRM_LEAD_ADS_APP_ID: peer.appId,
      CRM_LEAD_ADS_APP_SECRET: peer.appSecret,
      CRM_JOBS_POLL_SECONDS: '0.5',
      CRM_LOG_LEVEL: 'warn',
    },
    slug,
  );
  return { db, req, h, close, serviceCpuMs: cpuMs };
}

/** Connects through the OAuth flow, routes the form to a board whose entry phase has name and e-mail. */
async function connectLeadForm(peer: LeadAdsPeer, req: BenchRequest, h: Record<string, string>) {
  const userId = peer.addUser([{ id: `page${process.pid}`, forms: [{ id: `form${process.pid}` }] }]);
  const start = await req(
    'POST',
    '/lead-ads/oauth/start',
    { data: { redirectUri: 'https://app.test/cb' } },
    h,
  );
  const { code, state } = peer.authorize(start.body.authorizationUrl, userId);
  const integration = await req('POST', '/lead-ads/oauth/complete', { data: { code, state } }, h);
  const board = await req(
    'POST',
    '/boards',
    {
      data: {
        name: 'Leads',
        phases: [
          {
            name: 'New',
            slug: 'new',
            fields: [
              { label: 'Name', slug: 'name', type: 'text', required: true },
              { label: 'Email', slug: 'email', type: 'email' },
            ],
          },
          { name: 'Won', slug: 'won' },
        ],
      },
    },
    h,
  );
  const route = await req(
    'POST',
    '/lead-form-routes',
    {
      data: {
        name: 'Bench form',
        leadIntegrationDocumentId: integration.body.documentId,
        targetBoardDocumentId: board.body.documentId,
        leadFormId: `form${process.pid}`,
        fieldMapping: {
          mappings: [
            { source: 'full_name', target: 'name' },
            { source: 'email', target: 'email' },
          ],
        },
      },
    },
    h,
  );
  if (route.status !== 201) throw new Error(`route: ${JSON.stringify(route.body)}`);
}

/** N leads the peer holds for the form, PER_HOOK to a webhook. */
function addLeads(peer: LeadAdsPeer): PeerLead[][] {
  const leads = Array.from({ length: N }, (_, i) =>
    peer.addLead(`page${process.pid}`, `form${process.pid}`, {
      full_name: `Lead ${i}`,
      email: `lead${i}@bench.test`,
      phone_number: `+5511${String(900000000 + i)}`,
    }),
  );
  return Array.from({ length: Math.ceil(N / PER_HOOK) }, (_, i) =>
    leads.slice(i * PER_HOOK, (i + 1) * PER_HOOK),
  );
}

/** Waits for every card (bounded: 10 minutes); the polls made, whose statements the meter counted too. */
async function waitForCards(db: Database, orgId: number) {
  let done = 0;
  let polls = 0;
  for (let i = 0; i < 1200 && done < N; i++, polls++) {
    await new Promise((r) => setTimeout(r, 500));
    [{ n: done }] = await queryRows<{ n: number }>(
      db.system,
      sql`select count(*)::int as n from lead_deliveries where organization_id = ${orgId} and status in ('succeeded', 'failed')`,
    );
  }
  return polls;
}

/** The burst: every webhook sent, CONCURRENCY at a time, until every card is there; metered and timed. */
async function sendLeads(peer: LeadAdsPeer, service: LeadsService, orgId: number, hooks: PeerLead[][]) {
  const { db, req, serviceCpuMs } = service;
  const sentAt = new Map<string, number>();
  const load = loadAverage();
  const meter = statementMeter();
  const dbMeter = databaseCpuMeter(db);
  await dbMeter.start();
  const serviceCpu0 = serviceCpuMs?.() ?? 0;
  meter.start();
  const t0 = Date.now();
  await inPool(CONCURRENCY, hooks.length, async (i) => {
    const batch = hooks[i];
    const hook = peer.leadgenWebhook(batch);
    const now = Date.now();
    for (const l of batch) sentAt.set(l.id, now);
    const res = await req('POST', '/webhooks/lead-ads', hook.body, hook.headers);
    if (res.status !== 200) throw new Error(`webhook: ${res.status} ${JSON.stringify(res.body)}`);
  });
  const sentMs = Date.now() - t0;
  const polls = await waitForCards(db, orgId);
  const totalMs = Date.now() - t0;
  // Statements (PostgreSQL round trips: webhooks, queue, workers; less this loop's polls) and this process's CPU
  // per lead: independent of the machine's load.
  const m = meter.stop();
  const dbCpuMs = await dbMeter.stop();
  const serviceCpu = (serviceCpuMs?.() ?? 0) - serviceCpu0;
  return { sentAt, load, sentMs, totalMs, polls, m, dbCpuMs, serviceCpu };
}

/** The lead cards, the failed deliveries and each card's time from its webhook. */
async function readCards(db: Database, orgId: number, sentAt: Map<string, number>) {
  // Every card counts (a duplicate would have no delivery of its own).
  const rows = await queryRows<{ leadgen_id: string; processed_at: Date | null }>(
    db.system,
    sql`select c.tracking->>'leadgen_id' as leadgen_id, d.processed_at from cards c
        left join lead_deliveries d on d.organization_id = c.organization_id and d.card_id = c.id
        where c.organization_id = ${orgId} and c.creation_source = 'lead_ads'`,
  );
  const [failed] = await queryRows<{ n: number }>(
    db.system,
    sql`select count(*)::int as n from lead_deliveries where organization_id = ${orgId} and status = 'failed'`,
  );
  const latencies = rows.flatMap((r) =>
    r.processed_at ? [new Date(r.processed_at).getTime() - (sentAt.get(r.leadgen_id) ?? 0)] : [],
  );
  return { rows, failed, latencies };
}

function printResult(
  kind: Database['kind'],
  split: boolean,
  burst: Awaited<ReturnType<typeof sendLeads>>,
  cards: Awaited<ReturnType<typeof readCards>>,
) {
  const { load, m, polls, serviceCpu, dbCpuMs, sentMs, totalMs } = burst;
  const { rows, failed, latencies } = cards;
  const result = {
    backend: kind,
    leads: N,
    webhooksAtOnce: CONCURRENCY,
    leadsPerWebhook: PER_HOOK,
    loadAverage: load,
    shape: split ? 'API and worker processes, webhooks over HTTP' : 'one process, webhooks through inject',
    ...(kind === 'postgres' && !split ? { statementsPerLead: +((m.statements - polls) / N).toFixed(1) } : {}),
    cpuMsPerLead: +((split ? serviceCpu : m.cpuMs) / N).toFixed(2),
    ...(dbCpuMs === null ? {} : { databaseCpuMsPerLead: +(dbCpuMs / N).toFixed(2) }),
    cards: rows.length,
    distinctLeads: new Set(rows.map((r) => r.leadgen_id)).size,
    failed: failed.n,
    webhooksSentInMs: sentMs,
    allCardsInMs: totalMs,
    leadsPerSecond: Math.round((N / totalMs) * 1000),
    webhookToCardMs: {
      p50: p(latencies, 0.5),
      p95: p(latencies, 0.95),
      p99: p(latencies, 0.99),
      max: Math.max(...latencies),
    },
  };
  console.log(JSON.stringify(result, null, 2));
}

async function main() {
  const peer = await startLeadAdsPeer();
  const slug = `bench-leads-${process.pid}`;
  const split = Boolean(process.env.BENCH_SPLIT && process.env.DATABASE_URL);
  const service = await startService(peer, slug, split);
  const [{ id: orgId }] = await queryRows<{ id: number }>(
    service.db.system,
    sql`select id from organizations where slug = ${slug}`,
  );
  await connectLeadForm(peer, service.req, service.h);
  const hooks = addLeads(peer);
  const burst = await sendLeads(peer, service, orgId, hooks);
  const cards = await readCards(service.db, orgId, burst.sentAt);
  printResult(service.db.kind, split, burst, cards);
  await service.close();
  await peer.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
