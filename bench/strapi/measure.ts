import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Request } from '../endpoints.js';
import { processCpuMs } from '../lib.js';
import type { Pair } from './requests.js';

/** One side's figures for one endpoint in one run. */
export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  /** non-2xx + socket errors (autocannon's errors include its timeouts) */
  errors: number;
  /** responses read (autocannon's requests.total) */
  requests: number;
  /** requests sent (each connection has at most one in flight; a timed-out or errored one is sent again) */
  sent: number;
  /**
   * Connections ÷ mean latency (Little's law for a closed loop): autocannon's req/s counts only the requests that
   * completed inside the window, so when one request takes a sizeable share of it (Strapi's slow reads: 1–3 s
   * in a 10 s window) req/s under-counts by up to latency ÷ duration; this estimate does not.
   */
  rpsByLatency: number;
  /** CPU time of the service's process per request, ms (Linux /proc); undefined where not measurable. */
  cpuMs?: number;
  /** Medians only: the lowest and highest req/s of the runs. */
  rpsRange?: [number, number];
  /**
   * Why the cell's count is not the service's throughput (a stall, a timeout, a service still busy with the
   * previous load); its req/s is then not reported as one (tables print "failed", the bench exits with 1).
   */
  failed?: string;
}
export interface Row {
  endpoint: Pair['name'];
  ours: Measure;
  strapi: Measure;
}
interface AutocannonResult {
  requests: { total: number; sent: number };
  duration: number;
  latency: { p50: number; p99: number; mean: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
/** One service under test: where it listens, its process (for CPU), its headers and how a pair's load is sent. */
export interface Side {
  name: 'ours' | 'strapi';
  port: number;
  /** A path that answers fast when the service is idle (the drain's probe). */
  health: string;
  /** The service's database (the drain waits until none of its sessions runs a query). */
  databaseUrl: string;
  pid: number | undefined;
  headers: Record<string, string>;
  request: (pair: Pair) => Request;
  load: (pair: Pair, connections: number, seconds: number) => Promise<AutocannonResult>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The queries running in the side's database, other than this session's (pg_stat_activity, state not idle). */
async function runningQueries(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ q: string }>(
    `select left(query, 200) as q from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and state is not null and state <> 'idle'`,
  );
  return rows.map((r) => r.q.replace(/\s+/g, ' ').slice(0, 100));
}

async function healthFast(side: Side): Promise<boolean> {
  const t = performance.now();
  try {
    const res = await fetch(`http://127.0.0.1:${side.port}${side.health}`);
    await res.arrayBuffer();
    return res.ok && performance.now() - t < 50;
  } catch {
    return false;
  }
}

/**
 * Waits until a service has worked off what the last load left behind: autocannon stops with a request in flight
 * on every connection, Node keeps serving requests whose client went away, and their queries keep running (up to
 * 3 s each for Strapi's page 400), while a health path that touches no database answers at once. Drained = no
 * session of the service's database running a query (pg_stat_activity) and the health path answering within
 * 50 ms, twice in a row 100 ms apart. Says how long it waited for queries; returns why not after 180 s.
 */
async function drain(side: Side, log: (msg: string) => void): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: side.databaseUrl });
  await client.connect();
  const start = performance.now();
  let most = 0;
  let last: string[] = [];
  try {
    for (let calm = 0; performance.now() - start < 180_000; await sleep(100)) {
      const running = await runningQueries(client);
      if (running.length > 0) [most, last] = [Math.max(most, running.length), running];
      calm = running.length === 0 && (await healthFast(side)) ? calm + 1 : 0;
      if (calm < 2) continue;
      if (most > 0)
        log(
          `${side.name}: waited ${((performance.now() - start) / 1000).toFixed(1)} s for up to ${most} queries of the previous load to finish (${last[0]})`,
        );
      return undefined;
    }
    return `not idle after 180 s: ${last.length} queries running (${last[0] ?? 'none; the health path answers slowly'})`;
  } finally {
    await client.end();
  }
}

/**
 * Why a cell's count is not a throughput, or undefined. Each connection has at most one request in flight and
 * sends the next only on an answer, a timeout or a socket error (both counted as errors), so requests sent less
 * answers less errors is at most the number of connections; anything above is requests whose answer autocannon
 * never read: a connection closed under them and reopened (as with the stale Content-Length of 2026-11-28: one
 * answer read per connection, the rest lost without an error, the latencies of what was read plausible). A
 * service that stops answering without closing is caught by autocannon's 10 s timeout, or, sooner, by the
 * closed loop's coverage: the answers' latencies add up to connections × window, less the request each
 * connection still had in flight when the window closed (at most about one latency).
 */
