/**
 * The other organizations of the growth curve (issue 35 item 5), fast: beside a data set written by bench/seed.ts
 * (the measured organization bench-0, `--orgs 1`), organizations bench-<n> up to `--orgs` in all, each with
 * `--org-boards` boards (default 100) copied from bench-0's main board (its phases, fields and tags),
 * `--board-cards` cards per board (5) with tags and assignees, `--org-members` members (4: an owner, an admin,
 * members; a user each, one precomputed password hash) and `--org-contacts` contacts (20). Set-based SQL
 * (bench/seed-tenants-sql.ts), one transaction per `--batch` organizations (500), `--jobs` transactions at a time
 * (1), then VACUUM ANALYZE. Organizations already there count towards `--orgs`: a larger size adds to a smaller one.
 *
 *   DATABASE_URL=postgres://…/scratch npx tsx bench/seed.ts --fresh --orgs 1 --boards 1 --cards 2000 …
 *   DATABASE_URL=postgres://…/scratch npx tsx bench/seed-tenants.ts --orgs 1000 [--board-cards 5] [--verify]
 *
 * It writes as the connection's role, which must see every row (superuser or BYPASSRLS: the rows of 500
 * organizations go in one statement). The foreign-key checks and the triggers are skipped and what the triggers
 * keep is written alongside; `--through-triggers` lets them run instead, about half as fast
 * (bench/seed-tenants-derived.ts). `--verify` then reads a random seeded organization through the service and
 * checks its counts, rollups and references (bench/seed-tenants-verify.ts). `--timings` prints the seconds each
 * statement kind took over all batches; SEED_TENANTS_EXPLAIN=<ms> prints the plans of the slower ones.
 * About 2.4 MB of database per organization with the defaults (bench/seed.ts's board: 6 phases, 10 fields, 12 tags).
 */
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { type SQL, sql } from 'drizzle-orm';
import { hashPassword } from '../src/platform/auth/passwords.js';
import { type Database, queryRows, type Tx } from '../src/platform/db/client.js';
import { inPool, numberFlag, openBenchDatabase, parseFlags } from './lib.js';
import { batchPrologue, type DerivedMode, derivedStatements } from './seed-tenants-derived.js';
import { batchStatements, type Template } from './seed-tenants-sql.js';
import { verifyTenants } from './seed-tenants-verify.js';

export interface TenantOptions {
  /** Organizations wanted in all (bench-0 and those already there included). */
  orgs: number;
  orgBoards: number;
  boardCards: number;
  orgMembers: number;
  orgContacts: number;
  /** Organizations per transaction. */
  batch: number;
  /** Transactions at a time (each on a connection of its own). */
  jobs: number;
  seed: number;
  /** The template board: bench-0's `vendas` (bench/seed.ts's main board). */
  templateOrg: string;
  templateBoard: string;
  /** How the rows the triggers keep are written (bench/seed-tenants-derived.ts). */
  mode: DerivedMode;
}

export const tenantDefaults: TenantOptions = {
  orgs: 10,
  orgBoards: 100,
  boardCards: 5,
  orgMembers: 4,
  orgContacts: 20,
  batch: 500,
  jobs: 1,
  seed: 42,
  templateOrg: 'bench-0',
  templateBoard: 'vendas',
  mode: 'direct',
};

export interface TenantSeedResult {
  /** Organizations before and after (slug bench-<n>). */
  before: number;
  after: number;
  /** Seconds of the batches and of the VACUUM ANALYZE after them. */
  insertSeconds: number;
  vacuumSeconds: number;
  /** Seconds per statement kind, summed over the batches. */
  timings: Record<string, number>;
}

