import { sql } from 'drizzle-orm';
import { type Executor, preparedRows, queryRows, type Tx } from '../../platform/db/client.js';
import { installTriggersSql, statementTrigger } from '../../platform/db/statement-triggers.js';
import type { StatsOptions } from './repo.js';
import { compactReport } from './report-rollups.js';

/**
 * Card counts per board, phase and UTC due day (tables in table.ts): the card list's total and stats without
 * reading the cards when the list is the whole board or one phase (docs/cards.md, docs/performance.md).
 *
 * Three statement-level triggers on `cards` write what each INSERT / UPDATE / DELETE statement changed, grouped,
 * into `card_count_deltas` (insert-only: concurrent card writes never wait on a shared row, and cannot deadlock
 * on one). Readers sum `card_counts` + the board's deltas and fold the deltas into `card_counts` once more than
 * COMPACT_AFTER have piled up; writes fold now and then, and the periodic maintenance folds every board
 * (src/platform/db/maintenance.ts: each folded delta is a dead row that only VACUUM makes reusable). Runs as the invoking role: the deltas are tenant rows under RLS like any other.
 * `migrate.ts` applies this after every migration (idempotent); the first time, it fills `card_counts` from the
 * existing cards, one organization at a time (so it also works for a non-superuser owner under forced RLS).
 */
const DAY_OF = (col: string) => `coalesce((${col} AT TIME ZONE 'UTC')::date, 'infinity'::date)`;

/** The statement triggers on `cards`. */
const TRIGGERS = [
  statementTrigger(
    'card_counts_insert',
    'cards',
    'INSERT',
    'card_counts_track',
    'REFERENCING NEW TABLE AS new_cards',
  ),
  statementTrigger(
    'card_counts_update',
    'cards',
    'UPDATE',
    'card_counts_track',
    'REFERENCING OLD TABLE AS old_cards NEW TABLE AS new_cards',
  ),
  statementTrigger(
    'card_counts_delete',
    'cards',
    'DELETE',
    'card_counts_track',
    'REFERENCING OLD TABLE AS old_cards',
  ),
  statementTrigger('card_counts_truncate', 'cards', 'TRUNCATE', 'card_counts_track'),
];

/** Deltas of one board a reader folds into `card_counts` (a handful of rows per card write statement). */
export const COMPACT_AFTER = 256;
/** First key of the advisory lock that lets one transaction at a time fold a board's deltas. */
const COMPACT_LOCK = 727_002;
/** At most this many deltas per fold, so one request never carries an unbounded backlog. */
const FOLD_LIMIT = 20_000;

