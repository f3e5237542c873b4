/**
 * Throughput of the cluster (issue 34 item 5, docs/scaling.md): a mixed read/write load through HAProxy against 1, 2
 * and 3 API processes (the others disabled in HAProxy, still running), with req/s, p50/p99 and where the CPU went:
 * the API processes, the workers, PostgreSQL's backends of the database, PgBouncer, HAProxy, Redis (from
 * /proc/<pid>/stat), and PgBouncer's waits (SHOW POOLS cl_waiting / maxwait, sampled every 500 ms).
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

/** The mix: 45 % card list page 1, 15 % one card, 15 % contact search, 15 % card create, 10 % card move. */
function mix(s: Awaited<ReturnType<typeof seed>>) {
  let i = 0;
  const b = s.board;
  return () => {
    const n = i++;
    const r = n % 20;
    const card = s.cards[(n * 7919) % s.cards.length]!;
    if (r < 9) return { method: 'GET', path: `/api/boards/${b}/cards?pagination[pageSize]=25` };
    if (r < 12) return { method: 'GET', path: `/api/boards/${b}/cards/${card}` };
    if (r < 15) return { method: 'GET', path: `/api/contacts?q=${['acme', 'stark', 'wayne'][n % 3]}` };
    if (r < 18) return { method: 'POST', path: `/api/boards/${b}/cards`, body: JSON.stringify({ data: { title: `load ${n}`, value: 5 } }) };
    return { method: 'POST', path: `/api/boards/${b}/cards/${card}/move`, body: JSON.stringify({ phase: s.phases[n % s.phases.length] }) };
  };
}

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
  const result = await autocannon({
    url: c.url,
    connections,
    duration: seconds,
    // biome-ignore lint/suspicious/noExplicitAny: autocannon's Request type has no body-less variant
    requests: [{ setupRequest: ((req: any) => ({ ...req, ...next(), headers })) as any }],
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
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
