import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { countsOf } from '../../src/modules/cards/counts.js';
import { modules } from '../../src/modules.js';
import { queryRows } from '../../src/platform/db/client.js';
import {
  bookkeepingTables,
  readServerSettings,
  runMaintenance,
  settingsWarnings,
  startMaintenance,
} from '../../src/platform/db/maintenance.js';
import { type Api, getApp, newTenant, type Tenant } from '../helpers/app.js';

const onPostgres = !!process.env.DATABASE_URL;

async function board(api: Api) {
  const res = await api.post('/boards', {
    data: { name: `Soak ${Math.random().toString(36).slice(2, 8)}`, phases: [{ name: 'A' }, { name: 'B' }] },
  });
  expect(res.status).toBe(201);
  return res.body.documentId as string;
}

async function ids(t: Tenant, boardDocumentId: string) {
  const { db } = await getApp();
  const [row] = await queryRows<{ org: number; board: number; phases: number[] }>(
    db.system,
    sql`select b.organization_id::int as org, b.id::int as board,
               (select array_agg(p.id::int order by p."order") from phases p where p.board_id = b.id) as phases
        from boards b join organizations o on o.id = b.organization_id
        where o.slug = ${t.slug} and b.document_id = ${boardDocumentId}`,
  );
  return row;
}

/** The board's counts (card_counts + pending deltas) against the aggregate over its cards, per phase. */
async function expectCountsEqualCards(org: number, boardId: number) {
  const { db } = await getApp();
  await db.tenantTransaction(org, async (tx) => {
    const fromCounts = await queryRows<{ phase: number; n: number; v: number }>(
      tx,
      sql`select phase_id::int as phase, sum(card_count)::int as n, sum(value_sum)::float8 as v from (
            select phase_id, card_count, value_sum from card_counts where board_id = ${boardId}
            union all select phase_id, card_count, value_sum from card_count_deltas where board_id = ${boardId}
          ) c group by 1 having sum(card_count) <> 0 order by 1`,
    );
    const fromCards = await queryRows<{ phase: number; n: number; v: number }>(
      tx,
      sql`select coalesce(current_phase_id, 0)::int as phase, count(*)::int as n, sum(value)::float8 as v
          from cards where board_id = ${boardId} group by 1 order by 1`,
    );
    expect(fromCounts).toEqual(fromCards);
    const [{ total }] = await queryRows<{ total: number }>(
      tx,
      sql`select count(*)::int as total from cards where board_id = ${boardId}`,
    );
    expect((await countsOf(tx, org, boardId, null, null)).total).toBe(total);
  });
}

/** Heap pages of the delta table, and (with pgstattuple) its exact live and dead tuples. */
async function deltaTable() {
  const { db } = await getApp();
  const [size] = await queryRows<{ pages: number }>(
    db.system,
    sql`select (pg_relation_size('card_count_deltas') / 8192)::int as pages`,
  );
  const [ext] = await queryRows<{ ok: boolean }>(
    db.system,
    sql`select exists (select 1 from pg_extension where extname = 'pgstattuple') as ok`,
  );
  if (!ext.ok) return { ...size, tuples: null };
  const [tuples] = await queryRows<{ live: number; dead: number }>(
    db.system,
    sql`select tuple_count::int as live, dead_tuple_count::int as dead from pgstattuple('card_count_deltas')`,
  );
  return { ...size, tuples };
}

/**
 * One maintenance run that did its work: a run finds the lock taken when another test process's workers are in
 * their own periodic run (or a migration holds its lock), and answers null; try again, a bounded number of times.
 */
async function maintain(db: Parameters<typeof runMaintenance>[0], opts: { vacuum: boolean }) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const report = await runMaintenance(db, modules, opts);
    if (report) return report;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('maintenance: the lock stayed taken for 10 s');
}

