import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { buildApp } from '../src/app.js';
import type { Database } from '../src/platform/db/client.js';
import { planReplay, type ReplayPlan, recorder, replayer, type Statement } from './capture.js';
import { type Endpoint, endpoints, headers, loadEndpoint, type Request } from './endpoints.js';
import {
  backendName,
  benchConfig,
  machineInfo,
  numberFlag,
  openBenchDatabase,
  parseFlags,
  processCpuMs,
  readMeta,
  removeCreatedCards,
  resultsDir,
  type SeedMeta,
  startServiceProcess,
  stopService,
} from './lib.js';

const flags = parseFlags(process.argv.slice(2));
const duration = numberFlag(flags, 'duration', 10);
const warmup = numberFlag(flags, 'warmup', 2);
const runs = Math.max(1, numberFlag(flags, 'runs', 1));
const connectionList = String(flags.connections ?? '10,50')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const only = typeof flags.only === 'string' ? new Set(flags.only.split(',')) : null;
const port = numberFlag(flags, 'port', 18_337);
const withRaw = !flags['no-raw'];
const withExplain = !flags['no-explain'];
/** Capture the SQL and EXPLAIN ANALYZE it; no load. */
const explainOnly = !!flags['explain-only'];

const log = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

// ---- results

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  /** Service only (Linux): CPU time of the service process per request, ms — what Node itself costs. */
  cpuMs?: number;
  /** Medians only: the lowest and highest req/s of the runs. */
  rpsRange?: [number, number];
}
interface Row {
  endpoint: string;
  connections: number;
  service?: Measure;
  raw?: Measure;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? Number.NaN
    : s.length % 2
      ? s[(s.length - 1) / 2]
      : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : Number.NaN;

// ---- capture + EXPLAIN (service stopped, database open here)

interface Captured {
  plan: ReplayPlan;
  status: number;
  explains: { sql: string; params: unknown[]; ms: number; plan: string }[];
}

async function capture(db: Database, meta: SeedMeta, eps: Endpoint[]): Promise<Map<string, Captured>> {
  const config = { ...benchConfig(), RATE_LIMIT_ENABLED: false, CRM_LOG_LEVEL: 'silent' as const };
  const app = await buildApp({ config, db, logger: false });
  await app.ready();
  const rec = recorder(db);
  const out = new Map<string, Captured>();
  try {
    for (const ep of eps) {
      const inject = (r: Request) =>
        app.inject({
          method: r.method,
          url: r.path,
          headers: headers(meta),
          payload: r.body ? JSON.stringify(r.body) : undefined,
        });
      await inject(ep.request()); // warm: board structure, prepared plans
      const r = ep.request();
      rec.start();
      const res = await inject(r);
      const statements = rec.stop();
      if (res.statusCode >= 300)
        log(`${ep.name}: ${r.method} ${r.path} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
      const plan = planReplay(statements, `${r.path} ${JSON.stringify(r.body ?? '')}`);
      const explains = ep.read && withExplain && res.statusCode < 300 ? await explainAll(db, statements) : [];
      out.set(ep.name, { plan, status: res.statusCode, explains });
      log(`${ep.name}: ${res.statusCode}, ${statements.length} statements captured`);
    }
  } finally {
    rec.uninstall();
    await app.close();
  }
  return out;
}

/** Whether each statement ran inside the request's tenant transaction (role crm_app, tenant set). */
function inTransaction(statements: Statement[]): boolean[] {
  let open = false;
  return statements.map((s) => {
    if (/^\s*begin/i.test(s.text)) open = true;
    else if (/^\s*(commit|rollback)/i.test(s.text)) open = false;
    return s.tx > 0 || open;
  });
}

/** EXPLAIN ANALYZE of every SELECT the request ran, as the service ran it (in its transaction: role crm_app, tenant set). */
async function explainAll(db: Database, statements: Statement[]) {
  const inTx = inTransaction(statements);
  const setup = statements.filter((s) => /set_config\(/.test(s.text));
  const out: Captured['explains'] = [];
  for (const [i, st] of statements.entries()) {
    if (!/^\s*(select|with)\b/i.test(st.text) || /set_config\(/.test(st.text)) continue;
    const text = `explain (analyze, buffers, format text) ${st.text}`;
    const pre = inTx[i] ? setup : [];
    let lines: Record<string, unknown>[] = [];
    try {
      if (db.kind === 'postgres') {
        const client = await (db.pool as pg.Pool).connect();
        try {
          await client.query('begin');
          for (const s of pre) await client.query({ text: s.text, values: s.values });
          lines = (await client.query({ text, values: st.values })).rows;
        } finally {
          await client.query('rollback').catch(() => {});
          client.release();
        }
      } else {
        await (db.pglite as PGlite).transaction(async (tx) => {
          for (const s of pre) await tx.query(s.text, s.values);
          lines = (await tx.query<Record<string, unknown>>(text, st.values)).rows;
          await tx.rollback();
        });
      }
    } catch (err) {
      log(`explain failed: ${(err as Error).message}`);
      continue;
    }
    out.push({
      sql: st.text,
      params: st.values,
      ms: Math.round(st.ms * 100) / 100,
      plan: lines.map((l) => Object.values(l)[0]).join('\n'),
    });
  }
  return out;
}

// ---- raw floor

async function rawFloor(db: Database, plan: ReplayPlan, connections: number): Promise<Measure> {
  const replay = replayer(db);
  const loop = async (until: number, lat: number[] | null, errs: { n: number }) => {
    while (performance.now() < until) {
      const t = performance.now();
      try {
        await replay(plan);
      } catch (err) {
        errs.n++;
        if (errs.n === 1) log(`raw replay error: ${(err as Error).message}`);
      }
      lat?.push(performance.now() - t);
    }
  };
  const errs = { n: 0 };
  if (warmup > 0) {
    const until = performance.now() + warmup * 1000;
    await Promise.all(Array.from({ length: connections }, () => loop(until, null, { n: 0 })));
  }
  const lat: number[] = [];
  const start = performance.now();
  const until = start + duration * 1000;
  await Promise.all(Array.from({ length: connections }, () => loop(until, lat, errs)));
  const elapsed = (performance.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  if (errs.n > 0) log(`raw floor: ${errs.n} of ${lat.length} replays failed`);
  return {
    rps: lat.length / elapsed,
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    errors: errs.n,
    requests: lat.length,
  };
}

// ---- the service

/**
 * Waits until the service has worked off what the last load left queued (Node keeps serving requests whose
 * client went away): /api/health also needs a pool connection, so a fast answer means the pool is free.
 */
async function drain() {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const t = performance.now();
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.ok && performance.now() - t < 50) return;
    } catch {}
    await sleep(250);
  }
  log('the service did not drain in 180 s');
}

const startService = () => startServiceProcess(port);

async function loadTest(
  meta: SeedMeta,
  ep: Endpoint,
  connections: number,
  seconds: number,
  pid?: number,
): Promise<Measure> {
  const cpuBefore = processCpuMs(pid);
  const result = await loadEndpoint(port, meta, ep, connections, seconds);
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    requests: result.requests.total,
    cpuMs:
      cpuBefore === undefined || result.requests.total === 0
        ? undefined
        : (processCpuMs(pid)! - cpuBefore) / result.requests.total,
  };
}

// ---- report

const fmt = (n: number | undefined, d = 0) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(d));

/**
 * The plan of an endpoint in a few words: the top node of its most expensive SELECT and the first scan under it
 * (e.g. `Limit → Index Scan using cards_org_board_created_idx`), from the captured EXPLAIN ANALYZE.
 */
function topNodes(captured: Map<string, Captured>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, c] of captured) {
    const timed = c.explains.map((x) => ({
      x,
      t: Number(/actual time=[\d.]+\.\.([\d.]+)/.exec(x.plan)?.[1] ?? 0),
    }));
    const worst = timed.sort((a, b) => b.t - a.t)[0];
    if (!worst) continue;
    const lines = worst.x.plan.split('\n');
    const node = (l: string) => l.replace(/^[\s>-]*/, '').replace(/\s*\(.*$/, '');
    const scan = lines.find((l) => /Scan/.test(l) && !/^\s*(Buffers|Index Cond|Filter|Recheck)/.test(l));
    out.set(
      name,
      `${node(lines[0])}${scan && scan !== lines[0] ? ` → ${node(scan)}` : ''} (${worst.t.toFixed(1)} ms)`,
    );
  }
  return out;
}

function table(rows: Row[], eps: Endpoint[], plans: Map<string, string> = new Map()): string {
  const floor = new Map(
    rows.filter((r) => r.endpoint === 'health').map((r) => [r.connections, r.service?.rps]),
  );
  const lines = [
    '| Endpoint | Conns | Service req/s | p50 ms | p99 ms | Errors | Service CPU ms/req | ÷ health | Raw req/s | Raw p50 ms | Raw p99 ms | Service ÷ raw | Plan (slowest statement) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  // Medians of several runs: each req/s followed by the runs' range.
  const range = (m: Measure | undefined) =>
    m?.rpsRange
      ? ` (${fmt(m.rpsRange[0], m.rps < 10 ? 1 : 0)}–${fmt(m.rpsRange[1], m.rps < 10 ? 1 : 0)})`
      : '';
  for (const r of rows) {
    const label = eps.find((e) => e.name === r.endpoint)?.label ?? r.endpoint;
    const s = r.service;
    const raw = r.raw;
    const h = floor.get(r.connections);
    lines.push(
      `| ${label} | ${r.connections} | ${fmt(s?.rps, s && s.rps < 10 ? 1 : 0)}${range(s)} | ${fmt(s?.p50, 1)} | ${fmt(s?.p99, 1)} | ${s?.errors ?? '–'} | ${fmt(s?.cpuMs, 2)} | ` +
        `${s && h ? `${((100 * s.rps) / h).toFixed(1)}%` : '–'} | ${fmt(raw?.rps, raw && raw.rps < 10 ? 1 : 0)}${range(raw)} | ${fmt(raw?.p50, 1)} | ${fmt(raw?.p99, 1)} | ` +
        `${s && raw ? `${((100 * s.rps) / raw.rps).toFixed(0)}%` : '–'} | ${plans.get(r.endpoint) ?? '–'} |`,
    );
  }
  return lines.join('\n');
}

function medianRows(all: Row[][]): Row[] {
  return all[0].map((r, i) => {
    const pickM = (k: 'service' | 'raw') => {
      const ms = all.map((run) => run[i][k]).filter((m): m is Measure => !!m);
      if (ms.length === 0) return undefined;
      return {
        rps: median(ms.map((m) => m.rps)),
        p50: median(ms.map((m) => m.p50)),
        p99: median(ms.map((m) => m.p99)),
        errors: median(ms.map((m) => m.errors)),
        requests: median(ms.map((m) => m.requests)),
        cpuMs: ms.every((m) => m.cpuMs !== undefined) ? median(ms.map((m) => m.cpuMs!)) : undefined,
        rpsRange: [Math.min(...ms.map((m) => m.rps)), Math.max(...ms.map((m) => m.rps))] as [number, number],
      };
    };
    return { endpoint: r.endpoint, connections: r.connections, service: pickM('service'), raw: pickM('raw') };
  });
}

/**
 * VACUUM ANALYZE before measuring (PostgreSQL): the bench server runs with autovacuum off, and the previous run's
 * creates, moves and deletes leave dead rows, pages not all-visible (index-only scans fetch the heap) and stale
 * statistics; every run starts from the same state.
 */
async function vacuumAnalyze() {
  const db = await openBenchDatabase(1);
  const started = performance.now();
  try {
    await db.system.execute(sql.raw('vacuum analyze'));
  } finally {
    await db.close();
  }
  log(`vacuum analyze: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

// ---- main

/** A run's rows: each endpoint at each connection count (and at 1 where it asks for it). */
function runRows(eps: Endpoint[]): Row[] {
  return eps.flatMap((e) =>
    [...new Set([...(e.alsoAtOne ? [1] : []), ...connectionList])].map((c) => ({
      endpoint: e.name,
      connections: c,
    })),
  );
}

/**
 * With the service stopped, on a pool of this process: the first run captures every endpoint's SQL (and its
 * EXPLAIN ANALYZE); with the raw floor on, each row replays its endpoint's capture. Returns the captures.
 */
async function captureAndReplay(
  meta: SeedMeta,
  eps: Endpoint[],
  rows: Row[],
  run: number,
  captured: Map<string, Captured>,
): Promise<Map<string, Captured>> {
  const db = await openBenchDatabase(Math.max(...connectionList));
  try {
    const out = run === 0 ? await capture(db, meta, eps) : captured;
    if (withRaw && !explainOnly)
      for (const row of rows) {
        const c = out.get(row.endpoint);
        if (!c || c.status >= 300) continue;
        row.raw = await rawFloor(db, c.plan, row.connections);
        log(
          `raw ${row.endpoint} ×${row.connections}: ${row.raw.rps.toFixed(0)} req/s, p99 ${row.raw.p99.toFixed(1)} ms`,
        );
      }
    return out;
  } finally {
    await db.close();
  }
}

/** Each row's load on the service process, after a warm-up; the service drained before either. */
async function measureService(meta: SeedMeta, eps: Endpoint[], rows: Row[]) {
  const child = await startService();
  try {
    for (const row of rows) {
      const ep = eps.find((e) => e.name === row.endpoint)!;
      await drain();
      if (warmup > 0) await loadTest(meta, ep, row.connections, warmup);
      await drain();
      row.service = await loadTest(meta, ep, row.connections, duration, child.pid);
      log(
        `service ${row.endpoint} ×${row.connections}: ${row.service.rps.toFixed(0)} req/s, p99 ${row.service.p99} ms, ${row.service.errors} errors`,
      );
    }
  } finally {
    await stopService(child);
  }
}

/** Everything measured, as bench/results/<backend>-<time>.json: the file's path. */
function writeResults(
  backend: string,
  startLoad: number[],
  meta: SeedMeta,
  eps: Endpoint[],
  med: Row[],
  allRuns: Row[][],
  captured: Map<string, Captured>,
): string {
  const file = join(resultsDir, `${backend}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        backend,
        loadAverage: { start: startLoad, end: loadavg() },
        machine: machineInfo(),
        options: {
          duration,
          warmup,
          runs,
          connections: connectionList,
          servicePool: benchConfig().DATABASE_POOL_SIZE,
        },
        dataSet: { ...meta.options, counts: meta.counts },
        endpoints: eps.map((e) => ({ name: e.name, label: e.label, request: e.request() })),
        median: med,
        runs: allRuns,
        queries: Object.fromEntries(
          [...captured].map(([k, c]) => [
            k,
            {
              status: c.status,
              statements: c.plan.statements.map((s) => ({
                sql: s.text,
                params: s.values,
                ms: Math.round(s.ms * 100) / 100,
              })),
              explains: c.explains,
            },
          ]),
        ),
      },
      null,
      2,
    )}\n`,
  );
  return file;
}

/** The captured EXPLAIN ANALYZE plans, beside the results file (`.plans.md`), when there are any. */
function writePlans(file: string, backend: string, eps: Endpoint[], captured: Map<string, Captured>) {
  const plans = [...captured].filter(([, c]) => c.explains.length);
  if (plans.length) {
    const md = plans.map(([name, c]) =>
      [
        `## ${eps.find((e) => e.name === name)?.label ?? name}`,
        ...c.explains.map(
          (x) =>
            `\n\`\`\`sql\n${x.sql}\n-- params: ${JSON.stringify(x.params)}\n\`\`\`\n\n\`\`\`\n${x.plan}\n\`\`\``,
        ),
      ].join('\n'),
    );
    writeFileSync(
      file.replace(/\.json$/, '.plans.md'),
      `# ${backend}: EXPLAIN ANALYZE\n\n${md.join('\n\n')}\n`,
    );
  }
}

async function main() {
  const meta = readMeta();
  const backend = backendName();
  const eps = endpoints(meta, only);
  log(
    `${backend}: ${eps.length} endpoints × ${connectionList.join('/')} connections × ${duration}s, ${runs} run(s)`,
  );

  const startLoad = loadavg();
  let captured = new Map<string, Captured>();
  const allRuns: Row[][] = [];
  for (let run = 0; run < runs; run++) {
    const rows = runRows(eps);
    if (backend === 'postgres') await vacuumAnalyze();
    if (withRaw || explainOnly || (run === 0 && withExplain))
      captured = await captureAndReplay(meta, eps, rows, run, captured);
    // The capture's own create leaves its card too: every run ends with the data set it started from.
    if (explainOnly) {
      log(await removeCreatedCards(meta));
      break;
    }
    await measureService(meta, eps, rows);
    log(await removeCreatedCards(meta));
    allRuns.push(rows);
    console.log(`\n### ${backend}, run ${run + 1}/${runs}\n\n${table(rows, eps, topNodes(captured))}\n`);
  }
  const med = allRuns.length ? medianRows(allRuns) : [];
  if (runs > 1)
    console.log(`\n### ${backend}, median of ${runs} runs\n\n${table(med, eps, topNodes(captured))}\n`);

  const file = writeResults(backend, startLoad, meta, eps, med, allRuns, captured);
  log(`wrote ${file}`);
  writePlans(file, backend, eps, captured);
}

await main();
// autocannon and the pg pool can keep the event loop alive for a while after the last run.
process.exit(0);
