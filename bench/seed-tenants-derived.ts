/**
 * What the service's triggers keep beside a batch of bench/seed-tenants.ts's rows, in one of two ways:
 *
 * - `direct` (the default): the batch runs with `session_replication_role = replica`, which skips the row-level
 *   foreign-key checks and the statement triggers (two thirds of the time of a structure insert on this machine:
 *   the checks lock the parent row of every child row, one query each); the rows the triggers would have written
 *   are then written here, from the batch's temporary maps, with the triggers' own expressions: the title and name
 *   search copies (card_title_search_insert, contact_name_search_insert), the counts as a fold leaves them
 *   (card_counts, contact_counts) and the report's rollups as the service's first fill computes them
 *   (ROLLUP_OF_CARDS, src/modules/cards/report-rollups.ts, over the batch's rows). The boards' structure_version
 *   is their insert's nextval, not bumped by the structure inserts: any fresh value is a valid one.
 * - `triggers`: the triggers and checks run as for the service, and the deltas they wrote are folded as
 *   card_counts_fold / card_report_fold / contact_counts_fold fold them, for every board of the batch at once.
 *
 * Either way `--verify` compares the counts and rollups with the cards (bench/seed-tenants-verify.ts).
 */
import { type SQL, sql } from 'drizzle-orm';

const DAY = (col: string) => `(${col} at time zone 'UTC')::date`;
const DAY_OF = (col: string) => `coalesce(${DAY(col)}, 'infinity'::date)`;

/**
 * ROLLUP_OF_CARDS's rows (src/modules/cards/report-rollups.ts: per board, created day and phase, assignee, tag,
 * "has an assignee", "has a tag") over the batch's own rows, t_card and its links: the tables' statistics lag the
 * batches, and the planner would scan them whole. `--verify` compares the result with ROLLUP_OF_CARDS itself.
 */
const ROLLUP_OF_BATCH = `
  select org_id, board_id, kind, key, day, count(*), sum(value) from (
    select org_id, board_id, 'p' as kind, coalesce(phase_id, 0) as key, ${DAY('created')} as day, value from t_card
    union all
    select c.org_id, c.board_id, 'a', a.membership_id, ${DAY('c.created')}, c.value
      from t_card c join t_card_assignee a on a.org_id = c.org_id and a.card_id = c.card_id
    union all
    select c.org_id, c.board_id, 't', g.tag_id, ${DAY('c.created')}, c.value
      from t_card c join t_card_tag g on g.org_id = c.org_id and g.card_id = c.card_id
    union all
    select c.org_id, c.board_id, 'A', 0, ${DAY('c.created')}, c.value from t_card c
      where exists (select 1 from t_card_assignee a where a.org_id = c.org_id and a.card_id = c.card_id)
    union all
    select c.org_id, c.board_id, 'T', 0, ${DAY('c.created')}, c.value from t_card c
      where exists (select 1 from t_card_tag g where g.org_id = c.org_id and g.card_id = c.card_id)
  ) r group by 1, 2, 3, 4, 5`;

const DIRECT: [string, SQL][] = [
  ['analyze links', sql.raw('analyze t_card_tag, t_card_assignee')],
  [
    'card title search',
    sql`insert into card_title_search (organization_id, card_id, board_id, phase_id, phase_entered_at, due_date, value, title)
      select org_id, card_id, board_id, phase_id, entered, due, value, crm_fold(title) from t_card`,
  ],
  [
    'card counts',
    sql.raw(`insert into card_counts (organization_id, board_id, phase_id, due_day, card_count, value_sum)
      select org_id, board_id, coalesce(phase_id, 0), ${DAY_OF('due')}, count(*), sum(value) from t_card
      group by 1, 2, 3, 4`),
  ],
  [
    'report rollups',
    sql.raw(`insert into card_report_rollups (organization_id, board_id, kind, key, day, card_count, value_sum)
      ${ROLLUP_OF_BATCH}`),
  ],
  [
    'contact name search',
    sql`insert into contact_name_search (organization_id, contact_id, name)
      select org_id, contact_id, crm_fold(name) from t_contact`,
  ],
  [
    'contact counts',
    sql`insert into contact_counts (organization_id, contact_count)
      select org_id, count(*) from t_contact group by 1`,
  ],
];

const FOLDS: [string, SQL][] = [
  [
    'fold card counts',
    sql`with moved as (
      delete from card_count_deltas d using t_org o where d.organization_id = o.org_id
      returning d.organization_id, d.board_id, d.phase_id, d.due_day, d.card_count, d.value_sum)
    insert into card_counts (organization_id, board_id, phase_id, due_day, card_count, value_sum)
    select organization_id, board_id, phase_id, due_day, sum(card_count), sum(value_sum) from moved
    group by 1, 2, 3, 4
    on conflict (organization_id, board_id, phase_id, due_day) do update
      set card_count = card_counts.card_count + excluded.card_count,
          value_sum = card_counts.value_sum + excluded.value_sum`,
  ],
  [
    'fold report',
    sql`with moved as (
      delete from card_report_deltas d using t_org o where d.organization_id = o.org_id
      returning d.organization_id, d.board_id, d.kind, d.key, d.day, d.card_count, d.value_sum)
    insert into card_report_rollups (organization_id, board_id, kind, key, day, card_count, value_sum)
    select organization_id, board_id, kind, key, day, sum(card_count), sum(value_sum) from moved
    group by 1, 2, 3, 4, 5
    on conflict (organization_id, board_id, day, kind, key) do update
      set card_count = card_report_rollups.card_count + excluded.card_count,
          value_sum = card_report_rollups.value_sum + excluded.value_sum`,
  ],
  [
    'fold contact counts',
    sql`with moved as (
      delete from contact_count_deltas d using t_org o where d.organization_id = o.org_id
      returning d.organization_id, d.contact_count)
    insert into contact_counts (organization_id, contact_count)
    select organization_id, sum(contact_count) from moved group by 1
    on conflict (organization_id) do update
      set contact_count = contact_counts.contact_count + excluded.contact_count`,
  ],
];

export type DerivedMode = 'direct' | 'triggers';

/** The batch's first statement (before its inserts). */
export const batchPrologue = (mode: DerivedMode): [string, SQL][] =>
  mode === 'direct' ? [['replica role', sql.raw('set local session_replication_role = replica')]] : [];

/** The batch's last statements (after its inserts). */
export const derivedStatements = (mode: DerivedMode): [string, SQL][] => (mode === 'direct' ? DIRECT : FOLDS);
