import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { memberships } from '../organizations/table.js';
import { users } from '../users/table.js';
import { cardScope } from './repo.js';
import { cards } from './table.js';

/** The board report and the card aggregate: SQL aggregates only (report.ts presents them). */

/** Display names of memberships (the name the person chose, else the username), for the aggregate's assignee groups. */
export async function membershipNames(tx: Tx, orgId: number, ids: number[]) {
  if (ids.length === 0) return new Map<number, { documentId: string; username: string }>();
  const rows = await tx
    .select({
      id: memberships.id,
      documentId: memberships.documentId,
      username: sql<string>`coalesce(${users.name}, ${users.username})`,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, orgId), inArray(memberships.id, ids)));
  return new Map(rows.map((r) => [r.id, { documentId: r.documentId, username: r.username }]));
}

export interface ReportScope {
  orgId: number;
  boardId: number;
  from: Date;
  to: Date;
  /** Non-admins on a board restricted to assignees: their membership id. */
  assigneeOnly: number | null;
}

function reportWhere(s: ReportScope) {
  return sql`c.organization_id = ${s.orgId} and c.board_id = ${s.boardId}
    and c.created_at >= ${s.from.toISOString()}::timestamptz and c.created_at <= ${s.to.toISOString()}::timestamptz
    ${s.assigneeOnly === null ? sql`` : sql`and exists (select 1 from card_assignees va where va.organization_id = c.organization_id and va.card_id = c.id and va.membership_id = ${s.assigneeOnly})`}`;
}

export interface ReportRow {
  /** total / won / lost / open (summary), phase, assignee, tag, day; pending: the rollup deltas not folded yet. */
  kind: 'total' | 'won' | 'lost' | 'open' | 'phase' | 'assignee' | 'tag' | 'day' | 'pending';
  /** phase, membership or tag id; null = no phase / unassigned / untagged. */
  key: number | null;
  day: string | null;
  count: number;
  value: number;
  /** Assignee rows: the membership's documentId and display name (the user's name, else the username). */
  documentId: string | null;
  username: string | null;
}

/**
 * The rows both reports sum from their per-phase groups, the CTE `p` (phase, n, v): won, lost and open (the
 * summary), and one row per phase.
 */
function phaseRows(wonPhaseId: number | null, lostPhaseId: number | null) {
  const won = sql`${wonPhaseId ?? -1}::bigint`;
  const lost = sql`${lostPhaseId ?? -1}::bigint`;
  return sql`select 'won', null, null, coalesce(sum(n), 0)::int, coalesce(sum(v), 0)::float8, null, null
        from p where phase = ${won}
      union all select 'lost', null, null, coalesce(sum(n), 0)::int, coalesce(sum(v), 0)::float8, null, null
        from p where phase = ${lost}
      union all select 'open', null, null, coalesce(sum(n), 0)::int, coalesce(sum(v), 0)::float8, null, null
        from p where phase is distinct from ${won} and phase is distinct from ${lost}
      union all select 'phase', phase, null, n::int, v::float8, null, null from p`;
}

/**
 * The whole board report in ONE statement: phases and UTC days are one GROUPING SETS pass over the board's
 * cards in range; assignees and tags one hash left join each, whose null group is the unassigned / untagged
 * count (no per-card probes); the summary is summed from the per-phase groups (numeric sums, cast once).
 * `c` is NOT materialised: each pass is an index-only scan of the board's cards, which costs less than a
 * 200k-row tuplestore and lets PostgreSQL run the joins in parallel (measured: docs/performance.md).
 */
export async function boardReportFromCards(
  tx: Tx,
  s: ReportScope,
  wonPhaseId: number | null,
  lostPhaseId: number | null,
) {
  return queryRows<ReportRow>(
    tx,
    sql`with c as not materialized (
        select c.id, c.current_phase_id, c.value, c.created_at from cards c where ${reportWhere(s)}
      ),
      pd as (
        select c.current_phase_id as phase, (c.created_at at time zone 'UTC')::date as day,
          grouping(c.current_phase_id) as g, count(*) as n, coalesce(sum(c.value), 0) as v
        from c group by grouping sets ((c.current_phase_id), ((c.created_at at time zone 'UTC')::date))
      ),
      p as (select phase, n, v from pd where g = 0),
      a as (
        select ca.membership_id as key, count(*) as n, coalesce(sum(c.value), 0) as v
        from c left join card_assignees ca on ca.organization_id = ${s.orgId} and ca.card_id = c.id
        group by ca.membership_id
      ),
      t as (
        select ct.tag_id as key, count(*) as n
        from c left join card_tags ct on ct.organization_id = ${s.orgId} and ct.card_id = c.id
        group by ct.tag_id
      )
      select 'total' as kind, null::bigint as key, null as day, coalesce(sum(n), 0)::int as count,
        coalesce(sum(v), 0)::float8 as value, null as "documentId", null as username from p
      union all ${phaseRows(wonPhaseId, lostPhaseId)}
      union all select 'day', null, to_char(day, 'YYYY-MM-DD'), n::int, 0, null, null from pd where g = 1
      union all select 'assignee', a.key, null, a.n::int, a.v::float8, m.document_id, coalesce(u.name, u.username) from a
        left join memberships m on m.organization_id = ${s.orgId} and m.id = a.key
        left join users u on u.id = m.user_id
      union all select 'tag', key, null, n::int, 0, null, null from t`,
  );
}