async function readTemplate(db: Database, o: TenantOptions): Promise<Template> {
  const [board] = await queryRows<{
    orgId: number;
    boardId: number;
    won: string | null;
    lost: string | null;
  }>(
    db.system,
    sql`select b.organization_id as "orgId", b.id as "boardId",
          (select slug from phases p where p.organization_id = b.organization_id and p.id = b.won_phase_id) as won,
          (select slug from phases p where p.organization_id = b.organization_id and p.id = b.lost_phase_id) as lost
        from boards b join organizations o on o.id = b.organization_id
        where o.slug = ${o.templateOrg} and b.slug = ${o.templateBoard}`,
  );
  if (!board)
    throw new Error(
      `no board ${o.templateOrg}/${o.templateBoard}: run bench/seed.ts (--orgs 1) on this database first`,
    );
  const phases = await queryRows<{ slug: string; transitions: number }>(
    db.system,
    sql`select slug, jsonb_array_length(allowed_transitions) as transitions from phases
        where organization_id = ${board.orgId} and board_id = ${board.boardId} order by "order"`,
  );
  const [extra] = await queryRows<{ conditions: number; tags: number }>(
    db.system,
    sql`select (select count(*)::int from field_conditions where organization_id = ${board.orgId} and board_id = ${board.boardId}) as conditions,
          (select count(*)::int from tags where organization_id = ${board.orgId} and board_id = ${board.boardId}) as tags`,
  );
  // Both name the template's own phases and fields: a copy would need their ids mapped, which the seed does not do.
  if (extra.conditions > 0 || phases.some((p) => p.transitions > 0))
    throw new Error(
      'the template board has field conditions or allowed transitions: not copied by this seeder',
    );
  return {
    orgId: board.orgId,
    boardId: board.boardId,
    wonSlug: board.won,
    lostSlug: board.lost,
    phaseSlugs: phases.map((p) => p.slug),
    tagCount: extra.tags,
  };
}

/**
 * The server's process that runs the seed gets the lowest CPU priority when the server is on this machine (a bench
 * machine others measure on: `nice` on this process would not reach the work it asks of PostgreSQL). Best effort.
 */
function renice(pid: number) {
  if (!/@(127\.0\.0\.1|localhost)[:/]/.test(process.env.DATABASE_URL ?? '')) return;
  spawnSync('renice', ['-n', '19', '-p', String(pid)], { stdio: 'ignore' });
}