function stallOf(r: AutocannonResult, connections: number): string | undefined {
  const lost = r.requests.sent - r.requests.total - r.errors - connections;
  if (lost > 0)
    return `${lost} requests got no answer autocannon could read (${r.requests.sent} sent, ${r.requests.total} answered, ${r.errors} errors, ${connections} connections): their connections were closed under them and reopened`;
  if (r.timeouts > 0) return `${r.timeouts} requests timed out (no answer in 10 s)`;
  if (r.requests.total === 0) return `no request completed in the ${r.duration} s window`;
  const windowMs = r.duration * 1000;
  const busy = (r.requests.total * r.latency.mean) / (connections * windowMs);
  const floor = 1 - r.latency.max / windowMs - 0.1;
  if (busy >= floor) return undefined;
  return `the connections spent ${(100 - busy * 100).toFixed(0)}% of the window waiting on nothing counted (at most ${(100 - floor * 100).toFixed(0)}% expected): ${r.requests.total} requests in ${r.duration} s against connections ÷ mean latency = ${((connections * 1000) / r.latency.mean).toFixed(1)} req/s`;
}

async function cell(side: Side, pair: Pair, connections: number, seconds: number): Promise<Measure> {
  const cpuBefore = processCpuMs(side.pid);
  const r = await side.load(pair, connections, seconds);
  const cpuAfter = processCpuMs(side.pid);
  return {
    rps: r.requests.total / r.duration,
    rpsByLatency: r.latency.mean > 0 ? (connections * 1000) / r.latency.mean : 0,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.non2xx + r.errors,
    requests: r.requests.total,
    sent: r.requests.sent,
    failed: stallOf(r, connections),
    cpuMs:
      cpuBefore === undefined || cpuAfter === undefined || r.requests.total === 0
        ? undefined
        : (cpuAfter - cpuBefore) / r.requests.total,
  };
}

/** One run: per endpoint, ours then Strapi (each drained, warmed up, drained, measured), then the next endpoint. */
export async function measureRun(
  list: Pair[],
  sides: [Side, Side],
  opts: { connections: number; duration: number; warmup: number },
  log: (msg: string) => void,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const pair of list) {
    const out: Partial<Record<Side['name'], Measure>> = {};
    for (const side of sides) {
      const before = await drain(side, log);
      if (opts.warmup > 0) await side.load(pair, opts.connections, opts.warmup);
      const notIdle = (await drain(side, log)) ?? before;
      const m = await cell(side, pair, opts.connections, opts.duration);
      if (notIdle) m.failed = `${m.failed ? `${m.failed}; ` : ''}measured from a busy service: ${notIdle}`;
      out[side.name] = m;
      log(
        `${side.name} ${pair.name}: ${m.rps.toFixed(1)} req/s (connections ÷ mean latency: ${m.rpsByLatency.toFixed(1)}), p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.errors} errors, ${m.requests} answered of ${m.sent} sent`,
      );
      if (m.failed) log(`  FAILED, not a throughput: ${m.failed}`);
      if (m.p50 > (opts.duration * 1000) / 10)
        log(
          `  p50 is ${(m.p50 / (opts.duration * 10)) | 0}% of the ${opts.duration} s window: req/s under-counts what completes after it; see the latency-based column`,
        );
    }
    rows.push({ endpoint: pair.name, ours: out.ours!, strapi: out.strapi! });
  }
  return rows;
}

/** Medians over the runs; a side's median is failed when any of its runs failed (their reasons, by run). */
export function medianRows(runs: Row[][]): Row[] {
  const failedRuns = (ms: Measure[]) =>
    ms.flatMap((m, run) => (m.failed ? [`run ${run + 1}: ${m.failed}`] : [])).join('; ') || undefined;
  const pick = (ms: Measure[]): Measure => ({
    rps: median(ms.map((m) => m.rps)),
    rpsByLatency: median(ms.map((m) => m.rpsByLatency)),
    p50: median(ms.map((m) => m.p50)),
    p99: median(ms.map((m) => m.p99)),
    errors: median(ms.map((m) => m.errors)),
    requests: median(ms.map((m) => m.requests)),
    sent: median(ms.map((m) => m.sent)),
    cpuMs: ms.every((m) => m.cpuMs !== undefined) ? median(ms.map((m) => m.cpuMs!)) : undefined,
    rpsRange: [Math.min(...ms.map((m) => m.rps)), Math.max(...ms.map((m) => m.rps))],
    failed: failedRuns(ms),
  });
  return runs[0].map((r, i) => ({
    endpoint: r.endpoint,
    ours: pick(runs.map((run) => run[i].ours)),
    strapi: pick(runs.map((run) => run[i].strapi)),
  }));
}

/** Every failed cell of the runs, for the bench's closing summary (and its exit code). */
export function failures(runs: Row[][]): string[] {
  return runs.flatMap((rows, run) =>
    rows.flatMap((r) =>
      (['ours', 'strapi'] as const).flatMap((side) =>
        r[side].failed ? [`run ${run + 1}, ${side} ${r.endpoint}: ${r[side].failed}`] : [],
      ),
    ),
  );
}

