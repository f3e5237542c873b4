/**
 * Growth curves (issue 35 item 5): the cost of one request of each kind (phase list, title search, page 400,
 * report, create, move) as one board grows (--cards, default 10,000 and 100,000; 1,000,000 when asked) and as the
 * organizations beside it grow in number (--orgs, default 10, 100, 1,000 and 10,000). The service in this process
 * answers --requests sequential requests of each kind (after 3 unmeasured ones) for the measured organization's
 * main board: p50 and p95 per size, printed as tables and saved in bench/results/growth-<backend>.json.
 *
 *   DATABASE_URL=postgres://…/scratch npx tsx bench/growth.ts [--cards 10000,100000] [--orgs 10,100,1000,10000]
 *     [--org-boards 100] [--board-cards 5] [--requests 40] [--skip-orgs] [--skip-cards] [--fresh-sizes]
 *     [--measure-runs 3] [--label orgs]
 *
 * It WIPES the database it is given (seed.ts --fresh): give it a database of its own. Each board size is a fresh
 * data set written by bench/seed.ts. The organizations' curve: bench/seed.ts writes the measured organization
 * (one board of --org-cards cards, 2,000; 1,000 contacts), then bench/seed-tenants.ts adds the others, each with
 * --org-boards boards of --board-cards cards (its other flags pass through: --org-members, --org-contacts,
 * --batch, --jobs). A larger size adds organizations to the previous one (its "seed s" is that step's) unless
 * --fresh-sizes starts each one over. About 2.4 MB of database per organization: 10,000 take ~24 GB.
 * --measure-runs N measures each size N times (a fresh service each time, the data seeded once) and prints the
 * median of the runs' p50 and p95 (each run's figures are in the JSON); --label names the results file
 * (growth-<backend>-<label>.json), so the two curves can run in two databases side by side.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { queryRows } from '../src/platform/db/client.js';
import { startJobs } from '../src/workers.js';
import { endpoints, headers } from './endpoints.js';
import {
  backendName,
  benchConfig,
  loadAverage,
  numberFlag,
  openBenchDatabase,
  parseFlags,
  percentile,
  readMeta,
  removeCreatedCards,
  resultsDir,
  rootDir,
} from './lib.js';
import { seedTenants, tenantOptions } from './seed-tenants.js';

// The service's request log would be measured with the requests: warnings only, as the other benches.
process.env.CRM_LOG_LEVEL ??= 'warn';
const flags = parseFlags(process.argv.slice(2));
const list = (name: string, fallback: number[]) =>
  typeof flags[name] === 'string' ? (flags[name] as string).split(',').map(Number) : fallback;
const cardSizes = flags['skip-cards'] ? [] : list('cards', [10_000, 100_000]);
const orgSizes = flags['skip-orgs'] ? [] : list('orgs', [10, 100, 1_000, 10_000]).sort((a, b) => a - b);
// seed-tenants' flags (--org-boards, --board-cards…), without --orgs, which here is a list.
const { orgs: _sizes, ...tenantFlags } = flags;
const tenants = tenantOptions(tenantFlags);
const requests = numberFlag(flags, 'requests', 40);
const orgCards = numberFlag(flags, 'org-cards', 2_000);
const measureRuns = Math.max(1, numberFlag(flags, 'measure-runs', 1));
const label = typeof flags.label === 'string' ? `-${flags.label}` : '';
const KINDS = ['cards-list', 'cards-title', 'cards-deep', 'report', 'cards-create', 'cards-move'];
const log = (msg: string) => console.error(`[growth ${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** bench/seed.ts --fresh with these flags, in a child process: its seconds. */
async function seed(args: string[]): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/seed.ts', '--fresh', ...args], {
    cwd: rootDir,
    env: process.env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`seed.ts ${args.join(' ')} exited with ${code}`);
  return (performance.now() - t0) / 1000;
}

interface Cost {
  p50: number;
  p95: number;
  errors: number;
}

/** The service on the seeded database: --requests sequential requests of each kind, their p50/p95. */
async function measure(): Promise<Record<string, Cost>> {
  const meta = readMeta();
  const config = benchConfig();
  const db = await openBenchDatabase(10);
  const background = await startJobs(config, db, false);
  const app = await buildApp({ config, db, background });
  await app.ready();
  const h = headers(meta);
  const out: Record<string, Cost> = {};
  try {
    for (const ep of endpoints(meta, new Set(KINDS))) {
      if (ep.name === 'health') continue;
      const ms: number[] = [];
      let errors = 0;
      for (let i = 0; i < requests + 3; i++) {
        const r = ep.request();
        const t0 = performance.now();
        const res = await app.inject({
          method: r.method,
          url: r.path,
          headers: h,
          payload: r.body ? JSON.stringify(r.body) : undefined,
        });
        if (i >= 3) ms.push(performance.now() - t0);
        if (res.statusCode >= 400) errors++;
      }
      out[ep.name] = {
        p50: Math.round(percentile(ms, 0.5) * 10) / 10,
        p95: Math.round(percentile(ms, 0.95) * 10) / 10,
        errors,
      };
    }
  } finally {
    await app.close();
    await background.jobs.stop();
    await db.close();
  }
  return out;
}

