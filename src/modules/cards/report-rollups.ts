import { sql } from 'drizzle-orm';
import { type Executor, preparedRows, queryRows, type Tx } from '../../platform/db/client.js';
import { installTriggersSql, statementTrigger } from '../../platform/db/statement-triggers.js';

/**
 * The board report's rollups: card count and value sum per board, created day and dimension (phase, assignee, tag),
 * kept by statement triggers that only insert deltas, folded by readers and the maintenance. How deletes and
 * cascades are counted: docs/decisions.md "The board report's rollups".
 */
const DAY = (col: string) => `(${col} AT TIME ZONE 'UTC')::date`;

const DELTA_COLUMNS = 'organization_id, board_id, kind, key, day, card_count, value_sum';

/** Deltas of a change set `ch(organization_id, card_id, key, s)` of one link table (s = +1 added, -1 removed). */
function linkDeltas(table: string, kind: 'a' | 't') {
  const total = kind.toUpperCase();
  return `
    c AS (
      SELECT c.organization_id, c.board_id, c.id, ${DAY('c.created_at')} AS day, c.value FROM cards c
      WHERE (c.organization_id, c.id) IN (SELECT DISTINCT organization_id, card_id FROM ch)
      UNION ALL
      -- Cards this statement deleted (the links' cascade): as their tombstone says.
      SELECT k.organization_id, k.board_id, k.card_id, k.day, k.value FROM card_report_tombstones k
      WHERE (k.organization_id, k.card_id) IN (SELECT DISTINCT organization_id, card_id FROM ch WHERE s < 0)
        AND NOT EXISTS (SELECT 1 FROM cards x WHERE x.organization_id = k.organization_id AND x.id = k.card_id)
    ),
    per_card AS (
      SELECT c.organization_id, c.board_id, c.day, c.value, p.net,
        (SELECT count(*) FROM ${table} x WHERE x.organization_id = c.organization_id AND x.card_id = c.id) AS now_n
      FROM (SELECT organization_id, card_id, sum(s) AS net FROM ch GROUP BY 1, 2) p
      JOIN c ON c.organization_id = p.organization_id AND c.id = p.card_id
    )
    INSERT INTO card_report_deltas (${DELTA_COLUMNS})
    SELECT c.organization_id, c.board_id, '${kind}', ch.key, c.day, sum(ch.s), sum(ch.s * c.value)
    FROM ch JOIN c ON c.organization_id = ch.organization_id AND c.id = ch.card_id
    GROUP BY 1, 2, 4, 5 HAVING sum(ch.s) <> 0
    UNION ALL
    SELECT organization_id, board_id, '${total}', 0, day, sum(d), sum(d * value) FROM (
      SELECT organization_id, board_id, day, value, (now_n > 0)::int - (now_n - net > 0)::int AS d FROM per_card
    ) t GROUP BY 1, 2, 5 HAVING sum(d) <> 0;`;
}

function linkTrigger(fn: string, table: string, keyCol: string, kind: 'a' | 't') {
  const cols = (rows: string, s: number) =>
    `SELECT organization_id, card_id, ${keyCol} AS key, ${s} AS s FROM ${rows}`;
  return `
CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    WITH ch AS (${cols('new_links', 1)}), ${linkDeltas(table, kind)}
  ELSIF TG_OP = 'DELETE' THEN
    WITH ch AS (${cols('old_links', -1)}), ${linkDeltas(table, kind)}
  ELSE
    WITH ch AS (${cols('new_links', 1)} UNION ALL ${cols('old_links', -1)}), ${linkDeltas(table, kind)}
  END IF;
  RETURN NULL;
END $fn$`;
}

/** The phase rows a set of cards contributes (s = +1 / -1): its board, phase (0 = none), created day and value. */
const cardRows = (rows: string, s: number) => `
      SELECT organization_id, board_id, 'p' AS kind, coalesce(current_phase_id, 0) AS key, ${DAY('created_at')} AS day,
             ${s} AS n, ${s} * value AS v FROM ${rows}`;

