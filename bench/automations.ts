/**
 * Events → webhooks and automations: N card writes (PUT title) through the API with workers in process, a
 * webhook subscription and a matching automation (http_request) both pointing at a local receiver.
 * Reports the API's write throughput with the automation disabled vs enabled, and the lag from the write's
 * commit (its response) to the receiver, p50 / p95, for the webhook delivery and for the automation's request,
 * after a warm-up of 200 writes that is not measured.
 *
 *   npx tsx bench/automations.ts [N=10000] [concurrency=8]      (DATABASE_URL for PostgreSQL)
 *
 * BENCH_SPLIT=1 (PostgreSQL): the deployed shape instead — the API (`bin/crm.js serve`, CRM_WORKERS=external) and
 * one worker process (`bin/crm.js worker`) of their own, the writes over HTTP from this process; the
 * statements column is then not counted (another process's driver), the API's and the worker's CPU per write are.
 */

import { Worker } from 'node:worker_threads';
import { loadConfig } from '../src/config.js';
import {
  type BenchRequest,
  inPool,
  loadAverage,
  percentile,
  processCpuMs,
  startBenchApp,
  startSplitService,
  statementMeter,
} from './lib.js';

const N = Number(process.argv[2] ?? 10_000);
const CONCURRENCY = Number(process.argv[3] ?? 8);
const p = percentile;
const now = () => performance.timeOrigin + performance.now();

const RECEIVER = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    try {
      const e = JSON.parse(body);
      parentPort.postMessage({ key: req.url + '|' + e.data.card.documentId + '|' + e.data.card.title, at });
    } catch {}
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

