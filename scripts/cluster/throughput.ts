/**
 * Throughput of the cluster (issue 34 item 5, docs/scaling.md): a mixed read/write load through HAProxy against 1, 2
 * and 3 API processes (the others disabled in HAProxy, still running), with req/s, p50/p99 and where the CPU went:
 * the API processes, the workers, PostgreSQL's backends of the database, PgBouncer, HAProxy, Redis (from
 * /proc/<pid>/stat), and PgBouncer's waits (SHOW POOLS cl_waiting / maxwait, sampled every 500 ms). A second table
 * breaks every row down by request kind (list, card, search, create, move): statuses, p50/p99, and a sample of each
 * error answer, so a failure is attributable.
 *
 *   npx tsx scripts/cluster/throughput.ts [--duration 15] [--connections 32] [--cards 1500]
 */
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { type Cluster, startCluster } from './cluster.js';

const argv = process.argv.slice(2);
const num = (name: string, d: number) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : d);
const duration = num('duration', 15);
const connections = num('connections', 32);
const nCards = num('cards', 1500);
const log = (m: string) => console.error(`[throughput ${new Date().toISOString().slice(11, 19)}] ${m}`);

const cpuMs = (pid: number) => {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
};

async function haproxyCommand(c: Cluster, cmd: string) {
  await new Promise<void>((resolve, reject) => {
    const s = createConnection(join(c.dir, 'haproxy.sock'));
    s.on('error', reject);
    s.on('connect', () => s.end(`${cmd}\n`));
    s.on('close', () => resolve());
    s.resume();
  });
}

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function seed(c: Cluster) {
  const slug = `tp${Date.now().toString(36)}`;
  const reg = await call(c.url, 'POST', '/auth/local/register', { username: slug, email: `${slug}@x.test`, password: 'correct-horse-battery' });
  const auth = { authorization: `Bearer ${reg.jwt}` };
  await call(c.url, 'POST', '/organizations', { data: { name: slug, slug } }, auth);
  const h = { ...auth, 'x-tenant-id': slug };
  const board = await call(c.url, 'POST', '/boards', { data: { name: 'Pipeline', phases: [{ name: 'New' }, { name: 'Talking' }, { name: 'Offer' }] } }, h);
  const full = await call(c.url, 'GET', `/boards/${board.documentId}`, undefined, h);
  const phases: string[] = (full.phases ?? []).map((p: { documentId: string }) => p.documentId);
  const cards: string[] = [];
  const words = ['acme', 'globex', 'initech', 'umbrella', 'stark', 'wayne', 'tyrell', 'cyberdyne'];
  let next = 0;
  await Promise.all(
    Array.from({ length: 12 }, async () => {
      while (next < nCards) {
        const i = next++;
        const card = await call(c.url, 'POST', `/boards/${board.documentId}/cards`, { data: { title: `${words[i % 8]} deal ${i}`, value: i * 10 } }, h);
        cards.push(card.documentId);
        if (i % 3 === 0 && phases.length > 1)
          await call(c.url, 'POST', `/boards/${board.documentId}/cards/${card.documentId}/move`, { phase: phases[1 + (i % (phases.length - 1))] }, h);
        if (i % 5 === 0)
          await call(c.url, 'POST', '/contacts', { data: { name: `${words[i % 8]} person ${i}`, email: `p${i}@${words[i % 8]}.test` } }, h);
      }
    }),
  );
  return { h, board: board.documentId as string, phases, cards };
}

type Kind = 'list' | 'card' | 'search' | 'create' | 'move';
const KINDS: Kind[] = ['list', 'card', 'search', 'create', 'move'];

/** The mix: 45 % card list page 1, 15 % one card, 15 % contact search, 15 % card create, 10 % card move. */
function mix(s: Awaited<ReturnType<typeof seed>>) {
  let i = 0;
  const b = s.board;
  return (): { kind: Kind; method: string; path: string; body?: string } => {
    const n = i++;
    const r = n % 20;
    const card = s.cards[(n * 7919) % s.cards.length]!;
    if (r < 9) return { kind: 'list', method: 'GET', path: `/api/boards/${b}/cards?pagination[pageSize]=25` };
    if (r < 12) return { kind: 'card', method: 'GET', path: `/api/boards/${b}/cards/${card}` };
    if (r < 15) return { kind: 'search', method: 'GET', path: `/api/contacts?q=${['acme', 'stark', 'wayne'][n % 3]}` };
    if (r < 18)
      return { kind: 'create', method: 'POST', path: `/api/boards/${b}/cards`, body: JSON.stringify({ data: { title: `load ${n}`, value: 5 } }) };
    return { kind: 'move', method: 'POST', path: `/api/boards/${b}/cards/${card}/move`, body: JSON.stringify({ phase: s.phases[n % s.phases.length] }) };
  };
}