const REPORT_TRACK = `
CREATE OR REPLACE FUNCTION card_report_track() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE card_report_rollups, card_report_deltas, card_report_tombstones;
  ELSIF TG_OP = 'INSERT' THEN
    -- A new card has no links yet (they reference it): its links' own trigger counts them.
    INSERT INTO card_report_deltas (${DELTA_COLUMNS})
    SELECT organization_id, board_id, kind, key, day, sum(n), sum(v) FROM (${cardRows('new_cards', 1)}) r
    GROUP BY 1, 2, 3, 4, 5;
  ELSIF TG_OP = 'DELETE' THEN
    -- Their links go by the cascade, whose triggers run after this one: a tombstone per card for them. Not for
    -- cards of a board deleted with them (the board's rollups go with it: deleteBoardRollups).
    INSERT INTO card_report_deltas (${DELTA_COLUMNS})
    SELECT organization_id, board_id, kind, key, day, sum(n), sum(v) FROM (${cardRows('old_cards', -1)}) r
    GROUP BY 1, 2, 3, 4, 5;
    INSERT INTO card_report_tombstones (organization_id, card_id, board_id, day, value)
    SELECT o.organization_id, o.id, o.board_id, ${DAY('o.created_at')}, o.value FROM old_cards o
    WHERE EXISTS (SELECT 1 FROM boards b WHERE b.organization_id = o.organization_id AND b.id = o.board_id);
  ELSE
    -- Phase rows: new in, old out (unchanged cards net to zero). Link rows only for the cards whose board,
    -- created day or value changed: each of their assignee and tag rows moves from the old to the new.
    WITH ch AS (
      SELECT n.organization_id, n.id, o.board_id AS ob, ${DAY('o.created_at')} AS od, o.value AS ov,
             n.board_id AS nb, ${DAY('n.created_at')} AS nd, n.value AS nv
      FROM new_cards n JOIN old_cards o ON o.organization_id = n.organization_id AND o.id = n.id
      WHERE o.board_id <> n.board_id OR o.value <> n.value OR ${DAY('o.created_at')} <> ${DAY('n.created_at')}
    ), links AS (
      SELECT organization_id, card_id, 'a' AS kind, membership_id AS key FROM card_assignees
        WHERE (organization_id, card_id) IN (SELECT organization_id, id FROM ch)
      UNION ALL
      SELECT organization_id, card_id, 't', tag_id FROM card_tags
        WHERE (organization_id, card_id) IN (SELECT organization_id, id FROM ch)
    ), l AS (
      SELECT organization_id, card_id, kind, key FROM links
      UNION ALL
      SELECT DISTINCT organization_id, card_id, upper(kind), 0 FROM links
    )
    INSERT INTO card_report_deltas (${DELTA_COLUMNS})
    SELECT organization_id, board_id, kind, key, day, sum(n), sum(v) FROM (
      ${cardRows('new_cards', 1)}
      UNION ALL ${cardRows('old_cards', -1)}
      UNION ALL
      SELECT ch.organization_id, ch.nb, l.kind, l.key, ch.nd, 1, ch.nv
        FROM ch JOIN l ON l.organization_id = ch.organization_id AND l.card_id = ch.id
      UNION ALL
      SELECT ch.organization_id, ch.ob, l.kind, l.key, ch.od, -1, -ch.ov
        FROM ch JOIN l ON l.organization_id = ch.organization_id AND l.card_id = ch.id
    ) r GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 OR sum(v) <> 0;
  END IF;
  RETURN NULL;
END $fn$`;

const NEW_CARDS = 'REFERENCING NEW TABLE AS new_cards';
const OLD_CARDS = 'REFERENCING OLD TABLE AS old_cards';
const NEW_LINKS = 'REFERENCING NEW TABLE AS new_links';
const OLD_LINKS = 'REFERENCING OLD TABLE AS old_links';

