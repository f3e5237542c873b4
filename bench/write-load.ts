/**
 * The database under writes (issue 35 item 1), on either backend (CRM_DATA_DIR or DATABASE_URL, seeded by
 * `npm run bench:seed`): writers create cards in the seeded board's entry phase at a rising target rate while
 * Kanban readers open the board (its structure, then the first page of every column, as the web app does). For each
 * step it prints the create rate reached, the creates' p95, and the Kanban reads' p50/p95. The sustained rate is the
 * highest step whose target is reached (≥ 95 %) with the reads' p95 under the budget (--budget, 250 ms).
 *
 *   npx tsx bench/write-load.ts [--rates 10,20,40,80,160] [--seconds 15] [--writers 8] [--readers 2]
 *                               [--budget 250] [--port 18341]
 *
 * The service runs as its own process (bin/crm.js serve: build first) so that the load does not share its event
 * loop; created cards are removed afterwards (the seeded data stays as it was).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { endpoints, headers } from './endpoints.js';
import {
  backendName,
  loadAverage,
  numberFlag,
  parseFlags,
  percentile,
  readMeta,
  removeCreatedCards,
  resultsDir,
  startServiceProcess,
  stopService,
} from './lib.js';

const flags = parseFlags(process.argv.slice(2));
const rates = String(flags.rates ?? '10,20,40,80,160')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const seconds = numberFlag(flags, 'seconds', 15);
const writers = numberFlag(flags, 'writers', 8);
const readers = numberFlag(flags, 'readers', 2);
const budgetMs = numberFlag(flags, 'budget', 250);
const port = numberFlag(flags, 'port', 18_341);
const base = `http://127.0.0.1:${port}`;
const log = (msg: string) => console.error(`[write-load ${new Date().toISOString().slice(11, 19)}] ${msg}`);

interface Step {
  target: number;
  reached: number;
  creates: number;
  createErrors: number;
  createP95: number;
  reads: number;
  readErrors: number;
  readP50: number;
  readP95: number;
}

async function timed(path: string, init: RequestInit): Promise<{ ms: number; ok: boolean }> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${base}${path}`, init);
    await res.arrayBuffer();
    return { ms: performance.now() - t0, ok: res.ok };
  } catch {
    return { ms: performance.now() - t0, ok: false };
  }
}

async function main() {
  const meta = readMeta();
  const h = headers(meta);
  const b = meta.board.documentId;
  const columns = [...meta.board.phases].sort((x, y) => x.order - y.order);
  const entry = columns[0];
  // The create of the throughput bench (its required fields and tags): one request shape for both benches.
  const create = endpoints(meta, new Set(['cards-create'])).find((e) => e.name === 'cards-create')!;
  const service = await startServiceProcess(port);
  const steps: Step[] = [];
  try {
    const entryCount = await fetch(
      `${base}/api/boards/${b}/cards?filters[currentPhase][documentId][%24eq]=${entry.documentId}&pagination[pageSize]=1&stats=false`,
      { headers: h },
    ).then(async (r) => ((await r.json()) as any).meta?.pagination?.total as number);
    log(
      `${backendName()}: entry phase "${entry.slug}" holds ${entryCount} cards; ${writers} writers, ${readers} readers`,
    );
    // Warm up: plans, caches, connections.
    for (let i = 0; i < 20; i++) await timed(`/api/boards/${b}`, { headers: h });

    for (const target of rates) {
      const until = performance.now() + seconds * 1000;
      const interval = 1000 / target;
      let nextAt = performance.now();
      const createMs: number[] = [];
      const readMs: number[] = [];
      let createErrors = 0;
      let readErrors = 0;
      // Open loop: each writer takes the next slot of the schedule, so the rate does not bend to the latency.
      const writer = async () => {
        for (;;) {
          const at = nextAt;
          nextAt += interval;
          if (at >= until) return;
          const wait = at - performance.now();
          if (wait > 0) await sleep(wait);
          const request = create.request();
          const r = await timed(request.path, {
            method: request.method,
            headers: h,
            body: JSON.stringify(request.body),
          });
          createMs.push(r.ms);
          if (!r.ok) createErrors++;
        }
      };
      const reader = async () => {
        while (performance.now() < until) {
          const structure = await timed(`/api/boards/${b}`, { headers: h });
          const pages = await Promise.all(
            columns.map((p) =>
              timed(
                `/api/boards/${b}/cards?filters[currentPhase][documentId][%24eq]=${p.documentId}&pagination[page]=1&pagination[pageSize]=25`,
                { headers: h },
              ),
            ),
          );
          for (const r of [structure, ...pages]) {
            readMs.push(r.ms);
            if (!r.ok) readErrors++;
          }
        }
      };
      const started = performance.now();
      await Promise.all([
        ...Array.from({ length: writers }, writer),
        ...Array.from({ length: readers }, reader),
      ]);
      const elapsed = (performance.now() - started) / 1000;
      const step: Step = {
        target,
        reached: Math.round(((createMs.length - createErrors) / elapsed) * 10) / 10,
        creates: createMs.length,
        createErrors,
        createP95: Math.round(percentile(createMs, 0.95)),
        reads: readMs.length,
        readErrors,
        readP50: Math.round(percentile(readMs, 0.5)),
        readP95: Math.round(percentile(readMs, 0.95)),
      };
      steps.push(step);
      log(
        `target ${target}/s: reached ${step.reached}/s, create p95 ${step.createP95} ms, Kanban reads p50 ${step.readP50} / p95 ${step.readP95} ms`,
      );
      // A rate far out of reach: the next steps would only queue more.
      if (step.reached < target * 0.5) break;
    }
  } finally {
    await stopService(service);
    log(await removeCreatedCards(meta));
  }

  const sustained = steps.filter((s) => s.reached >= s.target * 0.95 && s.readP95 <= budgetMs).at(-1);
  const rows = steps.map(
    (s) =>
      `| ${s.target} | ${s.reached} | ${s.createErrors} | ${s.createP95} | ${s.readP50} | ${s.readP95} | ${s.readErrors} |`,
  );
  console.log(
    [
      `## Cards created under Kanban reads — ${backendName()} (load ${loadAverage()}, ${writers} writers, ${readers} readers, ${seconds} s a step)`,
      '',
      '| target creates/s | reached/s | create errors | create p95 ms | Kanban read p50 ms | Kanban read p95 ms | read errors |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      sustained
        ? `Sustained: ${sustained.target} creates/s with the Kanban's reads at p95 ${sustained.readP95} ms (budget ${budgetMs} ms).`
        : `No step met its rate with the Kanban's reads under ${budgetMs} ms at p95.`,
    ].join('\n'),
  );
  writeFileSync(
    join(resultsDir, `write-load-${backendName()}.json`),
    `${JSON.stringify({ at: new Date().toISOString(), budgetMs, writers, readers, seconds, steps, sustained }, null, 2)}\n`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
