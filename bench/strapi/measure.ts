import { setTimeout as sleep } from 'node:timers/promises';
import type { Request } from '../endpoints.js';
import { processCpuMs } from '../lib.js';
import type { Pair } from './requests.js';

/** One side's figures for one endpoint in one run. */
export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  /** non-2xx + socket errors + timeouts */
  errors: number;
  requests: number;
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
}
export interface Row {
  endpoint: Pair['name'];
  ours: Measure;
  strapi: Measure;
}
interface AutocannonResult {
  requests: { total: number };
  duration: number;
  latency: { p50: number; p99: number; mean: number };
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
  pid: number | undefined;
  headers: Record<string, string>;
  request: (pair: Pair) => Request;
  load: (pair: Pair, connections: number, seconds: number) => Promise<AutocannonResult>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Waits until a service has worked off what the last load left queued (Node keeps serving requests whose client
 * went away): its health path answering within 50 ms means its pool is free again.
 */
async function drain(side: Side, log: (msg: string) => void) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const t = performance.now();
    try {
      const res = await fetch(`http://127.0.0.1:${side.port}${side.health}`);
      if (res.ok && performance.now() - t < 50) return;
    } catch {}
    await sleep(250);
  }
  log(`${side.name} did not drain in 180 s`);
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
    errors: r.non2xx + r.errors + r.timeouts,
    requests: r.requests.total,
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
      await drain(side, log);
      if (opts.warmup > 0) await side.load(pair, opts.connections, opts.warmup);
      await drain(side, log);
      const m = await cell(side, pair, opts.connections, opts.duration);
      out[side.name] = m;
      log(
        `${side.name} ${pair.name}: ${m.rps.toFixed(1)} req/s (connections ÷ mean latency: ${m.rpsByLatency.toFixed(1)}), p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.errors} errors`,
      );
      if (m.p50 > (opts.duration * 1000) / 10)
        log(
          `  p50 is ${(m.p50 / (opts.duration * 10)) | 0}% of the ${opts.duration} s window: req/s under-counts what completes after it; see the latency-based column`,
        );
    }
    rows.push({ endpoint: pair.name, ours: out.ours!, strapi: out.strapi! });
  }
  return rows;
}

export function medianRows(runs: Row[][]): Row[] {
  const pick = (ms: Measure[]): Measure => ({
    rps: median(ms.map((m) => m.rps)),
    rpsByLatency: median(ms.map((m) => m.rpsByLatency)),
    p50: median(ms.map((m) => m.p50)),
    p99: median(ms.map((m) => m.p99)),
    errors: median(ms.map((m) => m.errors)),
    requests: median(ms.map((m) => m.requests)),
    cpuMs: ms.every((m) => m.cpuMs !== undefined) ? median(ms.map((m) => m.cpuMs!)) : undefined,
    rpsRange: [Math.min(...ms.map((m) => m.rps)), Math.max(...ms.map((m) => m.rps))],
  });
  return runs[0].map((r, i) => ({
    endpoint: r.endpoint,
    ours: pick(runs.map((run) => run[i].ours)),
    strapi: pick(runs.map((run) => run[i].strapi)),
  }));
}

const rps = (n: number) => n.toFixed(n < 100 ? 1 : 0);
const ms = (n: number | undefined, d = 1) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(d));
const verdict = (row: Row, target: number) => (row.ours.rps / row.strapi.rps >= target ? 'met' : 'missed');

/** A run's table: both sides' req/s, latencies, errors and CPU per request, the ratio against the target. */
export function runTable(rows: Row[], list: Pair[]): string {
  const lines = [
    '| Endpoint | Ours req/s | p50 ms | p99 ms | Errors | CPU ms/req | Strapi req/s | p50 ms | p99 ms | Errors | CPU ms/req | Ratio | Target |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const p = list.find((x) => x.name === r.endpoint)!;
    const side = (m: Measure) =>
      `${rps(m.rps)} | ${ms(m.p50)} | ${ms(m.p99)} | ${m.errors} | ${ms(m.cpuMs, 2)}`;
    lines.push(
      `| ${p.label} | ${side(r.ours)} | ${side(r.strapi)} | ${(r.ours.rps / r.strapi.rps).toFixed(1)}× | ≥ ${p.target}× ${verdict(r, p.target)} |`,
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
    `${rps(m.rps)}${m.rpsRange ? ` (${rps(m.rpsRange[0])}–${rps(m.rpsRange[1])})` : ''}`;
  for (const r of rows) {
    const p = list.find((x) => x.name === r.endpoint)!;
    lines.push(
      `| ${p.label} | ${withRange(r.ours)} | ${withRange(r.strapi)} | ${(r.ours.rps / r.strapi.rps).toFixed(1)}× | ≥ ${p.target}× | ${verdict(r, p.target)} | ${(r.ours.rpsByLatency / r.strapi.rpsByLatency).toFixed(1)}× (${rps(r.ours.rpsByLatency)} ÷ ${rps(r.strapi.rpsByLatency)}) |`,
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
