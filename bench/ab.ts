/**
 * Before and after, interleaved: this checkout's build and another's (`--base <dir>`, a built checkout, e.g. a
 * `git worktree` of the commit to compare with) served at once on the seeded database, the load alternated
 * between them in short bursts, so the machine's drift between minutes falls on both alike. Prints, per
 * endpoint, the medians of req/s, the service's CPU per request and the database's (the sum over its processes,
 * PostgreSQL on this machine only; PGlite runs inside the service).
 *
 *   npm run bench:ab -- --base /work/wt/base [--rounds 8] [--seconds 3] [--connections 10] [--only cards-list,…]
 */
import type { ChildProcess } from 'node:child_process';
import { endpoints, loadEndpoint } from './endpoints.js';
import {
  backendName,
  numberFlag,
  parseFlags,
  postgresCpuMs,
  processCpuMs,
  readMeta,
  removeCreatedCards,
  rootDir,
  startServiceProcess,
  stopService,
} from './lib.js';

const flags = parseFlags(process.argv.slice(2));
if (typeof flags.base !== 'string') {
  console.error(
    'usage: npm run bench:ab -- --base <a built checkout to compare with> [--rounds N] [--seconds S]',
  );
  process.exit(2);
}
const rounds = numberFlag(flags, 'rounds', 8);
const seconds = numberFlag(flags, 'seconds', 3);
const connections = numberFlag(flags, 'connections', 10);
const only = typeof flags.only === 'string' ? new Set(flags.only.split(',')) : null;
const builds = [
  { name: 'base', dir: flags.base, port: numberFlag(flags, 'port', 18_601) },
  { name: 'this', dir: rootDir, port: numberFlag(flags, 'port', 18_601) + 1 },
];
const onPostgres = backendName() === 'postgres';
const meta = readMeta();
const eps = endpoints(meta, only).filter((e) => e.name !== 'health');

interface Burst {
  rps: number;
  serviceMs: number | undefined;
  databaseMs: number | undefined;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : Number.NaN;
};
const fmt = (n: number, d: number) => (Number.isNaN(n) ? '–' : n.toFixed(d));

async function burst(child: ChildProcess, port: number, ep: (typeof eps)[number], s: number): Promise<Burst> {
  const service = processCpuMs(child.pid);
  const database = onPostgres ? postgresCpuMs() : undefined;
  const result = await loadEndpoint(port, meta, ep, connections, s);
  const n = result.requests.total;
  if (result.non2xx + result.errors)
    console.error(`${ep.name}: ${result.non2xx + result.errors} failed requests`);
  return {
    rps: n / result.duration,
    serviceMs: service === undefined || n === 0 ? undefined : (processCpuMs(child.pid)! - service) / n,
    databaseMs: database === undefined || n === 0 ? undefined : (postgresCpuMs() - database) / n,
  };
}

const children: ChildProcess[] = [];
try {
  // Each build from its own directory (its dist/, its bin/crm.js), on the same database.
  for (const b of builds) children.push(await startServiceProcess(b.port, {}, b.dir));
  console.log(`| Endpoint | req/s base → this | service CPU ms/req | database CPU ms/req |`);
  console.log('|---|---:|---:|---:|');
  for (const ep of eps) {
    const bursts: Burst[][] = builds.map(() => []);
    for (const [i, b] of builds.entries()) await burst(children[i], b.port, ep, 2); // warm-up
    for (let r = 0; r < rounds; r++)
      for (const i of r % 2 ? [1, 0] : [0, 1])
        bursts[i].push(await burst(children[i], builds[i].port, ep, seconds));
    const m = (i: number, k: keyof Burst) =>
      median(bursts[i].flatMap((x) => (x[k] === undefined ? [] : [x[k] as number])));
    const change = (m(1, 'rps') / m(0, 'rps') - 1) * 100;
    console.log(
      `| ${ep.label} | ${fmt(m(0, 'rps'), 0)} → ${fmt(m(1, 'rps'), 0)} (${change >= 0 ? '+' : ''}${fmt(change, 0)}%) | ` +
        `${fmt(m(0, 'serviceMs'), 2)} → ${fmt(m(1, 'serviceMs'), 2)} | ${fmt(m(0, 'databaseMs'), 2)} → ${fmt(m(1, 'databaseMs'), 2)} |`,
    );
  }
} finally {
  for (const c of children) await stopService(c);
}
// The creates of both builds go, as bench/run.ts removes its own.
if (!only || only.has('cards-create')) console.error(await removeCreatedCards(meta));
