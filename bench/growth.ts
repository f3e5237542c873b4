/**
 * Growth curves (issue 35 item 5): the cost of one request of each kind (phase list, title search, page 400,
 * report, create, move) as one board grows (--cards, default 10,000 and 100,000; 1,000,000 when asked) and as the
 * organizations beside it grow in number (--orgs, default 10 and 1,000). Each size is a fresh data set written by
 * bench/seed.ts (its bulk batches: the fastest seeding the repo has), then the service in this process answers
 * --requests sequential requests of each kind (after 3 unmeasured ones) for the largest organization's main
 * board: p50 and p95 per size, printed as tables and saved in bench/results/growth-<backend>.json.
 *
 *   DATABASE_URL=postgres://…/scratch npx tsx bench/growth.ts [--cards 10000,100000] [--orgs 10,1000]
 *     [--requests 40] [--skip-orgs] [--skip-cards]
 *
 * It WIPES the database it is given (seed.ts --fresh), once per size: give it a database of its own.
 * The organizations' curve keeps the largest organization at --org-cards (2,000) cards; each other one gets
 * seed.ts's small share (50 cards, 20 contacts, one board).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
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
  resultsDir,
  rootDir,
} from './lib.js';

// The service's request log would be measured with the requests: warnings only, as the other benches.
process.env.CRM_LOG_LEVEL ??= 'warn';
const flags = parseFlags(process.argv.slice(2));
const list = (name: string, fallback: number[]) =>
  typeof flags[name] === 'string' ? (flags[name] as string).split(',').map(Number) : fallback;
const cardSizes = flags['skip-cards'] ? [] : list('cards', [10_000, 100_000]);
const orgSizes = flags['skip-orgs'] ? [] : list('orgs', [10, 1_000]);
const requests = numberFlag(flags, 'requests', 40);
const orgCards = numberFlag(flags, 'org-cards', 2_000);
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

interface Row {
  size: number;
  seedSeconds: number;
  load: string;
  costs: Record<string, Cost>;
}

function table(title: string, unit: string, rows: Row[]) {
  const head = `| ${unit} | seed s | load | ${KINDS.map((k) => `${k} p50 / p95 ms`).join(' | ')} |`;
  const lines = rows.map(
    (r) =>
      `| ${r.size.toLocaleString('en')} | ${r.seedSeconds.toFixed(0)} | ${r.load} | ${KINDS.map((k) => {
        const c = r.costs[k];
        return c ? `${c.p50} / ${c.p95}${c.errors ? ` (${c.errors} errors)` : ''}` : '–';
      }).join(' | ')} |`,
  );
  return [`${title}`, '', head, `|${' --- |'.repeat(KINDS.length + 3)}`, ...lines].join('\n');
}

async function main() {
  if (backendName() !== 'postgres') log('note: the curves are meant for PostgreSQL (DATABASE_URL)');
  const cards: Row[] = [];
  const orgs: Row[] = [];
  const save = () =>
    writeFileSync(
      join(resultsDir, `growth-${backendName()}.json`),
      `${JSON.stringify({ backend: backendName(), requests, cards, orgs }, null, 2)}\n`,
    );
  for (const n of cardSizes) {
    log(`one board of ${n} cards: seeding`);
    const seedSeconds = await seed([
      ...['--cards', String(n), '--contacts', '2000', '--orgs', '1', '--boards', '1', '--segments', '1'],
    ]);
    log(`seeded in ${seedSeconds.toFixed(0)} s; measuring`);
    cards.push({ size: n, seedSeconds, load: loadAverage(), costs: await measure() });
    save();
  }
  for (const n of orgSizes) {
    log(`${n} organizations: seeding`);
    const seedSeconds = await seed([
      ...['--cards', String(orgCards), '--contacts', '1000', '--orgs', String(n), '--boards', '1'],
      ...['--segments', '1'],
    ]);
    log(`seeded in ${seedSeconds.toFixed(0)} s; measuring`);
    orgs.push({ size: n, seedSeconds, load: loadAverage(), costs: await measure() });
    save();
  }
  if (cards.length) console.log(`${table('One board growing (PostgreSQL)', 'cards', cards)}\n`);
  if (orgs.length)
    console.log(table(`Organizations growing (the measured one: ${orgCards} cards)`, 'orgs', orgs));
}

await main();