const DAY_MS = 86_400_000;

/**
 * The board report from its rollups (report-rollups.ts): the whole UTC days of the range are read from
 * `card_report_rollups` + `card_report_deltas` (a few rows per day, dimension and key), the partial days at its
 * two ends from the cards themselves (a range of the created index), and both summed in ONE statement into the
 * same rows `boardReportFromCards` returns. When the range ends now (the default), its last day is read whole
 * from the rollups too, less the cards of that day created after its end (a sign of -1: none, or the last
 * minute's) — today's cards, which a busy board has thousands of, are not read one by one on every report. A
 * range shorter than a whole day, or a viewer restricted to their own cards, reads the cards
 * (`boardReportFromCards`).
 */
export async function boardReport(
  tx: Tx,
  s: ReportScope,
  wonPhaseId: number | null,
  lostPhaseId: number | null,
): Promise<ReportRow[]> {
  const firstDay = Math.ceil(s.from.getTime() / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(s.to.getTime() / DAY_MS) * DAY_MS;
  // Ends now: the last day whole from the rollups, less what that day holds after the end.
  const endsNow = s.to.getTime() >= Date.now() - 60_000;
  const endDay = endsNow ? lastDay + DAY_MS : lastDay;
  if (s.assigneeOnly !== null || firstDay >= endDay)
    return boardReportFromCards(tx, s, wonPhaseId, lostPhaseId);
  const from = s.from.toISOString();
  const to = s.to.toISOString();
  const dA = new Date(firstDay).toISOString();
  const dB = new Date(endDay).toISOString();
  const day = (col: string) => sql.raw(`(${col} at time zone 'UTC')::date`);
  const board = sql`organization_id = ${s.orgId} and board_id = ${s.boardId}`;
  const days = sql`day >= ${dA.slice(0, 10)}::date and day < ${dB.slice(0, 10)}::date`;
  return queryRows<ReportRow>(
    tx,
    sql`with e as (
        select c.id, c.current_phase_id, c.value, c.created_at,
          case when c.created_at > ${to}::timestamptz then -1 else 1 end as s from cards c
        where c.organization_id = ${s.orgId} and c.board_id = ${s.boardId}
          and ((c.created_at >= ${from}::timestamptz and c.created_at < ${dA}::timestamptz)
            or ${
              endsNow
                ? sql`(c.created_at > ${to}::timestamptz and c.created_at < ${dB}::timestamptz)`
                : sql`(c.created_at >= ${dB}::timestamptz and c.created_at <= ${to}::timestamptz)`
            })
      ),
      r as (
        select kind, key, day, card_count as n, value_sum as v from card_report_rollups where ${board} and ${days}
        union all
        select kind, key, day, card_count, value_sum from card_report_deltas where ${board} and ${days}
        union all
        select 'p', coalesce(e.current_phase_id, 0), ${day('e.created_at')}, e.s, e.s * e.value from e
        union all
        select 'a', ca.membership_id, ${day('e.created_at')}, e.s, e.s * e.value from e
          join card_assignees ca on ca.organization_id = ${s.orgId} and ca.card_id = e.id
        union all
        select 't', ct.tag_id, ${day('e.created_at')}, e.s, e.s * e.value from e
          join card_tags ct on ct.organization_id = ${s.orgId} and ct.card_id = e.id
        union all
        select 'A', 0, ${day('e.created_at')}, e.s, e.s * e.value from e where exists (
          select 1 from card_assignees ca where ca.organization_id = ${s.orgId} and ca.card_id = e.id)
        union all
        select 'T', 0, ${day('e.created_at')}, e.s, e.s * e.value from e where exists (
          select 1 from card_tags ct where ct.organization_id = ${s.orgId} and ct.card_id = e.id)
      ),
      k as (select kind, key, sum(n) as n, coalesce(sum(v), 0) as v from r group by kind, key having sum(n) <> 0),
      p as (select nullif(key, 0) as phase, n, v from k where kind = 'p'),
      tot as (select coalesce(sum(n), 0) as n, coalesce(sum(v), 0) as v from p),
      withany as (
        select kind, coalesce(sum(n), 0) as n, coalesce(sum(v), 0) as v from k where kind in ('A', 'T') group by kind
      )
      select 'total' as kind, null::bigint as key, null as day, n::int as count, v::float8 as value,
        null as "documentId", null as username from tot
      union all ${phaseRows(wonPhaseId, lostPhaseId)}
      union all select 'day', null, to_char(day, 'YYYY-MM-DD'), sum(n)::int, 0, null, null from r
        where kind = 'p' group by day having sum(n) <> 0
      union all select 'assignee', k.key, null, k.n::int, k.v::float8, m.document_id, coalesce(u.name, u.username) from k
        left join memberships m on m.organization_id = ${s.orgId} and m.id = k.key
        left join users u on u.id = m.user_id
        where k.kind = 'a'
      union all select 'assignee', null, null, (tot.n - coalesce(a.n, 0))::int, (tot.v - coalesce(a.v, 0))::float8,
        null, null from tot left join withany a on a.kind = 'A' where tot.n - coalesce(a.n, 0) > 0
      union all select 'tag', key, null, n::int, 0, null, null from k where kind = 't'
      union all select 'tag', null, null, (tot.n - coalesce(t.n, 0))::int, 0, null, null
        from tot left join withany t on t.kind = 'T' where tot.n - coalesce(t.n, 0) > 0
      union all select 'pending', null, null, count(*)::int, 0, null, null from card_report_deltas where ${board}`,
  );
}

/** Aggregate expressions over the `cards` table. */
export const valueExpr = () => sql`${cards.value}`;
export const numericFieldExpr = (fieldDocumentId: string) =>
  sql`(case when jsonb_typeof(${cards.fields} -> ${fieldDocumentId}::text) = 'number' then (${cards.fields} ->> ${fieldDocumentId}::text)::numeric end)`;
/** Non-null when the field is filled: `count(expr)` counts filled values. */
export const filledFieldExpr = (fieldDocumentId: string) =>
  sql`(${cards.fields} -> ${fieldDocumentId}::text)`;

export type GroupKind = 'phase' | 'assignee' | 'tag' | 'field' | null;

/**
 * `fn(expr)` over the filtered cards, optionally per group, in one statement: the grouped rows plus the
 * overall value and count (a scalar subquery, so cards in several tag/assignee groups count once there).
 */
export async function aggregateCards(
  tx: Tx,
  orgId: number,
  boardId: number,
  where: SQL,
  visibility: SQL | undefined,
  agg: { expr: SQL | null; fn: string; group: GroupKind; fieldKey?: string },
) {
  const scope = cardScope(orgId, boardId, visibility, where)!;
  const value = agg.expr
    ? sql`${sql.raw(agg.fn)}(${agg.expr})::float8`
    : agg.fn === 'count'
      ? sql`count(*)::float8`
      : sql`null::float8`;
  const overall = sql`(select ${value} from cards where ${scope})`;
  const overallCount = sql`(select count(*)::int from cards where ${scope})`;
  if (!agg.group) {
    const [row] = await queryRows<{ value: number | null; count: number }>(
      tx,
      sql`select ${overall} as value, ${overallCount} as count`,
    );
    return {
      value: row.value,
      count: row.count,
      groups: [] as { key: string | number | null; value: number | null; count: number }[],
    };
  }
  const key =
    agg.group === 'phase'
      ? sql`cards.current_phase_id`
      : agg.group === 'assignee'
        ? sql`ga.membership_id`
        : agg.group === 'tag'
          ? sql`gt.tag_id`
          : sql`(cards.fields ->> ${agg.fieldKey!}::text)`;
  const join =
    agg.group === 'assignee'
      ? sql`left join card_assignees ga on ga.organization_id = cards.organization_id and ga.card_id = cards.id`
      : agg.group === 'tag'
        ? sql`left join card_tags gt on gt.organization_id = cards.organization_id and gt.card_id = cards.id`
        : sql``;
  const rows = await queryRows<{
    key: string | number | null;
    value: number | null;
    count: number;
    overall: number | null;
    total: number;
  }>(
    tx,
    sql`select ${key} as key, ${value} as value, count(*)::int as count, ${overall} as overall, ${overallCount} as total
      from cards ${join} where ${scope} group by 1 order by 2 desc nulls last, 1`,
  );
  // No matching card: the overall aggregate of an empty set.
  if (rows.length === 0) return { value: agg.fn === 'count' ? 0 : null, count: 0, groups: [] };
  return {
    value: rows[0].overall,
    count: rows[0].total,
    groups: rows.map((r) => ({ key: r.key, value: r.value, count: r.count })),
  };
}