/** measure() `measureRuns` times: per kind the median of the runs' p50 and of their p95, errors summed. */
async function measureMedian(): Promise<{ costs: Record<string, Cost>; runs: Record<string, Cost>[] }> {
  const runs: Record<string, Cost>[] = [];
  for (let i = 0; i < measureRuns; i++) {
    runs.push(await measure());
    // The creates would pile up from one run to the next on the measured board.
    log(await removeCreatedCards(readMeta()));
  }
  const costs: Record<string, Cost> = {};
  for (const kind of Object.keys(runs[0])) {
    const of = (k: 'p50' | 'p95') =>
      percentile(
        runs.map((r) => r[kind][k]),
        0.5,
      );
    costs[kind] = { p50: of('p50'), p95: of('p95'), errors: runs.reduce((n, r) => n + r[kind].errors, 0) };
  }
  return { costs, runs };
}

interface Row {
  size: number;
  seedSeconds: number;
  /** The database's size once seeded, GB. */
  databaseGb: number;
  load: string;
  /** The median over the measure runs (measureMedian). */
  costs: Record<string, Cost>;
  runs: Record<string, Cost>[];
}

async function databaseGb(): Promise<number> {
  const db = await openBenchDatabase(1);
  try {
    const [row] = await queryRows<{ bytes: number }>(
      db.system,
      sql`select pg_database_size(current_database())::float8 as bytes`,
    );
    return Math.round((row.bytes / 1e9) * 100) / 100;
  } finally {
    await db.close();
  }
}

/** bench/seed-tenants.ts up to `n` organizations in all: its seconds (inserts and vacuum). */
async function addTenants(n: number): Promise<number> {
  const db = await openBenchDatabase(tenants.jobs + 1);
  try {
    const r = await seedTenants(db, { ...tenants, orgs: n }, log);
    return r.insertSeconds + r.vacuumSeconds;
  } finally {
    await db.close();
  }
}

function table(title: string, unit: string, rows: Row[]) {
  const heading = measureRuns > 1 ? `${title} — medians of ${measureRuns} measure runs` : title;
  const head = `| ${unit} | seed s | database GB | load | ${KINDS.map((k) => `${k} p50 / p95 ms`).join(' | ')} |`;
  const lines = rows.map(
    (r) =>
      `| ${r.size.toLocaleString('en')} | ${r.seedSeconds.toFixed(0)} | ${r.databaseGb} | ${r.load} | ${KINDS.map(
        (k) => {
          const c = r.costs[k];
          return c ? `${c.p50} / ${c.p95}${c.errors ? ` (${c.errors} errors)` : ''}` : '–';
        },
      ).join(' | ')} |`,
  );
  return [heading, '', head, `|${' --- |'.repeat(KINDS.length + 4)}`, ...lines].join('\n');
}

async function main() {
  if (backendName() !== 'postgres') log('note: the curves are meant for PostgreSQL (DATABASE_URL)');
  const cards: Row[] = [];
  const orgs: Row[] = [];
  const save = () =>
    writeFileSync(
      join(resultsDir, `growth-${backendName()}${label}.json`),
      `${JSON.stringify({ backend: backendName(), requests, measureRuns, tenants, cards, orgs }, null, 2)}\n`,
    );
  for (const n of cardSizes) {
    log(`one board of ${n} cards: seeding`);
    const seedSeconds = await seed([
      ...['--cards', String(n), '--contacts', '2000', '--orgs', '1', '--boards', '1', '--segments', '1'],
    ]);
    log(`seeded in ${seedSeconds.toFixed(0)} s; measuring`);
    const gb = await databaseGb();
    cards.push({ size: n, seedSeconds, databaseGb: gb, load: loadAverage(), ...(await measureMedian()) });
    save();
  }
  const freshSizes = Boolean(flags['fresh-sizes']);
  let seeded = 0;
  for (const n of orgSizes) {
    let seedSeconds = 0;
    if (freshSizes || seeded === 0) {
      log('the measured organization: seeding');
      seedSeconds += await seed([
        ...['--cards', String(orgCards), '--contacts', '1000', '--orgs', '1', '--boards', '1'],
        ...['--segments', '1'],
      ]);
    }
    log(
      `${n} organizations: seeding${seeded && !freshSizes ? ` (adding ${n - seeded} to the previous size's ${seeded})` : ''}`,
    );
    seedSeconds += await addTenants(n);
    seeded = n;
    log(`${n} organizations seeded in ${seedSeconds.toFixed(0)} s; measuring`);
    const gb = await databaseGb();
    orgs.push({ size: n, seedSeconds, databaseGb: gb, load: loadAverage(), ...(await measureMedian()) });
    save();
  }
  if (cards.length) console.log(`${table('One board growing (PostgreSQL)', 'cards', cards)}\n`);
  if (orgs.length)
    console.log(
      table(
        `Organizations growing (the measured one: ${orgCards} cards on one board; each other one ` +
          `${tenants.orgBoards} boards of ${tenants.boardCards} cards; ` +
          (freshSizes
            ? 'each size seeded afresh'
            : "each size adds to the previous one: seed s is that step's") +
          ')',
        'orgs',
        orgs,
      ),
    );
}

await main();