export const CARD_COUNTS_SQL = [
  `
CREATE OR REPLACE FUNCTION card_counts_track() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE card_counts, card_count_deltas;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO card_count_deltas (organization_id, board_id, phase_id, due_day, card_count, value_sum)
    SELECT organization_id, board_id, coalesce(current_phase_id, 0), ${DAY_OF('due_date')}, count(*), sum(value)
    FROM new_cards GROUP BY 1, 2, 3, 4;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO card_count_deltas (organization_id, board_id, phase_id, due_day, card_count, value_sum)
    SELECT organization_id, board_id, coalesce(current_phase_id, 0), ${DAY_OF('due_date')}, -count(*), -sum(value)
    FROM old_cards GROUP BY 1, 2, 3, 4;
  ELSE
    -- The new rows counted in, the old ones out: rows whose board, phase, due day and value did not change
    -- net to zero and write nothing.
    INSERT INTO card_count_deltas (organization_id, board_id, phase_id, due_day, card_count, value_sum)
    SELECT organization_id, board_id, phase_id, due_day, sum(n), sum(v) FROM (
      SELECT organization_id, board_id, coalesce(current_phase_id, 0) AS phase_id, ${DAY_OF('due_date')} AS due_day,
             1 AS n, value AS v FROM new_cards
      UNION ALL
      SELECT organization_id, board_id, coalesce(current_phase_id, 0), ${DAY_OF('due_date')}, -1, -value FROM old_cards
    ) d GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 OR sum(v) <> 0;
  END IF;
  RETURN NULL;
END $fn$`,
  // One fold, shared by readers, writers and the periodic maintenance (src/platform/db/maintenance.ts): moves
  // at most p_limit of a board's deltas into card_counts in one statement, skipped (-1) while another
  // transaction folds the same board (the deltas stay correct meanwhile: readers always add them). The upsert
  // changes no indexed column, so with room on the page it is a HOT update, pruned without VACUUM.
  `
CREATE OR REPLACE FUNCTION card_counts_fold(p_org bigint, p_board bigint, p_limit int) RETURNS int
LANGUAGE plpgsql AS $fn$
DECLARE n int;
BEGIN
  IF NOT pg_try_advisory_xact_lock(${COMPACT_LOCK}, (p_board % 2147483647)::int) THEN RETURN -1; END IF;
  WITH moved AS (
    DELETE FROM card_count_deltas
    WHERE organization_id = p_org AND id IN (
      SELECT id FROM card_count_deltas WHERE organization_id = p_org AND board_id = p_board
      ORDER BY id LIMIT p_limit)
    RETURNING board_id, phase_id, due_day, card_count, value_sum
  ), folded AS (
    INSERT INTO card_counts (organization_id, board_id, phase_id, due_day, card_count, value_sum)
    SELECT p_org, board_id, phase_id, due_day, sum(card_count), sum(value_sum) FROM moved
    GROUP BY board_id, phase_id, due_day
    ON CONFLICT (organization_id, board_id, phase_id, due_day) DO UPDATE
      SET card_count = card_counts.card_count + excluded.card_count,
          value_sum = card_counts.value_sum + excluded.value_sum
    RETURNING 1
  )
  SELECT count(*) INTO n FROM moved;
  -- Days and phases no card is in any more (a zero count has a zero sum: the deltas are exact numerics).
  IF n > 0 THEN
    DELETE FROM card_counts WHERE organization_id = p_org AND board_id = p_board AND card_count = 0;
  END IF;
  RETURN n;
END $fn$`,
  // Every board's deltas, for the maintenance. It runs as the owner, under FORCE ROW LEVEL SECURITY like a
  // request: one organization at a time (an index probe each), unless the role sees every row anyway
  // (superuser or BYPASSRLS), then straight to the organizations that have deltas.
  `
CREATE OR REPLACE FUNCTION card_counts_fold_all(p_limit int) RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
  sees_all boolean := (SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user);
  o record;
  b record;
  n int;
  total int := 0;
BEGIN
  FOR o IN SELECT id FROM organizations WHERE NOT sees_all
           UNION ALL SELECT DISTINCT organization_id FROM card_count_deltas WHERE sees_all LOOP
    PERFORM set_config('app.organization_id', o.id::text, true);
    FOR b IN SELECT DISTINCT board_id FROM card_count_deltas WHERE organization_id = o.id LOOP
      n := card_counts_fold(o.id, b.board_id, p_limit);
      IF n > 0 THEN total := total + n; END IF;
    END LOOP;
  END LOOP;
  PERFORM set_config('app.organization_id', '', true);
  RETURN total;
END $fn$`,
  // The triggers (created when missing); the first time, `card_counts` is filled from the cards already there.
  installTriggersSql({
    triggers: TRIGGERS,
    fill: [
      'DELETE FROM card_count_deltas WHERE organization_id = o.id',
      'DELETE FROM card_counts WHERE organization_id = o.id',
      `INSERT INTO card_counts (organization_id, board_id, phase_id, due_day, card_count, value_sum)
      SELECT organization_id, board_id, coalesce(current_phase_id, 0), ${DAY_OF('due_date')}, count(*), sum(value)
      FROM cards WHERE organization_id = o.id GROUP BY 1, 2, 3, 4`,
    ],
  }),
];

/**
 * Total (and stats) of a board, or of one phase of it, from the counts: one statement over a few hundred rows,
 * whatever the number of cards. The SLA count is the phase's total minus the cards that entered it within the
 * SLA (an index range over the recent entries).
 */