async function reniceBackend(tx: Tx) {
  const [row] = await queryRows<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`);
  renice(row.pid);
}

/** The bench organizations already there: how many, and the highest ordinal. */
async function existingOrganizations(db: Database) {
  const [row] = await queryRows<{ count: number; last: number }>(
    db.system,
    sql`select count(*)::int as count, coalesce(max(substr(slug, 7)::int), -1) as last
        from organizations where slug ~ '^bench-[0-9]+$'`,
  );
  return row;
}

/** One batch of organizations, bench-`from` … bench-`to`, in one transaction. */
async function runBatch(
  db: Database,
  o: TenantOptions,
  template: Template,
  b: { from: number; to: number; passwordHash: string },
  timings: Record<string, number>,
) {
  const statements = [
    ...batchPrologue(o.mode),
    // The batch's sorts and hashes in memory (4 MB by default here: the cards' sort spilled to disk).
    ['work_mem', sql.raw(`set local work_mem = '64MB'`)] as [string, SQL],
    // JIT compiles each statement's expressions again (~0.1 s a statement here) for a plan that runs once.
    ['jit', sql.raw('set local jit = off')] as [string, SQL],
    ...batchStatements(
      {
        ...b,
        boards: o.orgBoards,
        cards: o.boardCards,
        members: o.orgMembers,
        contacts: o.orgContacts,
        seed: (((o.seed * 7919 + b.from) % 20_000) - 10_000) / 10_000,
      },
      template,
    ),
    ...derivedStatements(o.mode),
  ];
  await db.system.transaction(async (tx) => {
    await reniceBackend(tx);
    // SEED_TENANTS_EXPLAIN=<ms>: the plans of the statements (the triggers' included) slower than that, on stderr.
    if (process.env.SEED_TENANTS_EXPLAIN)
      for (const s of [
        "load 'auto_explain'",
        `set local auto_explain.log_min_duration = ${Number(process.env.SEED_TENANTS_EXPLAIN)}`,
        'set local auto_explain.log_nested_statements = on',
        'set local auto_explain.log_analyze = on',
        'set local auto_explain.log_level = notice',
      ])
        await tx.execute(sql.raw(s));
    for (const [name, query] of statements) {
      const ts = performance.now();
      await tx.execute(query);
      timings[name] = (timings[name] ?? 0) + (performance.now() - ts) / 1000;
    }
  });
}

/** Adds organizations until there are `o.orgs` bench organizations; see the file's comment. */
export async function seedTenants(
  db: Database,
  o: TenantOptions,
  log: (msg: string) => void = console.error,
): Promise<TenantSeedResult> {
  const [role] = await queryRows<{ all: boolean }>(
    db.system,
    sql`select rolsuper or rolbypassrls as all from pg_roles where rolname = current_user`,
  );
  if (!role?.all)
    throw new Error('seed-tenants writes many organizations per statement: connect as a superuser');
  const template = await readTemplate(db, o);
  const { count: before, last } = await existingOrganizations(db);
  const toAdd = Math.max(0, o.orgs - before);
  const timings: Record<string, number> = {};
  const passwordHash = await hashPassword('bench-password');
  const t0 = performance.now();
  log(
    `seed-tenants: ${before} organizations there, adding ${toAdd} (${o.orgBoards} boards × ${o.boardCards} cards, ` +
      `${o.orgMembers} members, ${o.orgContacts} contacts each) in batches of ${o.batch}, ${o.jobs} at a time, ${o.mode}`,
  );
  const batches = Math.ceil(toAdd / o.batch);
  let done = 0;
  await inPool(Math.max(1, o.jobs), batches, async (i) => {
    const from = last + 1 + i * o.batch;
    const to = Math.min(last + toAdd, from + o.batch - 1);
    const tb = performance.now();
    await runBatch(db, o, template, { from, to, passwordHash }, timings);
    done += to - from + 1;
    const elapsed = (performance.now() - t0) / 1000;
    log(
      `  bench-${from}…bench-${to}: ${((performance.now() - tb) / 1000).toFixed(1)} s ` +
        `(${done}/${toAdd}, ${elapsed.toFixed(0)} s so far, ~${((elapsed / done) * (toAdd - done)).toFixed(0)} s left)`,
    );
  });
  const insertSeconds = (performance.now() - t0) / 1000;
  const tv = performance.now();
  if (toAdd > 0) {
    log('seed-tenants: vacuum analyze');
    // On a connection of its own (VACUUM runs outside a transaction), reniced as the batches' were.
    const client = await db.pool!.connect();
    try {
      const { rows } = await client.query('select pg_backend_pid() as pid');
      renice(rows[0].pid);
      await client.query('vacuum analyze');
    } finally {
      client.release();
    }
  }
  const vacuumSeconds = (performance.now() - tv) / 1000;
  const [size] = await queryRows<{ size: string }>(
    db.system,
    sql`select pg_size_pretty(pg_database_size(current_database())) as size`,
  );
  log(
    `seed-tenants: ${before + toAdd} organizations; ${insertSeconds.toFixed(0)} s of inserts, ` +
      `${vacuumSeconds.toFixed(0)} s of vacuum; database ${size.size}`,
  );
  return { before, after: before + toAdd, insertSeconds, vacuumSeconds, timings };
}

export function tenantOptions(flags: Record<string, string | true>, base = tenantDefaults): TenantOptions {
  return {
    orgs: numberFlag(flags, 'orgs', base.orgs),
    orgBoards: Math.max(1, numberFlag(flags, 'org-boards', base.orgBoards)),
    boardCards: numberFlag(flags, 'board-cards', base.boardCards),
    orgMembers: Math.max(1, numberFlag(flags, 'org-members', base.orgMembers)),
    orgContacts: numberFlag(flags, 'org-contacts', base.orgContacts),
    batch: Math.max(1, numberFlag(flags, 'batch', base.batch)),
    jobs: Math.max(1, numberFlag(flags, 'jobs', base.jobs)),
    seed: numberFlag(flags, 'seed', base.seed),
    templateOrg: typeof flags['template-org'] === 'string' ? flags['template-org'] : base.templateOrg,
    templateBoard: typeof flags['template-board'] === 'string' ? flags['template-board'] : base.templateBoard,
    mode: flags['through-triggers'] ? 'triggers' : base.mode,
  };
}

async function main() {
  const flags = parseFlags(process.argv.slice(2));
  const opts = tenantOptions(flags);
  const db = await openBenchDatabase(10);
  if (process.env.SEED_TENANTS_EXPLAIN)
    db.pool?.on('connect', (client) => client.on('notice', (n) => console.error(n.message)));
  try {
    const result = await seedTenants(db, opts);
    if (flags.timings)
      for (const [name, s] of Object.entries(result.timings).sort((a, b) => b[1] - a[1]))
        console.error(`${s.toFixed(1).padStart(8)} s  ${name}`);
    if (flags.verify && !(await verifyTenants(db, opts))) process.exitCode = 1;
  } finally {
    await db.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
