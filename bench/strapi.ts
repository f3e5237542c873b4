/**
 * npm run bench:strapi [-- --runs 3 --duration 10 --connections 10 --only cards-list,cards-create --setup]
 *
 * Issue 35 item 6: our service side by side with a stock Strapi v5 application on the same machine and the same
 * PostgreSQL server, the same rows in both (the largest organization's main board: 200,000 cards, its phases,
 * and its 100,000 contacts). Our side is crm_bench (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
 * crm_bench, seeded by `npm run bench:seed -- --fresh`); Strapi's app lives in `--strapi-dir` (default
 * ../strapi-bench), created when missing (bench/strapi/setup.ts: package.json with the newest installable
 * @strapi/strapi 5.x, `npm install` under nice, bench/strapi/app's config, bench/strapi/content-types' schemas,
 * draftAndPublish off, no custom controller or index), its database strapi_bench filled from crm_bench
 * (bench/strapi/seed.ts, set-based COPY; Strapi's own tables and indexes as it created them).
 *
 * Then: both services as their own processes (ours `bin/crm.js serve` as bench/run.ts starts it, Strapi
 * `strapi start` with NODE_ENV=production, the same pool of 10 connections), a check that both answer the five
 * requests with the same totals, and per run: VACUUM ANALYZE of both databases, then per endpoint autocannon on
 * ours, then on Strapi (warm-up first on each), then the next endpoint; the cards created are deleted on both
 * sides after every run. Before its warm-up and before its window, each cell waits until the service is idle:
 * no query running in its database (pg_stat_activity; the requests autocannon abandons at the end of a load keep
 * theirs running, Strapi's page 400 for up to 3 s) and its health path answering within 50 ms. A cell with
 * requests whose answer autocannon never read (sent − answered − errors above the number of connections), with a
 * timeout, whose connections sat waiting on nothing (the answers' latencies cover far less than connections ×
 * window), or measured from a service still busy, is failed, not printed as a throughput; the bench then exits 1. Medians (and ranges) over the runs, the ratio of the medians against the target;
 * bench/results/strapi-<time>.json. `--setup` only creates, seeds and checks; `--reseed` refills strapi_bench.
 * The medians' table also gives the ratio of connections ÷ mean latency (Little's law for a closed loop):
 * autocannon's req/s counts only the requests completed inside the window, and Strapi's slowest reads take 1–3 s
 * each here, a sizeable share of a 10 s window (its req/s is then under-counted, and the ratio flattered, by up
 * to latency ÷ duration); a longer --duration narrows the gap between the two columns.
 *
 * How the requests correspond (ours exactly as bench/endpoints.ts builds them; authenticated on both sides: our
 * API token + x-tenant-id, Strapi's full-access API token made at its bootstrap):
 *
 * | name          | ours                                                               | Strapi v5                                                                       |
 * |---------------|--------------------------------------------------------------------|---------------------------------------------------------------------------------|
 * | cards-list    | GET /api/boards/:b/cards?filters[currentPhase][documentId][$eq]=qualificação&pagination[page]=1&pagination[pageSize]=25 | GET /api/cards?filters[phase][documentId][$eq]=…&pagination[page]=1&pagination[pageSize]=25 |
 * | cards-title   | GET /api/boards/:b/cards?filters[title][$containsi]=globex        | GET /api/cards?filters[title][$containsi]=globex                                 |
 * | contacts-name | GET /api/contacts?filters[name][$containsi]=silva                 | GET /api/contacts?filters[name][$containsi]=silva                                |
 * | cards-create  | POST /api/boards/:b/cards (title, value, 3 fields, 2 tags)        | POST /api/cards (title, value, board, phase)                                     |
 * | cards-deep    | GET /api/boards/:b/cards?pagination[page]=400&pagination[pageSize]=25&stats=false | GET /api/cards?filters[board][documentId][$eq]=…&pagination[page]=400&pagination[pageSize]=25 |
 *
 * Differences: our lists also return relations of the page's cards and, for cards-list and cards-title,
 * `meta.stats` (count and value per phase of the matches), which Strapi has no equivalent of; Strapi returns the
 * cards' own fields only (no populate; the check table shows each answer's size). Ours sort by creation (newest
 * first); Strapi's requests, as the issue gives them, carry no sort, and Strapi then orders by id (ascending).
 * Our create also writes 3 dynamic fields and 2 tags, and its triggers keep the counts, the report rollups and the
 * title-search copy, plus the outbox; Strapi's writes the card and its two relation links. Our `$containsi` is
 * accent- and case-blind, Strapi's is `LOWER(col) LIKE LOWER('%…%')` (case-blind only): on these rows both find
 * the same totals (checked before measuring). Our service checks the tenant (organization) on every request;
 * Strapi's app has one. Strapi's request log (its stock `strapi::logger`, one line per request) goes to
 * <strapi-dir>/strapi.log; ours logs at warn.
 *
 * The relations are one-way (card → board, card → phase, phase → board: `manyToOne` without `inversedBy`), the
 * cheaper of Strapi's two shapes for a create. With the two-way shape the Content-Type Builder makes for "Board
 * has many Cards", Strapi keeps the order of each board's and each phase's cards in the link tables, and every
 * create first reads `max(card_ord)` over the board's 200,000 links (≈ 100 ms here): 10.9 creates/s against 32
 * one-way in two smoke runs on a loaded machine. The one-way shape measures Strapi's create, not that scan.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { endpoints, headers, load, loadEndpoint } from './endpoints.js';
import {
  machineInfo,
  numberFlag,
  parseFlags,
  readMeta,
  removeCreatedCards,
  resultsDir,
  rootDir,
  startServiceProcess,
  stopService,
} from './lib.js';
import {
  checkTable,
  checkTotals,
  failures,
  measureRun,
  medianRows,
  medianTable,
  type Row,
  runTable,
  type Side,
} from './strapi/measure.js';
import { type Pair, pairNames, pairs, strapiHeaders } from './strapi/requests.js';
import { checkShape, removeStrapiCreates, seedStrapi, vacuumAnalyze } from './strapi/seed.js';
import {
  ensureStrapiApp,
  ensureStrapiDatabase,
  type StrapiProcess,
  startStrapi,
  strapiDatabaseUrl,
} from './strapi/setup.js';

const flags = parseFlags(process.argv.slice(2));
const runs = Math.max(1, numberFlag(flags, 'runs', 3));
const duration = numberFlag(flags, 'duration', 10);
const warmup = numberFlag(flags, 'warmup', 2);
const connections = Math.max(1, numberFlag(flags, 'connections', 10));
const port = numberFlag(flags, 'port', 18_337);
const strapiPort = numberFlag(flags, 'strapi-port', 1337);
const strapiDirFlag = typeof flags['strapi-dir'] === 'string' ? flags['strapi-dir'] : '../strapi-bench';
const strapiDir = isAbsolute(strapiDirFlag) ? strapiDirFlag : join(rootDir, strapiDirFlag);
const only = typeof flags.only === 'string' ? new Set(flags.only.split(',')) : null;
/** Create, seed and check, then stop: no measurement. */
const setupOnly = !!flags.setup;
/** Refill strapi_bench even when its counts already match. */
const reseed = !!flags.reseed;
/** Measure even when the two sides' totals differ. */
const noCheck = !!flags['no-check'];