/** The statement triggers on `cards` and its two link tables. */
const TRIGGERS = [
  statementTrigger('card_report_insert', 'cards', 'INSERT', 'card_report_track', NEW_CARDS),
  statementTrigger(
    'card_report_update',
    'cards',
    'UPDATE',
    'card_report_track',
    `${OLD_CARDS} NEW TABLE AS new_cards`,
  ),
  statementTrigger('card_report_delete', 'cards', 'DELETE', 'card_report_track', OLD_CARDS),
  statementTrigger('card_report_truncate', 'cards', 'TRUNCATE', 'card_report_track'),
  ...(
    [
      ['a', 'card_assignees'],
      ['t', 'card_tags'],
    ] as const
  ).flatMap(([kind, table]) => [
    statementTrigger(`card_report_${kind}_insert`, table, 'INSERT', `card_report_track_${kind}`, NEW_LINKS),
    statementTrigger(
      `card_report_${kind}_update`,
      table,
      'UPDATE',
      `card_report_track_${kind}`,
      `${OLD_LINKS} NEW TABLE AS new_links`,
    ),
    statementTrigger(`card_report_${kind}_delete`, table, 'DELETE', `card_report_track_${kind}`, OLD_LINKS),
  ]),
];

/** Deltas of one board a reader folds into the rollups. */
export const REPORT_COMPACT_AFTER = 512;
const REPORT_LOCK = 727_004;
const FOLD_LIMIT = 50_000;

/** The rollup rows of the cards of one organization as they are now (the first fill, and the tests' oracle). */
export const ROLLUP_OF_CARDS = (org: string) => `
  SELECT organization_id, board_id, kind, key, day, count(*) AS card_count, sum(value) AS value_sum FROM (
    SELECT organization_id, board_id, 'p' AS kind, coalesce(current_phase_id, 0) AS key, ${DAY('created_at')} AS day, value
      FROM cards WHERE organization_id = ${org}
    UNION ALL
    SELECT c.organization_id, c.board_id, 'a', ca.membership_id, ${DAY('c.created_at')}, c.value
      FROM cards c JOIN card_assignees ca ON ca.organization_id = c.organization_id AND ca.card_id = c.id
      WHERE c.organization_id = ${org}
    UNION ALL
    SELECT c.organization_id, c.board_id, 't', ct.tag_id, ${DAY('c.created_at')}, c.value
      FROM cards c JOIN card_tags ct ON ct.organization_id = c.organization_id AND ct.card_id = c.id
      WHERE c.organization_id = ${org}
    UNION ALL
    SELECT c.organization_id, c.board_id, 'A', 0, ${DAY('c.created_at')}, c.value FROM cards c
      WHERE c.organization_id = ${org} AND EXISTS (
        SELECT 1 FROM card_assignees ca WHERE ca.organization_id = c.organization_id AND ca.card_id = c.id)
    UNION ALL
    SELECT c.organization_id, c.board_id, 'T', 0, ${DAY('c.created_at')}, c.value FROM cards c
      WHERE c.organization_id = ${org} AND EXISTS (
        SELECT 1 FROM card_tags ct WHERE ct.organization_id = c.organization_id AND ct.card_id = c.id)
  ) r GROUP BY 1, 2, 3, 4, 5`;