const rps = (n: number) => n.toFixed(n < 100 ? 1 : 0);
const ms = (n: number | undefined, d = 1) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(d));
const failedRow = (row: Row) => !!(row.ours.failed || row.strapi.failed);
/** A failed cell's count is no throughput: no ratio, no verdict. */
const ratio = (row: Row) => (failedRow(row) ? '–' : `${(row.ours.rps / row.strapi.rps).toFixed(1)}×`);
const verdict = (row: Row, target: number) =>
  failedRow(row) ? '**failed**' : row.ours.rps / row.strapi.rps >= target ? 'met' : 'missed';

/** A run's table: both sides' req/s, latencies, errors and CPU per request, the ratio against the target. */
export function runTable(rows: Row[], list: Pair[]): string {
  const lines = [
    '| Endpoint | Ours req/s | p50 ms | p99 ms | Errors | CPU ms/req | Strapi req/s | p50 ms | p99 ms | Errors | CPU ms/req | Ratio | Target |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const p = list.find((x) => x.name === r.endpoint)!;
    const side = (m: Measure) =>
      `${m.failed ? '**failed**' : rps(m.rps)} | ${ms(m.p50)} | ${ms(m.p99)} | ${m.errors} | ${ms(m.cpuMs, 2)}`;
    lines.push(
      `| ${p.label} | ${side(r.ours)} | ${side(r.strapi)} | ${ratio(r)} | ≥ ${p.target}× ${verdict(r, p.target)} |`,
    );
  }
  return lines.join('\n');
}

/** The medians' table: req/s median (range) on each side, the ratio of the medians, the target, met or missed. */
export function medianTable(rows: Row[], list: Pair[]): string {
  const lines = [
    '| Endpoint | Ours req/s, median (range) | Strapi req/s, median (range) | Ratio of medians | Target | | Ratio by connections ÷ mean latency |',
    '|---|---:|---:|---:|---:|---|---:|',
  ];
  const withRange = (m: Measure) =>
    m.failed
      ? `**failed** (${m.failed.match(/run \d+/g)?.join(', ')})`
      : `${rps(m.rps)}${m.rpsRange ? ` (${rps(m.rpsRange[0])}–${rps(m.rpsRange[1])})` : ''}`;
  for (const r of rows) {
    const p = list.find((x) => x.name === r.endpoint)!;
    const byLatency = failedRow(r)
      ? '–'
      : `${(r.ours.rpsByLatency / r.strapi.rpsByLatency).toFixed(1)}× (${rps(r.ours.rpsByLatency)} ÷ ${rps(r.strapi.rpsByLatency)})`;
    lines.push(
      `| ${p.label} | ${withRange(r.ours)} | ${withRange(r.strapi)} | ${ratio(r)} | ≥ ${p.target}× | ${verdict(r, p.target)} | ${byLatency} |`,
    );
  }
  return lines.join('\n');
}

export interface Answer {
  status: number;
  /** the body's length in bytes */
  bytes: number;
  total?: number;
  count?: number;
}
export interface TotalsCheck {
  endpoint: Pair['name'];
  ours: Answer;
  strapi: Answer;
  same: boolean;
}

async function ask(side: Side, pair: Pair): Promise<Answer> {
  const r = side.request(pair);
  const res = await fetch(`http://127.0.0.1:${side.port}${r.path}`, {
    method: r.method,
    headers: side.headers,
    body: r.body ? JSON.stringify(r.body) : undefined,
  });
  const text = await res.text();
  let body: { data?: unknown; meta?: { pagination?: { total?: number } } } | undefined;
  try {
    body = JSON.parse(text);
  } catch {}
  return {
    status: res.status,
    bytes: Buffer.byteLength(text),
    total: body?.meta?.pagination?.total,
    count: Array.isArray(body?.data) ? body.data.length : body?.data ? 1 : undefined,
  };
}

/**
 * One request of each pair on both sides: every answer 2xx, and for the reads the same total and page size
 * (the data sets match). The creates it makes are removed with the run's.
 */
export async function checkTotals(list: Pair[], sides: [Side, Side]): Promise<TotalsCheck[]> {
  const out: TotalsCheck[] = [];
  // The reads first: their totals are the copied rows', before the create adds one.
  for (const pair of [...list.filter((p) => p.read), ...list.filter((p) => !p.read)]) {
    const [ours, strapi] = [await ask(sides[0], pair), await ask(sides[1], pair)];
    const ok = (a: Answer) => a.status >= 200 && a.status < 300;
    const same =
      ok(ours) && ok(strapi) && (!pair.read || (ours.total === strapi.total && ours.count === strapi.count));
    out.push({ endpoint: pair.name, ours, strapi, same });
  }
  return out;
}

export function checkTable(checks: TotalsCheck[]): string {
  const a = (x: Answer) =>
    `${x.status}, total ${x.total ?? '–'}, ${x.count ?? '–'} on the page, ${(x.bytes / 1024).toFixed(1)} KiB`;
  return [
    '| Endpoint | Ours | Strapi | Same |',
    '|---|---|---|---|',
    ...checks.map((c) => `| ${c.endpoint} | ${a(c.ours)} | ${a(c.strapi)} | ${c.same ? 'yes' : '**no**'} |`),
  ].join('\n');
}