/** Answers per request kind: statuses, latencies, the first body of each error status. */
class Tally {
  readonly byKind = new Map<Kind, { statuses: Record<string, number>; ms: number[]; samples: Record<string, string> }>();
  add(kind: Kind, status: number, ms: number, body: unknown) {
    let k = this.byKind.get(kind);
    if (!k) this.byKind.set(kind, (k = { statuses: {}, ms: [], samples: {} }));
    k.statuses[status] = (k.statuses[status] ?? 0) + 1;
    k.ms.push(ms);
    if (status >= 400 && !(status in k.samples)) k.samples[status] = String(body ?? '').replace(/\s+/g, ' ').slice(0, 160);
  }
}
const pct = (xs: number[], q: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]! : 0);

async function measure(c: Cluster, s: Awaited<ReturnType<typeof seed>>, seconds: number) {
  const next = mix(s);
  const headers = { ...s.h, 'content-type': 'application/json' };
  const groups = {
    api: () => c.apis.map((p) => p.pid),
    workers: () => c.workers.map((p) => p.pid),
    haproxy: () => [c.haproxy.pid],
    pgbouncer: () => [c.pgbouncer.pid],
    redis: () => [c.redis.pid],
  };
  const backends = await c.backendPids();
  const before = Object.fromEntries(Object.entries(groups).map(([k, f]) => [k, f().reduce((a, p) => a + cpuMs(p), 0)]));
  const pgBefore = backends.reduce((a, p) => a + cpuMs(p), 0);
  const perApiBefore = c.apis.map((p) => cpuMs(p.pid));
  const selfBefore = process.cpuUsage();
  let maxWaiting = 0;
  let maxWaitUs = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      try {
        for (const row of await c.pools())
          if (row.database === 'crm') {
            maxWaiting = Math.max(maxWaiting, Number(row.cl_waiting));
            maxWaitUs = Math.max(maxWaitUs, Number(row.maxwait) * 1e6 + Number(row.maxwait_us ?? 0));
          }
      } catch {}
      await sleep(500);
    }
  })();
  const tally = new Tally();
  const result = await autocannon({
    url: c.url,
    connections,
    duration: seconds,
    requests: [
      {
        // The context is the connection's, for its one request in flight: the kind and start of that request.
        // biome-ignore lint/suspicious/noExplicitAny: autocannon's Request type has no body-less variant
        setupRequest: ((req: any, context: any) => {
          const { kind, ...r } = next();
          context.kind = kind;
          context.t0 = performance.now();
          // A copy each time: autocannon writes Content-Length into the headers object it is given, and a shared
          // one carried a POST's length into the next GETs (HAProxy then read the following request as their
          // body and answered 400 to ~40 % of the requests, with seconds of latency: the first run's table).
          return { ...req, ...r, headers: { ...headers } };
        }) as any,
        // biome-ignore lint/suspicious/noExplicitAny: autocannon's context is untyped
        onResponse: ((status: number, body: unknown, context: any) => {
          if (context?.kind) tally.add(context.kind, status, performance.now() - context.t0, body);
        }) as any,
      },
    ],
  });
  sampling = false;
  await sampler;
  const wall = result.duration * 1000;
  const after = Object.fromEntries(Object.entries(groups).map(([k, f]) => [k, f().reduce((a, p) => a + cpuMs(p), 0)]));
  const newBackends = await c.backendPids();
  const pgAfter = newBackends.reduce((a, p) => a + cpuMs(p), 0);
  const selfCpu = process.cpuUsage(selfBefore);
  const cores = (ms: number) => ms / wall;
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    noAnswer: { errors: result.errors, timeouts: result.timeouts },
    tally,
    requests: result.requests.total,
    cpu: {
      ...Object.fromEntries(Object.keys(groups).map((k) => [k, cores(after[k]! - before[k]!)])),
      // Backends that connected during the run are counted whole; one that ended is missed (PgBouncer keeps them).
      postgres: cores(pgAfter - pgBefore),
      loadgen: cores((selfCpu.user + selfCpu.system) / 1000),
    } as Record<string, number>,
    perApi: c.apis.map((p, i) => cores(cpuMs(p.pid) - perApiBefore[i]!)),
    maxWaiting,
    maxWaitMs: maxWaitUs / 1000,
  };
}