// Our side's database unless told otherwise (lib.js reads DATABASE_URL when it loads the configuration).
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/crm_bench';
const crmUrl = process.env.DATABASE_URL;

const log = (msg: string) => console.error(`[bench:strapi ${new Date().toISOString().slice(11, 19)}] ${msg}`);

for (const name of only ?? [])
  if (!pairNames.includes(name as Pair['name']))
    throw new Error(`--only: unknown endpoint ${name} (${pairNames.join(', ')})`);

/** Both services' creates removed, so every run measures the same rows. */
async function removeCreates(meta: ReturnType<typeof readMeta>) {
  log(`ours: ${await removeCreatedCards(meta)}; strapi: removed ${await removeStrapiCreates()} cards`);
}

async function vacuumBoth() {
  log(
    `vacuum analyze: crm_bench ${(await vacuumAnalyze(crmUrl)).toFixed(1)} s, strapi_bench ${(await vacuumAnalyze(strapiDatabaseUrl)).toFixed(1)} s`,
  );
}

function sides(
  meta: ReturnType<typeof readMeta>,
  oursPid: number | undefined,
  strapi: StrapiProcess,
): [Side, Side] {
  const h = strapiHeaders(strapi.token);
  return [
    {
      name: 'ours',
      port,
      health: '/api/health',
      databaseUrl: crmUrl,
      pid: oursPid,
      headers: headers(meta),
      request: (p) => p.ours.request(),
      // Exactly bench/run.ts's load: bench/endpoints.ts's request and headers.
      load: (p, c, s) => loadEndpoint(port, meta, p.ours, c, s),
    },
    {
      name: 'strapi',
      port: strapiPort,
      health: '/_health',
      databaseUrl: strapiDatabaseUrl,
      pid: strapi.child.pid,
      headers: h,
      request: (p) => p.strapi(),
      load: (p, c, s) => load(strapiPort, h, p.strapi, c, s),
    },
  ];
}