export const REPORT_ROLLUP_SQL = [
  REPORT_TRACK,
  linkTrigger('card_report_track_a', 'card_assignees', 'membership_id', 'a'),
  linkTrigger('card_report_track_t', 'card_tags', 'tag_id', 't'),
  `
CREATE OR REPLACE FUNCTION card_report_fold(p_org bigint, p_board bigint, p_limit int) RETURNS int
LANGUAGE plpgsql AS $fn$
DECLARE n int;
BEGIN
  IF NOT pg_try_advisory_xact_lock(${REPORT_LOCK}, (p_board % 2147483647)::int) THEN RETURN -1; END IF;
  WITH moved AS (
    DELETE FROM card_report_deltas
    WHERE organization_id = p_org AND id IN (
      SELECT id FROM card_report_deltas WHERE organization_id = p_org AND board_id = p_board
      ORDER BY id LIMIT p_limit)
    RETURNING board_id, kind, key, day, card_count, value_sum
  ), folded AS (
    INSERT INTO card_report_rollups (${DELTA_COLUMNS})
    SELECT p_org, board_id, kind, key, day, sum(card_count), sum(value_sum) FROM moved
    GROUP BY board_id, kind, key, day
    ON CONFLICT (organization_id, board_id, day, kind, key) DO UPDATE
      SET card_count = card_report_rollups.card_count + excluded.card_count,
          value_sum = card_report_rollups.value_sum + excluded.value_sum
    RETURNING 1
  )
  SELECT count(*) INTO n FROM moved;
  IF n > 0 THEN
    DELETE FROM card_report_rollups WHERE organization_id = p_org AND board_id = p_board AND card_count = 0;
  END IF;
  RETURN n;
END $fn$`,
  `
CREATE OR REPLACE FUNCTION card_report_fold_all(p_limit int) RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
  sees_all boolean := (SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user);
  o record;
  b record;
  n int;
  total int := 0;
BEGIN
  IF sees_all THEN
    DELETE FROM card_report_tombstones WHERE created_at < now() - interval '1 hour';
  END IF;
  FOR o IN SELECT id FROM organizations WHERE NOT sees_all
           UNION ALL SELECT DISTINCT organization_id FROM card_report_deltas WHERE sees_all LOOP
    PERFORM set_config('app.organization_id', o.id::text, true);
    DELETE FROM card_report_tombstones WHERE organization_id = o.id AND created_at < now() - interval '1 hour';
    FOR b IN SELECT DISTINCT board_id FROM card_report_deltas WHERE organization_id = o.id LOOP
      n := card_report_fold(o.id, b.board_id, p_limit);
      IF n > 0 THEN total := total + n; END IF;
    END LOOP;
  END LOOP;
  PERFORM set_config('app.organization_id', '', true);
  RETURN total;
END $fn$`,
  installTriggersSql({
    triggers: TRIGGERS,
    fill: [
      'DELETE FROM card_report_deltas WHERE organization_id = o.id',
      'DELETE FROM card_report_rollups WHERE organization_id = o.id',
      `INSERT INTO card_report_rollups (${DELTA_COLUMNS}) ${ROLLUP_OF_CARDS('o.id')}`,
    ],
  }),
];

/** Folds a board's report deltas (skipped while another transaction folds the same board). */
export async function compactReport(tx: Tx, orgId: number, boardId: number) {
  await tx.execute(sql`select card_report_fold(${orgId}, ${boardId}, ${FOLD_LIMIT})`);
}

/** Every board's report deltas (the periodic maintenance). */
export async function foldAllReports(ex: Executor): Promise<number> {
  const [row] = await queryRows<{ n: number }>(ex, sql`select card_report_fold_all(${FOLD_LIMIT}) as n`);
  return row.n;
}

/** A deleted board's rollups. */
export async function deleteBoardRollups(tx: Tx, orgId: number, boardId: number) {
  await tx.execute(sql`select pg_advisory_xact_lock(${REPORT_LOCK}, (${boardId}::bigint % 2147483647)::int)`);
  await tx.execute(
    sql`delete from card_report_deltas where organization_id = ${orgId} and board_id = ${boardId}`,
  );
  await tx.execute(
    sql`delete from card_report_rollups where organization_id = ${orgId} and board_id = ${boardId}`,
  );
}

/** Pending deltas of a board: the report folds them when there are many. */
export async function pendingReportDeltas(tx: Tx, orgId: number, boardId: number) {
  const [row] = await preparedRows<{ n: number }>(
    tx,
    sql`select count(*)::int as n from card_report_deltas where organization_id = ${orgId} and board_id = ${boardId}`,
  );
  return row.n;
}
