-- The board report (spec: BoardReport) as ONE statement: one scan of the board's cards, materialised once,
-- with the per-phase, per-assignee, per-tag and per-day aggregates computed from it. A measured proposal for
-- src/modules/cards (docs/performance.md), not used by the service. psql variables: org, board, won, lost.
-- psql -v org=1 -v board=1 -v won=5 -v lost=6 -f bench/sql/report-single-statement.sql
with c as materialized (
  select c.id, c.current_phase_id, c.value, c.created_at
  from cards c
  where c.organization_id = :org and c.board_id = :board
    and c.created_at >= now() - interval '400 days' and c.created_at <= now()
),
ca as materialized (
  select ca.card_id, ca.membership_id from card_assignees ca join c on c.id = ca.card_id
  where ca.organization_id = :org
),
ct as materialized (
  select ct.card_id, ct.tag_id from card_tags ct join c on c.id = ct.card_id
  where ct.organization_id = :org
)
select json_build_object(
  'summary', (
    select json_build_object(
      'totalCards', count(*),
      'wonCount', count(*) filter (where current_phase_id = :won),
      'lostCount', count(*) filter (where current_phase_id = :lost),
      'unassignedCount', count(*) - (select count(distinct card_id) from ca),
      'untaggedCount', count(*) - (select count(distinct card_id) from ct),
      'totalValue', coalesce(sum(value), 0),
      'wonValue', coalesce(sum(value) filter (where current_phase_id = :won), 0),
      'opportunityValue', coalesce(sum(value) filter (where current_phase_id is distinct from :won
        and current_phase_id is distinct from :lost), 0))
    from c),
  'phases', (select json_agg(x) from (
    select current_phase_id as "phaseId", count(*) as count, coalesce(sum(value), 0) as value from c group by 1) x),
  'assignees', (select json_agg(x) from (
    select ca.membership_id as "membershipId", count(*) as count, coalesce(sum(c.value), 0) as value
    from c left join ca on ca.card_id = c.id group by 1) x),
  'tags', (select json_agg(x) from (select tag_id as "tagId", count(*) as count from ct group by 1) x),
  'createdByDay', (select json_agg(x order by x.date) from (
    select to_char((created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as date, count(*) as count
    from c group by 1) x)
) as report;