/** Resolves to the number of failed cells (the exit code is 1 when there are any). */
async function main(): Promise<number> {
  const meta = readMeta();
  ensureStrapiApp(strapiDir, log);
  await ensureStrapiDatabase(log);
  log('strapi: starting');
  const strapi = await startStrapi(strapiDir, strapiPort);
  log(`strapi ${strapi.version}: pid ${strapi.child.pid} on port ${strapiPort}`);
  let ours: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  try {
    await seedStrapi(crmUrl, meta, reseed, log);
    if (!existsSync(join(rootDir, 'dist', 'cli.js'))) {
      // bin/crm.js serves the build when there is one (as bench/run.ts measures it).
      log('ours: dist/ is missing: npm run build (under nice)');
      const built = spawnSync('nice', ['-n', '19', 'npm', 'run', 'build'], {
        cwd: rootDir,
        stdio: 'inherit',
      });
      if (built.status !== 0) throw new Error(`npm run build failed (exit ${built.status})`);
    }
    ours = await startServiceProcess(port, { DATABASE_URL: crmUrl });
    log(`ours: pid ${ours.pid} on port ${port}`);
    const list = pairs(meta, endpoints(meta), only);
    const both = sides(meta, ours.pid, strapi);

    await removeCreates(meta);
    const checks = await checkTotals(pairs(meta, endpoints(meta), null), both);
    console.log(`\n### Same rows on both sides\n\n${checkTable(checks)}\n`);
    const shape = await checkShape();
    if (shape) log(`strapi: the copied rows differ from the one Strapi wrote: ${shape}`);
    await removeCreates(meta);
    if ((checks.some((c) => !c.same) || shape) && !noCheck)
      throw new Error('the two sides do not hold the same rows (above); --no-check measures anyway');
    if (setupOnly) return 0;

    log(
      `${list.length} endpoints × ${connections} connections × ${duration} s (warm-up ${warmup} s), ${runs} run(s)`,
    );
    const startLoad = loadavg();
    const allRuns: Row[][] = [];
    for (let run = 0; run < runs; run++) {
      await vacuumBoth();
      const rows = await measureRun(list, both, { connections, duration, warmup }, log);
      await removeCreates(meta);
      allRuns.push(rows);
      console.log(
        `\n### Ours ÷ Strapi ${strapi.version}, run ${run + 1}/${runs}\n\n${runTable(rows, list)}\n`,
      );
    }
    const med = medianRows(allRuns);
    console.log(
      `\n### Ours ÷ Strapi ${strapi.version}, median of ${runs} run(s), ${connections} connections, ${duration} s each\n\n${medianTable(med, list)}\n`,
    );
    const file = join(resultsDir, `strapi-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          strapi: { version: strapi.version, dir: strapiDir, database: 'strapi_bench' },
          ours: { database: new URL(crmUrl).pathname.slice(1) },
          loadAverage: { start: startLoad, end: loadavg() },
          machine: machineInfo(),
          options: { runs, duration, warmup, connections },
          dataSet: { ...meta.options, counts: meta.counts },
          checks,
          requests: list.map((p) => ({
            name: p.name,
            label: p.label,
            target: p.target,
            ours: p.ours.request(),
            strapi: p.strapi(),
          })),
          median: med.map((r) => ({
            ...r,
            ratio: r.ours.failed || r.strapi.failed ? null : r.ours.rps / r.strapi.rps,
          })),
          runs: allRuns,
        },
        null,
        2,
      )}\n`,
    );
    log(`wrote ${file}`);
    const failed = failures(allRuns);
    for (const f of failed) log(`FAILED ${f}`);
    if (failed.length > 0)
      log(`${failed.length} cell(s) failed: their counts are not throughputs (above); exit code 1`);
    return failed.length;
  } finally {
    if (ours) await stopService(ours);
    await stopService(strapi.child);
  }
}

const failedCells = await main();
// autocannon and the pg pools can keep the event loop alive for a while after the last run.
process.exit(failedCells > 0 ? 1 : 0);