export async function countsOf(
  tx: Tx,
  orgId: number,
  boardId: number,
  phaseId: number | null,
  stats: StatsOptions | null,
) {
  const phase = phaseId === null ? sql`` : sql` and phase_id = ${phaseId}`;
  const slaHours = stats && phaseId !== null ? stats.slaHours : null;
  const withinSla =
    slaHours === null
      ? sql`0`
      : sql`(select count(*) from cards where organization_id = ${orgId} and board_id = ${boardId}
               and current_phase_id = ${phaseId} and current_phase_entered_at >= now() - make_interval(hours => ${slaHours}::int))`;
  const today = (stats?.todayStart ?? new Date(0)).toISOString().slice(0, 10);
  const [row] = await preparedRows<{
    total: number;
    overdueCount: number;
    valueSum: number;
    withinSla: number;
    pending: number;
  }>(
    tx,
    sql`select coalesce(sum(card_count), 0)::int as "total",
          coalesce(sum(card_count) filter (where due_day < ${today}::date), 0)::int as "overdueCount",
          coalesce(sum(value_sum), 0)::float8 as "valueSum",
          (${withinSla})::int as "withinSla",
          (count(*) filter (where pending))::int as "pending"
        from (
          select card_count, value_sum, due_day, false as pending from card_counts
            where organization_id = ${orgId} and board_id = ${boardId}${phase}
          union all
          select card_count, value_sum, due_day, true from card_count_deltas
            where organization_id = ${orgId} and board_id = ${boardId}${phase}
        ) c`,
  );
  if (row.pending > COMPACT_AFTER) await compactCounts(tx, orgId, boardId);
  const cardStats = {
    overdueCount: row.overdueCount,
    valueSum: row.valueSum,
    phaseSlaBreachedCount: slaHours === null ? 0 : row.total - row.withinSla,
  };
  return { total: row.total, stats: stats ? cardStats : null };
}

/**
 * Folds a board's deltas into `card_counts` in one statement; skipped while another transaction folds the same
 * board (the deltas stay correct meanwhile: readers always add them).
 */
export async function compactCounts(tx: Tx, orgId: number, boardId: number) {
  await tx.execute(sql`select card_counts_fold(${orgId}, ${boardId}, ${FOLD_LIMIT})`);
}

/**
 * Folds every board's deltas (the periodic maintenance, as the schema owner): a board written to but never
 * listed keeps no backlog, and the delta table stays a few pages that VACUUM clears in a millisecond.
 * Returns the number of deltas folded.
 */
export async function foldAllCounts(ex: Executor): Promise<number> {
  const [row] = await queryRows<{ n: number }>(ex, sql`select card_counts_fold_all(${FOLD_LIMIT}) as n`);
  return row.n;
}

/**
 * Card writes fold their board's deltas now and then (one write in COMPACT_AFTER, at random), so a board that is
 * written to but never listed in full does not pile them up either.
 */
export async function foldSometimes(tx: Tx, orgId: number, boardId: number, random = Math.random) {
  if (random() * COMPACT_AFTER < 1) {
    await compactCounts(tx, orgId, boardId);
    // The report's rollups (report-rollups.ts) pile up the same way.
    await compactReport(tx, orgId, boardId);
  }
}

const lockKey = (boardId: number) => sql`(${boardId}::bigint % 2147483647)::int`;

/** A deleted board's counts (its cards' cascaded delete wrote deltas after the board row was gone). */
export async function deleteBoardCounts(tx: Tx, orgId: number, boardId: number) {
  // Waits for a fold of the same board instead of racing it over the same delta rows.
  await tx.execute(sql`select pg_advisory_xact_lock(${COMPACT_LOCK}, ${lockKey(boardId)})`);
  await tx.execute(
    sql`delete from card_count_deltas where organization_id = ${orgId} and board_id = ${boardId}`,
  );
  await tx.execute(sql`delete from card_counts where organization_id = ${orgId} and board_id = ${boardId}`);
}
