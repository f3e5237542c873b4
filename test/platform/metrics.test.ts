import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startJobs, type WorkerDeps } from '../../src/workers.js';
import { apiClient, getApp, newTenant, type Tenant, testConfig, unique } from '../helpers/app.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const bearer = { authorization: `Bearer ${TOKEN}` };

/** One sample of the Prometheus text: the value of `name` whose labels include all of `labels` (summed). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      total += Number(m[3]);
      found = true;
    }
  }
  return found ? total : Number.NaN;
}

async function scrape(app: FastifyInstance): Promise<string> {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: bearer });
  expect(res.statusCode).toBe(200);
  return res.body;
}

/** Polls until `check` holds for a scrape (the job and outbox readings are cached for a few seconds). */
async function until(read: () => Promise<string>, check: (text: string) => boolean, ms = 20_000) {
  const end = Date.now() + ms;
  let text = await read();
  while (!check(text)) {
    if (Date.now() > end) throw new Error(`metrics never matched; last scrape:\n${text.slice(0, 4000)}`);
    await new Promise((r) => setTimeout(r, 250));
    text = await read();
  }
  return text;
}

async function freePort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('GET /metrics on the API port, behind CRM_METRICS_TOKEN', () => {
  let app: FastifyInstance;
  let t: Tenant;

  beforeAll(async () => {
    const { db } = await getApp();
    app = await buildApp({ config: testConfig({ CRM_METRICS_TOKEN: TOKEN }), db });
    await app.ready();
    t = await newTenant(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  test('401 in the error envelope without the token or with a wrong one; 200 in the Prometheus text format with it', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: TOKEN },
    ]) {
      const res = await app.inject({ method: 'GET', url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toMatchObject({ status: 401, name: 'UnauthorizedError' });
      expect(res.headers['www-authenticate']).toContain('Bearer');
    }
    const res = await app.inject({ method: 'GET', url: '/metrics', headers: bearer });
    expect(res.statusCode).toBe(200);
    // Neither a token nor a port of their own: the metrics are off on the API port, and the answer says how.
    const { app: plain } = await getApp();
    const off = await plain.inject({ method: 'GET', url: '/metrics', headers: bearer });
    expect(off.statusCode).toBe(404);
    expect(off.json().error.message).toMatch(/CRM_METRICS_TOKEN.*CRM_METRICS_PORT/);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const family of [
      'crm_http_request_duration_seconds',
      'crm_http_requests_in_flight',
      'crm_db_tenant_transaction_duration_seconds',
      'crm_db_pool_max_connections',
      'crm_job_queue_jobs',
      'crm_events_outbox_oldest_age_seconds',
      'crm_webhook_deliveries_total',
      'crm_automation_runs_total',
      'crm_campaign_sends_total',
      'crm_sse_connections',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ])
      expect(res.body).toContain(`# TYPE ${family} `);
    // The pool as it is: PostgreSQL's connections by state, the embedded database's one connection.
    const { db } = await getApp();
    if (db.kind === 'postgres') {
      expect(sample(res.body, 'crm_db_pool_max_connections')).toBe(db.pool!.options.max);
      expect(sample(res.body, 'crm_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
      expect(sample(res.body, 'crm_db_pool_waiting')).toBeGreaterThanOrEqual(0);
    } else {
      expect(sample(res.body, 'crm_db_pool_max_connections')).toBe(1);
      expect(res.body).not.toContain('crm_db_pool_connections{');
    }
    // Not an API route: neither in the OpenAPI document nor under /api.
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.includes('metrics'))).toEqual([]);
  });

  test('docs/metrics.md lists every crm_ family served; the Grafana dashboard queries only served families', async () => {
    const text = await scrape(app);
    const served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const { db } = await getApp();
    // PostgreSQL's pool only (the embedded database has one connection and no pool).
    if (db.kind === 'pglite')
      for (const n of ['crm_db_pool_connections', 'crm_db_pool_waiting']) served.add(n);
    const doc = readFileSync(join(import.meta.dirname, '../../docs/metrics.md'), 'utf8');
    const crm = [...served].filter((n) => n.startsWith('crm_'));
    expect(crm.length).toBeGreaterThanOrEqual(14);
    expect(crm.filter((n) => !doc.includes(`\`${n}\``))).toEqual([]);
    const dashboard = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../docs/grafana-dashboard.json'), 'utf8'),
    );
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    const graphs = dashboard.panels.filter((p: any) => p.type !== 'row');
    const queried = new Set<string>();
    for (const panel of graphs) {
      // Grafana's variable syntax, not a template literal.
      expect(panel.datasource.uid, panel.title).toBe(['$', '{datasource}'].join(''));
      for (const target of panel.targets)
        for (const m of target.expr.matchAll(/\b((?:crm|nodejs|process)_\w+)\{/g))
          queried.add(m[1].replace(/_(bucket|count|sum)$/, ''));
    }
    expect([...queried].filter((n) => !served.has(n))).toEqual([]);
    // A panel for each crm_ family.
    expect(crm.filter((n) => !queried.has(n))).toEqual([]);
  });

  test('requests raise the histogram of their route pattern and status (never the raw URL); tenant transactions are timed', async () => {
    const { boardId } = await createPipeline(t.api);
    const route = { method: 'GET', route: '/api/boards/:boardId/cards', status: '200' };
    const before = await scrape(app);
    const count0 = sample(before, 'crm_http_request_duration_seconds_count', route) || 0;
    const tx0 = sample(before, 'crm_db_tenant_transaction_duration_seconds_count', { outcome: 'commit' });
    for (let i = 0; i < 3; i++) expect((await t.api.get(`/boards/${boardId}/cards`)).status).toBe(200);
    expect((await t.api.get('/boards/nope-not-a-board/cards')).status).toBe(404);
    const after = await scrape(app);
    expect(sample(after, 'crm_http_request_duration_seconds_count', route)).toBe(count0 + 3);
    expect(
      sample(after, 'crm_http_request_duration_seconds_count', { ...route, status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'crm_http_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(
      count0 + 3,
    );
    expect(after).not.toContain(boardId);
    expect(after).not.toContain('nope-not-a-board');
    // A URL that matches no route is one series, whatever the URL.
    await app.inject({ method: 'GET', url: `/api/${unique('nothing-')}` });
    expect(
      sample(await scrape(app), 'crm_http_request_duration_seconds_count', {
        route: 'unmatched',
        status: '404',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(after, 'crm_db_tenant_transaction_duration_seconds_count', { outcome: 'commit' }),
    ).toBeGreaterThan(tx0);
  });

  test('a job enqueued raises its queue’s waiting count; a recorded event shows in the outbox', async () => {
    // This app runs no workers: the invitation mail waits in its queue, the card's event in the outbox.
    const mailWaiting = (text: string) =>
      sample(text, 'crm_job_queue_jobs', { queue: 'mail-send', state: 'waiting' }) || 0;
    const before = mailWaiting(await scrape(app));
    const invited = await t.api.post('/memberships', {
      data: { email: `${unique('m')}@test.example`, role: 'member' },
    });
    expect(invited.status).toBe(202);
    await until(
      () => scrape(app),
      (text) => mailWaiting(text) >= before + 1,
    );
    const { boardId } = await createPipeline(t.api);
    await createCard(t.api, boardId, { title: 'Waiting to be dispatched' });
    const text = await until(
      () => scrape(app),
      (s) =>
        sample(s, 'crm_events_outbox_pending') >= 1 && sample(s, 'crm_events_outbox_oldest_age_seconds') > 0,
    );
    expect(sample(text, 'crm_metrics_collect_errors_total')).toBe(0);
  });

  test('the in-flight gauge counts a request until it is answered or its client goes', async () => {
    const url = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
    const inFlight = async () => sample(await scrape(app), 'crm_http_requests_in_flight');
    const idle = await inFlight();
    // A request whose body never finishes arriving stays in flight.
    const socket = connect(Number(url.port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /api/auth/local HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"ident`,
    );
    await until(
      () => scrape(app),
      (s) => sample(s, 'crm_http_requests_in_flight') === idle + 1,
    );
    socket.destroy();
    await until(
      () => scrape(app),
      (s) => sample(s, 'crm_http_requests_in_flight') === idle,
    );
    // An open inbox event stream: in flight, and an SSE connection.
    const sse0 = sample(await scrape(app), 'crm_sse_connections');
    const abort = new AbortController();
    const stream = await fetch(`${url.origin}/api/conversations/events`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${t.user.jwt}`, 'x-tenant-id': t.slug },
      signal: abort.signal,
    });
    expect(stream.status).toBe(200);
    let text = await scrape(app);
    expect(sample(text, 'crm_sse_connections')).toBe(sse0 + 1);
    expect(sample(text, 'crm_http_requests_in_flight')).toBe(idle + 1);
    abort.abort();
    text = await until(
      () => scrape(app),
      (s) => sample(s, 'crm_sse_connections') === sse0,
    );
    expect(sample(text, 'crm_http_requests_in_flight')).toBe(idle);
  });
});

describe('outcomes counted where the workers decide them', () => {
  let app: FastifyInstance;
  let background: WorkerDeps;
  let t: Tenant;
  let receiver: Server;
  let receiverUrl: string;

  beforeAll(async () => {
    const { db } = await getApp();
    const config = testConfig({
      CRM_METRICS_TOKEN: TOKEN,
      CRM_OUTBOUND_ALLOWLIST: '127.0.0.1',
      CRM_JOBS_POLL_SECONDS: 0.5,
    });
    // As `crm serve` with inline workers: the app serves the registry its workers count in.
    background = await startJobs(config, db, true);
    app = await buildApp({ config, db, background });
    await app.ready();
    t = await newTenant(app);
    // Answers 204 to /ok and 500 to /down.
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(req.url === '/ok' ? 204 : 500).end());
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await background?.jobs.stop();
    await new Promise((r) => receiver?.close(r));
  });

  test('a webhook delivered to a live receiver counts `delivered`, one to a failing receiver `retry`', async () => {
    const count = (text: string, outcome: string) =>
      sample(text, 'crm_webhook_deliveries_total', { outcome }) || 0;
    const before = await scrape(app);
    for (const path of ['/ok', '/down']) {
      const sub = await t.api.post('/webhook-subscriptions', {
        data: { url: `${receiverUrl}${path}`, events: ['card.created'] },
      });
      expect(sub.status).toBe(201);
    }
    const { boardId } = await createPipeline(t.api);
    await createCard(t.api, boardId, { title: 'Metrics' });
    const text = await until(
      () => scrape(app),
      (s) =>
        count(s, 'delivered') >= count(before, 'delivered') + 1 &&
        count(s, 'retry') >= count(before, 'retry') + 1,
    );
    // The workers' queues are read too; the outbox drained.
    expect(sample(text, 'crm_job_queue_jobs', { queue: 'webhooks-dispatch' })).toBeGreaterThanOrEqual(0);
    await until(
      () => scrape(app),
      (s) => sample(s, 'crm_events_outbox_oldest_age_seconds') < 60,
    );
  });
});

describe('CRM_METRICS_PORT: the metrics on a port of their own', () => {
  test('served there (token still required when set), not on the API port; closed with the app', async () => {
    const { db } = await getApp();
    const port = await freePort();
    const app = await buildApp({
      config: testConfig({ CRM_METRICS_PORT: port, CRM_METRICS_TOKEN: TOKEN }),
      db,
    });
    try {
      await app.ready();
      expect((await app.inject({ method: 'GET', url: '/metrics', headers: bearer })).statusCode).toBe(404);
      // API requests are counted in the registry the other port serves.
      await apiClient(app, {}).get('/health');
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      expect(
        (await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer nope-nope-nope-nope' } })).status,
      ).toBe(401);
      const ok = await fetch(`${base}/metrics`, { headers: bearer });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(
        sample(await ok.text(), 'crm_http_request_duration_seconds_count', {
          route: '/api/health',
          status: '200',
        }),
      ).toBe(1);
      const other = await fetch(`${base}/api/health`, { headers: bearer });
      expect(other.status).toBe(404);
      expect((await other.json()).error.name).toBe('NotFoundError');
    } finally {
      await app.close();
    }
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  test('a `crm worker` process serves its own metrics on CRM_METRICS_PORT', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [join(import.meta.dirname, '../../bin/crm.js'), 'worker'], {
      env: {
        ...process.env,
        CRM_DATA_DIR: mkdtempSync(join(tmpdir(), 'crm-metrics-worker-')),
        // Queues of its own: on a shared PostgreSQL it takes none of this test process's jobs.
        CRM_JOBS_NAMESPACE: `${process.env.CRM_JOBS_NAMESPACE ?? ''}mw`,
        CRM_METRICS_PORT: String(port),
        CRM_METRICS_TOKEN: TOKEN,
        CRM_LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await until(
        async () => out,
        (o) => o.includes(`metrics on port ${port}`) || child.exitCode !== null,
        150_000,
      );
      expect(out).toContain(`metrics on port ${port}`);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
      const text = await until(
        async () => (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: bearer })).text(),
        // Its queues, read from the database (the periodic ones each hold their next run).
        (s) => sample(s, 'crm_job_queue_jobs', { queue: 'webhooks-dispatch' }) >= 0,
      );
      for (const family of ['crm_webhook_deliveries_total', 'crm_db_tenant_transaction_duration_seconds'])
        expect(text).toContain(`# TYPE ${family} `);
      // No API in a worker: no request metrics.
      expect(text).not.toContain('crm_http_request_duration_seconds');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, out).toBe(0);
  }, 180_000);

  test('configuration: the token needs 16 characters, the port must differ from PORT', () => {
    expect(() => loadConfig({ CRM_METRICS_TOKEN: 'short' })).toThrow(/CRM_METRICS_TOKEN/);
    expect(() => loadConfig({ CRM_METRICS_PORT: '1337' })).toThrow(/CRM_METRICS_PORT: must differ from PORT/);
    expect(() => loadConfig({ CRM_METRICS_PORT: '70000' })).toThrow(/CRM_METRICS_PORT/);
    expect(loadConfig({ CRM_METRICS_PORT: '9464', CRM_METRICS_TOKEN: TOKEN })).toMatchObject({
      CRM_METRICS_PORT: 9464,
      CRM_METRICS_TOKEN: TOKEN,
    });
  });
});