describe('database maintenance (docs/postgresql.md)', () => {
  test('folds every board of every organization, as a role under RLS too, and the counts stay exact', async () => {
    const { db } = await getApp();
    const a = await newTenant();
    const b = await newTenant();
    const docs = [await board(a.api), await board(b.api)];
    const boards = [await ids(a, docs[0]), await ids(b, docs[1])];
    for (const [i, t] of [a, b].entries())
      for (let n = 0; n < 3; n++)
        expect(
          (await t.api.post(`/boards/${docs[i]}/cards`, { data: { title: `c${n}`, value: 10 * (i + 1) } }))
            .status,
        ).toBe(201);
    const pending = async (org: number, boardId: number) =>
      db.tenantTransaction(org, async (tx) => {
        const [r] = await queryRows<{ n: number }>(
          tx,
          sql`select count(*)::int as n from card_count_deltas where board_id = ${boardId}`,
        );
        return r.n;
      });
    // On a shared PostgreSQL database another process's periodic maintenance may fold these deltas first, so
    // their number here is not asserted; what must hold is that after the fold none is left and counts are exact.
    // As crm_app (not a superuser, no BYPASSRLS: the path of a non-superuser schema owner), one organization
    // at a time under its policy.
    await db.system.transaction(async (tx) => {
      await tx.execute(sql`set local role crm_app`);
      const [r] = await queryRows<{ n: number }>(tx, sql`select card_counts_fold_all(20000) as n`);
      expect(r.n).toBeGreaterThanOrEqual(0);
    });
    for (const x of boards) {
      expect(await pending(x.org, x.board)).toBe(0);
      await expectCountsEqualCards(x.org, x.board);
    }
    expect((await a.api.get(`/boards/${docs[0]}/cards`)).body.meta.stats.valueSum).toBe(30);
    expect((await b.api.get(`/boards/${docs[1]}/cards`)).body.meta.stats.valueSum).toBe(60);
    // And as the owner (runMaintenance): writes since then are folded too.
    await a.api.post(`/boards/${docs[0]}/cards`, { data: { title: 'late', value: 1 } });
    const report = await maintain(db, { vacuum: false });
    expect(report?.folded).toBeGreaterThanOrEqual(1);
    expect(await pending(boards[0].org, boards[0].board)).toBe(0);
    await expectCountsEqualCards(boards[0].org, boards[0].board);
  });

  test('deletes expired idempotency keys and keeps live ones', async () => {
    const { db } = await getApp();
    const t = await newTenant();
    const body = { data: { name: 'Keyed new' } };
    expect(
      (await t.api.post('/teams', { data: { name: 'Keyed old' } }, { 'idempotency-key': 'old' })).status,
    ).toBe(201);
    expect((await t.api.post('/teams', body, { 'idempotency-key': 'new' })).status).toBe(201);
    await db.system.execute(
      sql`update idempotency_keys set created_at = now() - interval '25 hours'
          where user_id = ${t.user.id} and key = 'old'`,
    );
    const report = await maintain(db, { vacuum: false });
    expect(report?.idempotencyKeysDeleted).toBeGreaterThanOrEqual(1);
    const left = await queryRows<{ key: string }>(
      db.system,
      sql`select key from idempotency_keys where user_id = ${t.user.id} order by key`,
    );
    expect(left.map((r) => r.key)).toEqual(['new']);
    // The live key still replays.
    const replay = await t.api.post('/teams', body, { 'idempotency-key': 'new' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  test('VACUUMs the bookkeeping tables that exist when asked', async () => {
    const { db } = await getApp();
    const report = await maintain(db, { vacuum: true });
    expect(report?.vacuumed).toEqual(
      expect.arrayContaining([
        'card_count_deltas',
        'card_counts',
        'idempotency_keys',
        // The search copies' GIN pending lists (every substring search reads them until a VACUUM).
        'card_title_search',
        'contact_name_search',
      ]),
    );
    for (const t of report!.vacuumed) expect(bookkeepingTables(modules)).toContain(t);
  });

  test.skipIf(!onPostgres)(
    'soak with autovacuum off: thousands of card writes, and the delta table stays a few pages',
    async () => {
      const { db } = await getApp();
      const [setting] = await queryRows<{ autovacuum: string }>(
        db.system,
        sql`select current_setting('autovacuum') as autovacuum`,
      );
      // The server this was written against runs with autovacuum off: the maintenance is all that vacuums.
      await db.system.execute(sql`create extension if not exists pgstattuple`).catch(() => {});
      const t = await newTenant();
      const doc = await board(t.api);
      const x = await ids(t, doc);
      await maintain(db, { vacuum: true });
      const rounds = 12;
      const perRound = 250;
      let written = 0;
      const sizes: { before: number; after: number; dead: number | null; held: boolean }[] = [];
      for (let r = 0; r < rounds; r++) {
        // One statement per card write, as the service does: each fires the statement triggers once.
        await db.tenantTransaction(x.org, async (tx) => {
          for (let i = 0; i < perRound; i++) {
            const op = i % 5;
            if (op < 2)
              await tx.execute(
                sql`insert into cards (organization_id, document_id, board_id, title, value, due_date, current_phase_id)
                    values (${x.org}, ${`soak${r}x${i}x${x.board}`}, ${x.board}, 'soak', ${i},
                            now() + make_interval(days => ${(i % 9) - 4}), ${x.phases[i % 2]})`,
              );
            else if (op < 4)
              await tx.execute(
                sql`update cards set current_phase_id = ${x.phases[(i + r) % 2]}
                    where id = (select id from cards where board_id = ${x.board} order by random() limit 1)`,
              );
            else
              await tx.execute(
                sql`delete from cards where id = (select id from cards where board_id = ${x.board} order by id limit 1)`,
              );
          }
        });
        written += perRound;
        // Through the API too: a create, a move, a delete and a whole-board list (the counts' reader).
        const card = await t.api.post(`/boards/${doc}/cards`, { data: { title: `api${r}`, value: 3 } });
        expect(card.status).toBe(201);
        expect(
          (await t.api.post(`/boards/${doc}/cards/${card.body.documentId}/move`, { phase: 'b' })).status,
        ).toBe(200);
        expect((await t.api.delete(`/boards/${doc}/cards/${card.body.documentId}`)).status).toBe(200);
        expect((await t.api.get(`/boards/${doc}/cards`)).status).toBe(200);
        const before = (await deltaTable()).pages;
        let sample = await foldAndVacuum(db);
        // The horizon check races a transaction of another test file that ends between the VACUUM and the check,
        // and VACUUM skips a page another session has pinned: a clean round that kept more than its own round's
        // dead rows is measured once more (without the service's VACUUM the second run leaves them all too).
        if (!sample.held && sample.dead !== null && sample.dead >= 500) sample = await foldAndVacuum(db);
        sizes.push({ before, ...sample });
        await expectCountsEqualCards(x.org, x.board);
      }
      expect(written).toBeGreaterThanOrEqual(3000);
      // Without the VACUUM the heap grows with every delta ever written (measured: 3 pages a round, 31 after
      // the 12 rounds, and on: pruning frees the dead rows' space in a page, but without VACUUM no free-space map
      // points inserts back to it); with it, one round's worth at most (measured: 3 before, 0 after each run).
      // Rounds during which another file's transaction held the horizon prove nothing either way (no VACUUM could
      // remove those rows); the others must stay small. Pages never shrink back, so they are judged only on a clean run.
      const clean = sizes.filter((s) => !s.held);
      if (clean.length === sizes.length) {
        const most = Math.max(...sizes.map((s) => s.after));
        expect(most, JSON.stringify(sizes)).toBeLessThanOrEqual(12);
      }
      for (const s of clean) if (s.dead !== null) expect(s.dead, JSON.stringify(sizes)).toBeLessThan(500);
      expect(setting.autovacuum).toMatch(/^(on|off)$/);
    },
    180_000,
  );

  test.skipIf(!onPostgres)(
    'warns once at start when autovacuum is off, saying what the service does',
    async () => {
      const { db, config } = await getApp();
      const settings = await readServerSettings(db, bookkeepingTables(modules));
      const lines: { level: number; msg: string }[] = [];
      const log = pino(
        { level: 'warn' },
        new Writable({
          write(chunk, _enc, done) {
            lines.push(JSON.parse(String(chunk)));
            done();
          },
        }),
      );
      const maintenance = await startMaintenance(db, modules, config, log, false);
      await maintenance.stop();
      const about = lines.filter((l) => l.msg.includes('autovacuum'));
      if (settings.autovacuum) {
        expect(about).toEqual([]);
        return;
      }
      // This test's server runs with autovacuum off.
      expect(about).toHaveLength(1);
      expect(about[0].level).toBe(40);
      expect(about[0].msg).toContain('autovacuum is off');
      expect(about[0].msg).toContain('card_count_deltas');
      expect(about[0].msg).toContain('docs/postgresql.md');
      // What the message says depends on whether this process runs the maintenance.
      expect(settingsWarnings(settings, config, true, bookkeepingTables(modules)).join(' ')).toContain(
        'This process VACUUMs',
      );
      expect(settingsWarnings(settings, config, false, bookkeepingTables(modules)).join(' ')).toContain(
        'crm worker',
      );
    },
  );

  test('the settings warnings: version, vacuum, ownership, connections', async () => {
    const { config } = await getApp();
    const fine = {
      version: 150020,
      autovacuum: true,
      trackCounts: true,
      maxConnections: 100,
      superuser: false,
      notOwned: [],
    };
    expect(settingsWarnings(fine, config, true, bookkeepingTables(modules))).toEqual([]);
    const bad = settingsWarnings(
      { ...fine, version: 140010, trackCounts: false, notOwned: ['pgboss.job'], maxConnections: 10 },
      { ...config, DATABASE_POOL_SIZE: 10, CRM_PROCESSES: 2 },
      true,
      bookkeepingTables(modules),
    );
    expect(bad).toHaveLength(4);
    expect(bad.join('\n')).toMatch(/PostgreSQL 14 is older/);
    expect(bad.join('\n')).toMatch(/track_counts is off/);
    expect(bad.join('\n')).toMatch(/does not own pgboss\.job/);
    expect(bad.join('\n')).toMatch(/max_connections is 10/);
  });
});

/** The service's maintenance (fold and VACUUM) once, and what the delta table holds after it. */
async function foldAndVacuum(
  db: Parameters<typeof runMaintenance>[0],
): Promise<{ after: number; dead: number | null; held: boolean }> {
  // Taken before the fold: a transaction begun during the round, before the fold commits, holds its dead rows too.
  const [{ at: vacuumStart }] = await queryRows<{ at: string }>(
    db.system,
    sql`select clock_timestamp()::text as at`,
  );
  const report = await maintain(db, { vacuum: true });
  expect(report?.vacuumed).toContain('card_count_deltas');
  const after = await deltaTable();
  // A transaction of another test file open before the fold holds back what any VACUUM may remove.
  const [{ held }] = await queryRows<{ held: boolean }>(
    db.system,
    sql`select exists(select 1 from pg_stat_activity where pid <> pg_backend_pid() and backend_xmin is not null
          and xact_start < ${vacuumStart}::timestamptz)
          or exists(select 1 from pg_replication_slots where xmin is not null or catalog_xmin is not null)
          or exists(select 1 from pg_prepared_xacts) as held`,
  );
  return { after: after.pages, dead: after.tuples?.dead ?? null, held };
}