async function main() {
  const load0 = loadavg().map((x) => x.toFixed(1)).join(' ');
  const c = await startCluster({ log, apis: 3, workers: 2, env: { RATE_LIMIT_MAX: '10000000', CRM_LOG_LEVEL: 'error' } });
  const lines: string[] = [];
  const kindLines: string[] = [];
  const samples: string[] = [];
  try {
    log(`seeding ${nCards} cards`);
    const s = await seed(c);
    for (const n of [1, 2, 3]) {
      for (let i = 1; i <= 3; i++) await haproxyCommand(c, `${i <= n ? 'enable' : 'disable'} server crm/api${i}`);
      await sleep(1000);
      log(`${n} API process(es): warm-up 3 s`);
      await measure(c, s, 3);
      await sleep(1000);
      const m = await measure(c, s, duration);
      const cpu = m.cpu;
      const f = (x: number) => x.toFixed(2);
      const line =
        `| ${n} | ${Math.round(m.rps)} | ${m.p50} | ${m.p99} | ${m.errors} | ${f(cpu.api!)} (${m.perApi.map(f).join(' / ')}) | ${f(cpu.postgres!)} | ` +
        `${f(cpu.pgbouncer!)} | ${f(cpu.haproxy!)} | ${f(cpu.redis!)} | ${f(cpu.workers!)} | ${f(cpu.loadgen!)} | ${m.maxWaiting} / ${Math.round(m.maxWaitMs)} ms |`;
      log(line);
      lines.push(line);
      for (const kind of KINDS) {
        const k = m.tally.byKind.get(kind);
        if (!k) continue;
        const st = Object.entries(k.statuses).map(([code, count]) => `${code}: ${count}`).join(', ');
        kindLines.push(`| ${n} | ${kind} | ${k.ms.length} | ${st} | ${Math.round(pct(k.ms, 0.5))} | ${Math.round(pct(k.ms, 0.99))} |`);
        for (const [code, body] of Object.entries(k.samples)) samples.push(`- ${n} process(es), ${kind} ${code}: \`${body.replace(/`/g, "'")}\``);
      }
      kindLines.push(`| ${n} | (no answer) | ${m.noAnswer.errors + m.noAnswer.timeouts} | errors ${m.noAnswer.errors}, timeouts ${m.noAnswer.timeouts} | | |`);
      log(kindLines.slice(-KINDS.length - 1).join('\n'));
    }
  } finally {
    await c.stop();
  }
  console.log(
    `\n### Mixed load through HAProxy (${new Date().toISOString().slice(0, 16)}Z; ${cpus().length} cores, load average before ${load0}, after ${loadavg().map((x) => x.toFixed(1)).join(' ')}; ` +
      `${connections} connections, ${duration} s per row after a 3 s warm-up; ${nCards} cards; 45 % card list, 15 % card, 15 % contact search, 15 % create, 10 % move)\n`,
  );
  console.log(
    '| API processes | req/s | p50 ms | p99 ms | errors | API CPU, cores (each) | PostgreSQL CPU | PgBouncer CPU | HAProxy CPU | Redis CPU | workers CPU | load generator CPU | PgBouncer cl_waiting max / maxwait |',
  );
  console.log('|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|');
  for (const l of lines) console.log(l);
  console.log('\nBy request kind (statuses as answered; "no answer": connection errors and timeouts of autocannon):\n');
  console.log('| API processes | kind | requests | statuses | p50 ms | p99 ms |');
  console.log('|---:|---|---:|---|---:|---:|');
  for (const l of kindLines) console.log(l);
  if (samples.length) console.log(`\nThe first answer of each error status:\n\n${samples.join('\n')}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
