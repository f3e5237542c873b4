import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';

/**
 * Card counts per board, phase and UTC due day (tables in table.ts): the card list's total and stats without
 * reading the cards when the list is the whole board or one phase (docs/performance.md, "Card counts").
 *
 * Three statement-level triggers on `cards` write what each INSERT / UPDATE / DELETE statement changed, grouped,
 * into `card_count_deltas` (insert-only: concurrent card writes never wait on a shared row, and cannot deadlock
 * on one). Readers sum `card_counts` + the board's deltas and fold the deltas into `card_counts` once more than
 * COMPACT_AFTER have piled up. Runs as the invoking role: the deltas are tenant rows under RLS like any other.
 * `migrate.ts` applies this after every migration (idempotent); the first time, it fills `card_counts` from the
 * existing cards, one organization at a time (so it also works for a non-superuser owner under forced RLS).
 */
export const CARD_COUNTS_SQL = [
  `
CREATE OR REPLACE FUNCTION card_counts_track() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO card_count_deltas (organization_id, board_id, phase_id, due_day, card_count, value_sum)
    SELECT organization_id, board_id, coalesce(current_phase_id, 0),
           coalesce((due_date AT TIME ZONE 'UTC')::date, 'infinity'::date), count(*), sum(value)
    FROM new_cards GROUP BY 1, 2, 3, 4;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO card_count_deltas (organization_id, board_id, phase_id, due_day, card_count, value_sum)
    SELECT organization_id, board_id, coalesce(current_phase_id, 0),
           coalesce((due_date AT TIME ZONE 'UTC')::date, 'infinity'::date), -count(*), -sum(value)
    FROM old_cards GROUP BY 1, 2, 3, 4;
  ELSE
    INSERT INTO card_count_deltas (organization_id, board_id, phase_id, due_day, card_count, value_sum)
    SELECT organization_id, board_id, phase_id, due_day, sum(n), sum(v) FROM (
      SELECT n.organization_id, n.board_id, coalesce(n.current_phase_id, 0) AS phase_id,
             coalesce((n.due_date AT TIME ZONE 'UTC')::date, 'infinity'::date) AS due_day, 1 AS n, n.value AS v
      FROM new_cards n JOIN old_cards o ON o.organization_id = n.organization_id AND o.id = n.id
      WHERE (o.board_id, o.current_phase_id, o.due_date, o.value)
            IS DISTINCT FROM (n.board_id, n.current_phase_id, n.due_date, n.value)
      UNION ALL
      SELECT o.organization_id, o.board_id, coalesce(o.current_phase_id, 0),
             coalesce((o.due_date AT TIME ZONE 'UTC')::date, 'infinity'::date), -1, -o.value
      FROM old_cards o JOIN new_cards n ON n.organization_id = o.organization_id AND n.id = o.id
      WHERE (o.board_id, o.current_phase_id, o.due_date, o.value)
            IS DISTINCT FROM (n.board_id, n.current_phase_id, n.due_date, n.value)
    ) d GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 OR sum(v) <> 0;
  END IF;
  RETURN NULL;
END $fn$`,
  `
DO $$
DECLARE
  fresh boolean := NOT EXISTS (
    SELECT 1 FROM pg_trigger WHERE tgname = 'card_counts_insert' AND tgrelid = 'cards'::regclass);
  o record;
BEGIN
  CREATE OR REPLACE TRIGGER card_counts_insert AFTER INSERT ON cards
    REFERENCING NEW TABLE AS new_cards FOR EACH STATEMENT EXECUTE FUNCTION card_counts_track();
  CREATE OR REPLACE TRIGGER card_counts_update AFTER UPDATE ON cards
    REFERENCING OLD TABLE AS old_cards NEW TABLE AS new_cards FOR EACH STATEMENT EXECUTE FUNCTION card_counts_track();
  CREATE OR REPLACE TRIGGER card_counts_delete AFTER DELETE ON cards
    REFERENCING OLD TABLE AS old_cards FOR EACH STATEMENT EXECUTE FUNCTION card_counts_track();
  IF fresh THEN
    FOR o IN SELECT id FROM organizations LOOP
      PERFORM set_config('app.organization_id', o.id::text, true);
      DELETE FROM card_count_deltas WHERE organization_id = o.id;
      DELETE FROM card_counts WHERE organization_id = o.id;
      INSERT INTO card_counts (organization_id, board_id, phase_id, due_day, card_count, value_sum)
      SELECT organization_id, board_id, coalesce(current_phase_id, 0),
             coalesce((due_date AT TIME ZONE 'UTC')::date, 'infinity'::date), count(*), sum(value)
      FROM cards WHERE organization_id = o.id GROUP BY 1, 2, 3, 4;
    END LOOP;
    PERFORM set_config('app.organization_id', '', true);
  END IF;
END $$`,
];

/** Deltas of one board a reader folds into `card_counts` (a handful of rows per card write statement). */
export const COMPACT_AFTER = 256;
/** First key of the advisory lock that lets one transaction at a time fold a board's deltas. */
const COMPACT_LOCK = 727_002;

export interface CountStatsOptions {
  /** UTC midnight: overdue means a due date before it. */
  todayStart: Date;
  /** The pinned phase's SLA in hours (phaseSlaBreachedCount), or null. */
  slaHours: number | null;
}

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
  stats: CountStatsOptions | null,
) {
  const phase = phaseId === null ? sql`` : sql` and phase_id = ${phaseId}`;
  const slaHours = stats && phaseId !== null ? stats.slaHours : null;
  const withinSla =
    slaHours === null
      ? sql`0`
      : sql`(select count(*) from cards where organization_id = ${orgId} and board_id = ${boardId}
               and current_phase_id = ${phaseId} and current_phase_entered_at >= now() - make_interval(hours => ${slaHours}::int))`;
  const today = (stats?.todayStart ?? new Date(0)).toISOString().slice(0, 10);
  const [row] = await queryRows<{
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
  await tx.execute(sql`
    with lock as (select pg_try_advisory_xact_lock(${COMPACT_LOCK}, (${boardId}::bigint % 2147483647)::int) as ok),
    moved as (
      delete from card_count_deltas
      where organization_id = ${orgId} and board_id = ${boardId} and (select ok from lock)
      returning board_id, phase_id, due_day, card_count, value_sum
    )
    insert into card_counts (organization_id, board_id, phase_id, due_day, card_count, value_sum)
    select ${orgId}, board_id, phase_id, due_day, sum(card_count), sum(value_sum) from moved
    group by board_id, phase_id, due_day
    on conflict (organization_id, board_id, phase_id, due_day) do update
      set card_count = card_counts.card_count + excluded.card_count,
          value_sum = card_counts.value_sum + excluded.value_sum`);
}

/** A deleted board's counts (its cards' cascaded delete wrote deltas after the board row was gone). */
export async function deleteBoardCounts(tx: Tx, orgId: number, boardId: number) {
  await tx.execute(
    sql`delete from card_count_deltas where organization_id = ${orgId} and board_id = ${boardId}`,
  );
  await tx.execute(sql`delete from card_counts where organization_id = ${orgId} and board_id = ${boardId}`);
}
