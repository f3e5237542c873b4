/**
 * Write soak of the card counts on PostgreSQL (docs/postgresql.md): card creates, moves, deletes and whole-board
 * lists through the API (app.inject, no sockets) from a few concurrent loops, for `--seconds`, printing per
 * window the requests/s and what the bookkeeping tables hold. Made for a server with autovacuum off, to see
 * what the maintenance (src/platform/db/maintenance.ts) changes:
 *
 *   DATABASE_URL=postgres://…/fresh_db npx tsx bench/soak-counts.ts --maintenance off --seconds 120
 *   DATABASE_URL=postgres://…/fresh_db npx tsx bench/soak-counts.ts --maintenance on --seconds 120
 *
 * Use a fresh database for each run (the numbers include the tables' growth).
 */
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { databaseOptions, loadConfig } from '../src/config.js';
import { modules } from '../src/modules.js';
import { openDatabase, queryRows } from '../src/platform/db/client.js';
import { runMaintenance } from '../src/platform/db/maintenance.js';
import { migrateDatabase } from '../src/platform/db/migrate.js';
import { newTenant } from '../test/helpers/app.js';
import { mulberry32, parseFlags, pick, weighted } from './lib.js';

const flags = parseFlags(process.argv.slice(2));
const seconds = Number(flags.seconds ?? 120);
const windowSeconds = Number(flags.window ?? 20);
const loops = Number(flags.connections ?? 4);
const maintain = flags.maintenance === 'on';
const interval = Number(flags.interval ?? 30);
if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL: the soak is about PostgreSQL');

const config = loadConfig({ ...process.env, CRM_LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false' });
const db = await openDatabase(databaseOptions(config));
await migrateDatabase(db, modules);
const app = await buildApp({ config, db });
await app.ready();
const t = await newTenant(app);
const created = await t.api.post('/boards', {
  data: { name: 'Soak', phases: ['Open', 'Working', 'Done'].map((name) => ({ name })) },
});
const boardId: string = created.body.documentId;
const phases: string[] = created.body.phases.map((p: { documentId: string }) => p.documentId);

type Op = 'create' | 'move' | 'delete' | 'list';
const mix: [Op, number][] = [
  ['create', 40],
  ['move', 30],
  ['delete', 20],
  ['list', 10],
];
let done = 0;
let errors = 0;
const deadline = Date.now() + seconds * 1000;

async function loop(seed: number) {
  const rng = mulberry32(seed);
  const live: string[] = [];
  while (Date.now() < deadline) {
    let op = weighted(rng, mix);
    if (op !== 'create' && op !== 'list' && live.length < 20) op = 'create';
    let status: number;
    if (op === 'create') {
      const res = await t.api.post(`/boards/${boardId}/cards`, {
        data: {
          title: `soak ${done}`,
          value: Math.round(rng() * 10_000),
          currentPhase: pick(rng, phases),
          dueDate: new Date(Date.now() + Math.floor(rng() * 30 - 10) * 86_400_000).toISOString(),
        },
      });
      status = res.status;
      if (status === 201) live.push(res.body.documentId);
    } else if (op === 'move') {
      const res = await t.api.post(`/boards/${boardId}/cards/${pick(rng, live)}/move`, {
        phase: pick(rng, phases),
      });
      status = res.status === 422 ? 200 : res.status;
    } else if (op === 'delete') {
      const id = live.splice(Math.floor(rng() * live.length), 1)[0];
      status = (await t.api.delete(`/boards/${boardId}/cards/${id}`)).status;
    } else {
      status = (await t.api.get(`/boards/${boardId}/cards`, { 'pagination[pageSize]': 1 })).status;
    }
    if (status >= 300) errors++;
    done++;
  }
}

async function tables() {
  return queryRows<Record<string, number | string>>(
    db.system,
    sql`select relname as table, n_live_tup::int as live, n_dead_tup::int as dead,
               (pg_relation_size(relid) / 8192)::int as pages,
               (pg_indexes_size(relid) / 8192)::int as "indexPages",
               n_tup_upd::int as updates, n_tup_hot_upd::int as "hotUpdates"
        from pg_stat_user_tables where relname in ('card_count_deltas', 'card_counts') order by relname`,
  );
}

const runs: { ms: number; folded: number }[] = [];
const timer = maintain
  ? setInterval(async () => {
      const r = await runMaintenance(db, modules, { vacuum: true });
      if (r) runs.push({ ms: r.ms, folded: Number(r.folded) });
    }, interval * 1000)
  : undefined;

const started = Date.now();
const workers = Array.from({ length: loops }, (_, i) => loop(1000 + i));
let last = 0;
console.log(`maintenance ${maintain ? `on (every ${interval} s)` : 'off'}, ${loops} loops, ${seconds} s`);
while (Date.now() < deadline) {
  await new Promise((r) => setTimeout(r, windowSeconds * 1000));
  const rps = (done - last) / windowSeconds;
  last = done;
  const elapsed = Math.round((Date.now() - started) / 1000);
  console.log(`t=${elapsed}s req/s=${rps.toFixed(1)} errors=${errors}`, JSON.stringify(await tables()));
}
await Promise.all(workers);
if (timer) clearInterval(timer);
console.log(
  `total ${done} requests, ${(done / seconds).toFixed(1)} req/s, maintenance runs: ${runs.length}`,
  runs.length ? `ms ${Math.min(...runs.map((r) => r.ms))}–${Math.max(...runs.map((r) => r.ms))}` : '',
  runs.length ? `folded/run ≤ ${Math.max(...runs.map((r) => r.folded))}` : '',
);
await app.close();
await db.close();