async function main() {
  // The receiver: arrival time per (path, card, title), in a worker thread of its own, so its answers do not wait
  // for this process's event loop, which is busy sending the writes. Times are absolute (timeOrigin + now) in
  // both threads.
  const arrived = new Map<string, number>();
  const receiver = new Worker(RECEIVER, { eval: true });
  const target = await new Promise<string>((resolve) => {
    receiver.on('message', (m: { port?: number; key?: string; at?: number }) => {
      if (m.port) resolve(`http://127.0.0.1:${m.port}`);
      else if (m.key && m.at) arrived.set(m.key, m.at);
    });
  });

  const config = loadConfig(
    { ...process.env, CRM_LOG_LEVEL: 'silent', CRM_DATA_DIR: `/tmp/crm-bench-automations-${process.pid}` },
    // The service's default job poll (CRM_JOBS_POLL_SECONDS, 2 s) unless the environment sets one.
    { CRM_OUTBOUND_ALLOWLIST: '127.0.0.1', RATE_LIMIT_ENABLED: false },
  );
  const split = Boolean(process.env.BENCH_SPLIT && process.env.DATABASE_URL);
  let req: BenchRequest;
  let h: Record<string, string>;
  let close: () => Promise<void>;
  let pids: { api?: number; worker?: number } = {};
  if (split) {
    ({ req, h, close, pids } = await startSplitService(
      18_339,
      { CRM_OUTBOUND_ALLOWLIST: '127.0.0.1', CRM_LOG_LEVEL: 'warn' },
      `bench-auto-${process.pid}`,
    ));
  } else {
    ({ req, h, close } = await startBenchApp(config, `bench-auto-${process.pid}`));
  }
  const board = (await req('POST', '/boards', { data: { name: 'Pipeline' } }, h)).body.documentId as string;
  const cards: string[] = [];
  for (let i = 0; i < 100; i++)
    cards.push(
      (await req('POST', `/boards/${board}/cards`, { data: { title: `Deal ${i}` } }, h)).body.documentId,
    );
  await req('POST', '/webhook-subscriptions', { data: { url: `${target}/wh`, events: ['card.updated'] } }, h);
  const automation = await req(
    'POST',
    '/automations',
    {
      data: {
        name: 'Tell the receiver',
        board,
        enabled: false,
        trigger: { event: 'card.updated' },
        actions: [{ type: 'http_request', params: { url: `${target}/auto` } }],
      },
    },
    h,
  );
  if (automation.status !== 201) throw new Error(JSON.stringify(automation.body));

  /** N title changes, CONCURRENCY at a time: writes per second and each write's response time. */
  const meter = statementMeter();
  // The API's and the worker's CPU (split shape), from the first write to the last delivery.
  const processCpu = () => ({ api: processCpuMs(pids.api) ?? 0, worker: processCpuMs(pids.worker) ?? 0 });
  let cpuAtStart = processCpu();
  const writes = async (label: string, count = N) => {
    const load = loadAverage();
    meter.start();
    cpuAtStart = processCpu();
    const committed = new Map<string, number>();
    const t0 = performance.now();
    await inPool(CONCURRENCY, count, async (i) => {
      const card = cards[i % cards.length];
      const title = `${label} ${i}`;
      const res = await req('PUT', `/boards/${board}/cards/${card}`, { data: { title } }, h);
      if (res.status !== 200) throw new Error(JSON.stringify(res.body));
      committed.set(`${card}|${title}`, now());
    });
    return { perSecond: count / ((performance.now() - t0) / 1000), committed, load };
  };
  /** Waits (bounded) until every write reached the receiver on `paths`; the lags in ms per path. */
  const lags = async (committed: Map<string, number>, paths: string[]) => {
    const deadline = Date.now() + 300_000;
    const missing = () =>
      paths.reduce(
        (n, path) => n + [...committed.keys()].filter((k) => !arrived.has(`${path}|${k}`)).length,
        0,
      );
    while (missing() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    // Statements (PostgreSQL round trips, the workers' included) and this process's CPU per write, from the
    // first write to the last delivery: independent of the machine's load.
    const m = meter.stop();
    const cost = {
      ...(process.env.DATABASE_URL && !split ? { statementsPerWrite: +(m.statements / N).toFixed(1) } : {}),
      ...(split ? {} : { cpuMsPerWrite: +(m.cpuMs / N).toFixed(2) }),
      ...(split
        ? {
            apiCpuMsPerWrite: +((processCpu().api - cpuAtStart.api) / N).toFixed(2),
            workerCpuMsPerWrite: +((processCpu().worker - cpuAtStart.worker) / N).toFixed(2),
          }
        : {}),
    };
    return Object.fromEntries([
      ['cost', cost],
      ...paths.map((path) => {
        const xs = [...committed].flatMap(([k, t]) => {
          const a = arrived.get(`${path}|${k}`);
          return a === undefined ? [] : [a - t];
        });
        return [path, { delivered: xs.length, p50: Math.round(p(xs, 0.5)), p95: Math.round(p(xs, 0.95)) }];
      }),
    ]);
  };

  // Warm-up (not measured): the processes' code paths compiled and the worker listening for commits.
  const warm = await writes('warm', 200);
  await lags(warm.committed, ['/wh']);
  const off = await writes('off');
  const offLag = await lags(off.committed, ['/wh']);
  await req('POST', `/automations/${automation.body.documentId}/enable`, undefined, h);
  const on = await writes('on');
  const onLag = await lags(on.committed, ['/wh', '/auto']);
  const result = {
    backend: process.env.DATABASE_URL ? 'postgresql' : 'pglite',
    shape: split ? 'API and worker processes, writes over HTTP' : 'one process, writes through inject',
    writes: N,
    concurrency: CONCURRENCY,
    loadAverage: { automationOff: off.load, automationOn: on.load },
    writesPerSecond: { automationOff: Math.round(off.perSecond), automationOn: Math.round(on.perSecond) },
    onVsOff: `${Math.round((on.perSecond / off.perSecond) * 100)}%`,
    lagMs: { automationOff: offLag, automationOn: onLag },
  };
  console.log(JSON.stringify(result, null, 2));
  await close();
  await receiver.terminate();
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
