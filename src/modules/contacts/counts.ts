import { sql } from 'drizzle-orm';
import { type Executor, preparedRows, queryRows, type Tx } from '../../platform/db/client.js';
import { installTriggersSql, statementTrigger } from '../../platform/db/statement-triggers.js';

/**
 * The number of contacts per organization (tables in table.ts): the total of an unfiltered contact list without
 * counting the contacts. A `count(*)` over a million contacts reads the whole table on a server whose autovacuum
 * is off (no visibility map, so no index-only count): hundreds of milliseconds per first page during a large
 * import (docs/performance.md, "Background imports").
 *
 * The same pattern as the card counts (src/modules/cards/counts.ts): statement-level triggers on `contacts` only
 * INSERT a delta per statement into `contact_count_deltas` (concurrent writers never wait on a shared row);
 * readers add `contact_counts` and the pending deltas, and fold the deltas once more than COMPACT_AFTER have piled
 * up; the periodic maintenance folds every organization. Applied by migrate.ts after every migration
 * (idempotent); the first time it fills `contact_counts` from the contacts already there.
 */
const TRIGGERS = [
  statementTrigger(
    'contact_counts_insert',
    'contacts',
    'INSERT',
    'contact_counts_track',
    'REFERENCING NEW TABLE AS new_rows',
  ),
  statementTrigger(
    'contact_counts_delete',
    'contacts',
    'DELETE',
    'contact_counts_track',
    'REFERENCING OLD TABLE AS old_rows',
  ),
  statementTrigger('contact_counts_truncate', 'contacts', 'TRUNCATE', 'contact_counts_track'),
];

const COMPACT_AFTER = 256;
/** First key of the advisory lock that lets one transaction at a time fold an organization's deltas. */
const COMPACT_LOCK = 727_010;
const FOLD_LIMIT = 20_000;

export const CONTACT_COUNTS_SQL = [
  `
CREATE OR REPLACE FUNCTION contact_counts_track() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE contact_counts, contact_count_deltas;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO contact_count_deltas (organization_id, contact_count)
    SELECT organization_id, count(*) FROM new_rows GROUP BY 1;
  ELSE
    INSERT INTO contact_count_deltas (organization_id, contact_count)
    SELECT organization_id, -count(*) FROM old_rows GROUP BY 1;
  END IF;
  RETURN NULL;
END $fn$`,
  // One fold (readers and the maintenance): at most p_limit deltas of one organization into its count, skipped
  // (-1) while another transaction folds it (readers always add the pending deltas, so nothing is missed).
  `
CREATE OR REPLACE FUNCTION contact_counts_fold(p_org bigint, p_limit int) RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE n int;
BEGIN
  IF NOT pg_try_advisory_xact_lock(${COMPACT_LOCK}, (p_org % 2147483647)::int) THEN RETURN -1; END IF;
  WITH moved AS (
    DELETE FROM contact_count_deltas
    WHERE organization_id = p_org AND id IN (
      SELECT id FROM contact_count_deltas WHERE organization_id = p_org ORDER BY id LIMIT p_limit)
    RETURNING contact_count
  ), folded AS (
    INSERT INTO contact_counts (organization_id, contact_count)
    SELECT p_org, sum(contact_count) FROM moved HAVING count(*) > 0
    ON CONFLICT (organization_id) DO UPDATE
      SET contact_count = contact_counts.contact_count + excluded.contact_count
    RETURNING 1
  )
  SELECT count(*) INTO n FROM moved;
  RETURN n;
END $fn$`,
  // Every organization's deltas, for the maintenance (as the owner, under FORCE ROW LEVEL SECURITY: one
  // organization at a time unless the role sees every row anyway).
  `
CREATE OR REPLACE FUNCTION contact_counts_fold_all(p_limit int) RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
  sees_all boolean := (SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user);
  o record;
  n int;
  total int := 0;
BEGIN
  FOR o IN SELECT id FROM organizations WHERE NOT sees_all
           UNION ALL SELECT DISTINCT organization_id FROM contact_count_deltas WHERE sees_all LOOP
    PERFORM set_config('app.organization_id', o.id::text, true);
    n := contact_counts_fold(o.id, p_limit);
    IF n > 0 THEN total := total + n; END IF;
  END LOOP;
  PERFORM set_config('app.organization_id', '', true);
  RETURN total;
END $fn$`,
  installTriggersSql({
    triggers: TRIGGERS,
    fill: [
      'DELETE FROM contact_count_deltas WHERE organization_id = o.id',
      'DELETE FROM contact_counts WHERE organization_id = o.id',
      `INSERT INTO contact_counts (organization_id, contact_count)
      SELECT o.id, count(*) FROM contacts WHERE organization_id = o.id`,
    ],
  }),
];

/** The organization's number of contacts: its count plus the pending deltas (folded when they pile up). */
export async function countContacts(tx: Tx, orgId: number): Promise<{ total: number }[]> {
  const [row] = await preparedRows<{ total: number; pending: number }>(
    tx,
    sql`select coalesce(sum(n), 0)::int as "total", (count(*) filter (where pending))::int as "pending" from (
          select contact_count as n, false as pending from contact_counts where organization_id = ${orgId}
          union all
          select contact_count, true from contact_count_deltas where organization_id = ${orgId}
        ) c`,
  );
  if (row.pending > COMPACT_AFTER) await tx.execute(sql`select contact_counts_fold(${orgId}, ${FOLD_LIMIT})`);
  return [{ total: row.total }];
}

/** Folds every organization's deltas (the periodic maintenance); the number of deltas folded. */
export async function foldAllContactCounts(ex: Executor): Promise<number> {
  const [row] = await queryRows<{ n: number }>(ex, sql`select contact_counts_fold_all(${FOLD_LIMIT}) as n`);
  return row.n;
}
