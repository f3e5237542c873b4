/**
 * The statements of bench/seed-tenants.ts for one batch of organizations, each a set-based INSERT … SELECT over
 * generate_series and the batch's temporary id maps (t_org, t_board, t_phase…), sent through the tables as the
 * table owner: the statement triggers write what they write for the service (card and contact count deltas, the
 * report's deltas, the title and name search copies, the boards' structure versions). The last three fold the
 * deltas as card_counts_fold, card_report_fold and contact_counts_fold do (src/modules/cards/counts.ts,
 * report-rollups.ts, src/modules/contacts/counts.ts), for every board of the batch in one statement each.
 *
 * documentIds are the md5 of the row's kind and place, cut to 24 characters: the service's format (24 lowercase
 * alphanumerics, here only 0-9a-f), unique, and the same for the same seed.
 */
import { type SQL, sql } from 'drizzle-orm';
import {
  CITIES,
  COMPANY,
  DOMAINS,
  FIRST,
  LAST,
  ORIGINS,
  PHASES,
  PLANS,
  PRODUCT,
  STREETS,
  SUFFIX,
} from './seed-vocabulary.js';

export interface Template {
  orgId: number;
  boardId: number;
  /** Slugs of the template board's won and lost phases (null: none). */
  wonSlug: string | null;
  lostSlug: string | null;
  /** The template board's phase slugs in order. */
  phaseSlugs: string[];
  tagCount: number;
}

export interface Batch {
  /** Organization ordinals (slug bench-<n>), inclusive. */
  from: number;
  to: number;
  boards: number;
  cards: number;
  members: number;
  contacts: number;
  passwordHash: string;
  /** setseed's argument, in [-1, 1]: the batch's random() draws are the same from run to run. */
  seed: number;
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
/** An element of a list of words, chosen by the draw `r` in [0, 1). */
const pickOf = (values: readonly string[], r: string) =>
  sql.raw(`(array[${values.map(literal).join(', ')}])[1 + floor(${r} * ${values.length})::int]`);
const doc = (kind: string, ...parts: string[]) =>
  sql.raw(`left(md5('${kind}:' || ${parts.join(` || ':' || `)}), 24)`);

/**
 * The phase order of a card from one draw `r`: the seed's weights (bench/seed-vocabulary.ts PHASES) when the
 * template has its phases, else uniform.
 */
function phaseOrder(t: Template, r: string): SQL {
  const same = t.phaseSlugs.join() === PHASES.map((p) => p.slug).join();
  const weights = same ? PHASES.map((p) => p.weight) : t.phaseSlugs.map(() => 1);
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  const arms = weights.slice(0, -1).map((w, i) => {
    acc += w;
    return `when ${r} < ${acc / total} then ${i}`;
  });
  return sql.raw(`case ${arms.join(' ')} else ${weights.length - 1} end`);
}

/** The seed's creation sources and their weights (bench/seed.ts SOURCES). */
const SOURCE = sql.raw(
  `case when r5 < 0.40 then 'manual' when r5 < 0.65 then 'form' when r5 < 0.80 then 'api'
    when r5 < 0.90 then 'import' when r5 < 0.95 then 'lead_ads' else 'automation' end`,
);

/** A dynamic field's value by type, as bench/seed.ts fieldValue writes it (jsonb). */
const FIELD_VALUE = sql.raw(`case f.type
  when 'text' then to_jsonb(s.company)
  when 'email' then to_jsonb('contato@' || regexp_replace(crm_fold(s.company), '[^a-z0-9]+', '', 'g') || '.com.br')
  when 'select' then f.options -> floor(random() * jsonb_array_length(f.options))::int
  when 'phone' then to_jsonb('+55' || (11 + floor(random() * 88))::int || '9' || lpad(floor(random() * 1e8)::bigint::text, 8, '0'))
  when 'number' then to_jsonb(1 + floor(random() * 5000)::int)
  when 'multiselect' then coalesce((select jsonb_agg(o) from jsonb_array_elements(f.options) o where random() < 0.35), '[]')
  when 'switch' then to_jsonb(random() < 0.3)
  when 'currency' then to_jsonb(1000 + floor(random() * 499001)::int)
  when 'date' then to_jsonb(to_char(current_date + (floor(random() * 151)::int - 120), 'YYYY-MM-DD'))
  when 'datetime' then to_jsonb(to_char((date_trunc('day', now()) + (floor(random() * 151) - 30) * interval '1 day'
    + (8 + floor(random() * 11)) * interval '1 hour') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
  else 'null'::jsonb end`);

const TEMP_TABLES = [
  't_user (n int, m int, user_id bigint)',
  't_org (n int, org_id bigint)',
  't_member (org_id bigint, m int, membership_id bigint, role text)',
  't_board (org_id bigint, board_id bigint)',
  't_phase (org_id bigint, board_id bigint, slug text, ord int, phase_id bigint)',
  't_field (board_id bigint, document_id text, type text, options jsonb, ord int)',
  't_tag (org_id bigint, board_id bigint, tag_id bigint)',
  't_contact (org_id bigint, k int, contact_id bigint, name text)',
  `t_card_src (org_id bigint, board_id bigint, k int, company text, product text, ord int, created timestamptz,
    entered timestamptz, due timestamptz, value numeric(14,2), source text, contact_k int, described boolean, utm text)`,
  `t_card (org_id bigint, board_id bigint, card_id bigint, phase_id bigint, entered timestamptz, due timestamptz,
    value numeric(14,2), title text, created timestamptz)`,
  't_card_tag (org_id bigint, card_id bigint, tag_id bigint)',
  't_card_assignee (org_id bigint, card_id bigint, membership_id bigint)',
];

/** The batch's statements in order, each named for the timings. */
export function batchStatements(b: Batch, t: Template): [string, SQL][] {
  const cityNames = CITIES.map((c) => c[0]);
  const cityStates = CITIES.map((c) => c[1]);
  const tagShare = t.tagCount ? Math.min(1, 0.92 / t.tagCount) : 0; // bench/seed.ts: 0.92 tags per card
  const assigneeShare = Math.min(1, 1 / b.members); // and one assignee per card
  return [
    ['setseed', sql`select setseed(${b.seed}::float8)`],
    ...TEMP_TABLES.map(
      (def) =>
        [`temp ${def.split(' ')[0]}`, sql.raw(`create temp table ${def} on commit drop`)] as [string, SQL],
    ),
    [
      'users',
      sql`with u as (
        insert into users (document_id, username, email, password_hash)
        select ${doc('bench-user', 'n', 'm')}, 'bench-' || n || '-user-' || m,
          'bench-' || n || '-user-' || m || '@bench.example.com', ${b.passwordHash}
        from generate_series(${b.from}::int, ${b.to}::int) n, generate_series(0, ${b.members - 1}::int) m
        returning id, username)
      insert into t_user select split_part(username, '-', 2)::int, split_part(username, '-', 4)::int, id from u`,
    ],
    [
      'organizations',
      sql`with o as (
        insert into organizations (document_id, name, slug, plan, time_zone)
        select ${doc('bench-org', 'n')}, 'Bench ' || n, 'bench-' || n, t.plan, t.time_zone
        from generate_series(${b.from}::int, ${b.to}::int) n, organizations t where t.id = ${t.orgId}
        returning id, slug)
      insert into t_org select substr(slug, 7)::int, id from o`,
    ],
    [
      'memberships',
      sql`with ins as (
        insert into memberships (organization_id, document_id, user_id, role)
        select o.org_id, ${doc('bench-membership', 'u.user_id')}, u.user_id,
          case u.m when 0 then 'owner' when 1 then 'admin' else 'member' end
        from t_org o join t_user u on u.n = o.n
        returning organization_id, id, user_id, role)
      insert into t_member select ins.organization_id, u.m, ins.id, ins.role
      from ins join t_user u on u.user_id = ins.user_id`,
    ],
    [
      'boards',
      sql`with ins as (
        insert into boards (organization_id, document_id, name, slug, active, board_type, icon, color, template,
          task_statuses, show_value, currency, restrict_edit_to_assignees, restrict_view_to_assignees,
          enable_products, auto_update_card_value, auto_update_due_date_from_phase, owner_membership_id,
          form_consent, created_at)
        select o.org_id, ${doc('bench-board', 'o.n', 'i')},
          case when i = 0 then t.name else 'Funil ' || (i + 1) end,
          case when i = 0 then t.slug else 'funil-' || (i + 1) end,
          t.active, t.board_type, t.icon, t.color, t.template, t.task_statuses, t.show_value, t.currency,
          t.restrict_edit_to_assignees, t.restrict_view_to_assignees, t.enable_products, t.auto_update_card_value,
          t.auto_update_due_date_from_phase, ow.membership_id, t.form_consent,
          -- older than their cards, as bench/seed.ts backdates its boards (the report's default range)
          now() - interval '400 days'
        from t_org o join t_member ow on ow.org_id = o.org_id and ow.m = 0
          cross join generate_series(0, ${b.boards - 1}::int) i
          cross join boards t
        where t.organization_id = ${t.orgId} and t.id = ${t.boardId}
        order by o.org_id, i
        returning organization_id, id)
      insert into t_board select organization_id, id from ins`,
    ],
    [
      'phases',
      sql`with ins as (
        insert into phases (organization_id, document_id, board_id, name, slug, "order", is_public, description,
          max_time_in_phase_hours, allowed_transitions, color)
        select b.org_id, ${doc('bench-phase', 'b.board_id', 'p.id')}, b.board_id, p.name, p.slug, p."order",
          p.is_public, p.description, p.max_time_in_phase_hours, p.allowed_transitions, p.color
        from t_board b cross join phases p
        where p.organization_id = ${t.orgId} and p.board_id = ${t.boardId}
        order by b.board_id, p."order"
        returning organization_id, board_id, slug, "order", id)
      insert into t_phase select * from ins`,
    ],
    ['analyze', sql.raw('analyze t_org, t_member, t_board, t_phase')],
    [
      'boards won/lost',
      sql`update boards b set won_phase_id = w.phase_id, lost_phase_id = l.phase_id, updated_at = now()
        from t_board tb
          left join t_phase w on w.board_id = tb.board_id and w.slug = ${t.wonSlug}
          left join t_phase l on l.board_id = tb.board_id and l.slug = ${t.lostSlug}
        where b.organization_id = tb.org_id and b.id = tb.board_id`,
    ],
    [
      'fields',
      sql`with ins as (
        insert into field_definitions (organization_id, document_id, board_id, phase_id, label, slug, type, "order",
          required, placeholder, help_text, default_value, options)
        select b.org_id, ${doc('bench-field', 'b.board_id', 'f.id')}, b.board_id, ph.phase_id, f.label, f.slug,
          f.type, f."order", f.required, f.placeholder, f.help_text, f.default_value, f.options
        from field_definitions f
          join phases tp on tp.organization_id = f.organization_id and tp.id = f.phase_id
          cross join t_board b
          join t_phase ph on ph.board_id = b.board_id and ph.slug = tp.slug
        where f.organization_id = ${t.orgId} and f.board_id = ${t.boardId}
        order by b.board_id, f."order"
        returning board_id, document_id, type, options, phase_id)
      insert into t_field select ins.board_id, ins.document_id, ins.type, ins.options, ph.ord
      from ins join t_phase ph on ph.phase_id = ins.phase_id`,
    ],
    [
      'tags',
      sql`with ins as (
        insert into tags (organization_id, document_id, board_id, name, slug, color)
        select b.org_id, ${doc('bench-tag', 'b.board_id', 'g.id')}, b.board_id, g.name, g.slug, g.color
        from t_board b cross join tags g
        where g.organization_id = ${t.orgId} and g.board_id = ${t.boardId}
        order by b.board_id, g.id
        returning organization_id, board_id, id)
      insert into t_tag select * from ins`,
    ],
    [
      'board members',
      // As bench/seed-structure.ts: the members edit every board (owner and admins see them all anyway).
      sql`insert into board_members (organization_id, board_id, membership_id, kind)
        select b.org_id, b.board_id, m.membership_id, 'editor'
        from t_board b join t_member m on m.org_id = b.org_id and m.role = 'member'`,
    ],
    [
      'contacts',
      sql`with src as (
        select o.org_id, k, random() as r1, random() as r2, random() as r3, random() as r4, random() as r5,
          random() as r6, random() as r7, random() as r8, random() as r9,
          now() - floor(random() * 731) * interval '1 day' - random() * interval '1 day' as created
        from t_org o cross join generate_series(1, ${b.contacts}::int) k
      ), named as (
        select src.*, case when r1 < 0.2
          then ${pickOf(COMPANY, 'r2')} || ' ' || ${pickOf(SUFFIX, 'r3')}
          else ${pickOf(FIRST, 'r2')} || ' ' || ${pickOf(LAST, 'r3')} || ' ' || ${pickOf(LAST, 'r4')} end as name
        from src
      ), ins as (
        insert into contacts (organization_id, document_id, name, email, phone, contact_type, address, city, state,
          country, postal_code, owner_id, owned_at, custom_fields, created_at, updated_at)
        select s.org_id, ${doc('bench-contact', 's.org_id', 's.k')}, s.name,
          case when s.r5 < 0.9 then regexp_replace(crm_fold(s.name), '[^a-z0-9]+', '.', 'g') || '.' || s.k || '@'
            || ${pickOf(DOMAINS, 's.r6')} end,
          case when s.r6 < 0.85 then '+55' || (11 + floor(s.r7 * 88))::int || '9' || lpad(floor(s.r8 * 1e8)::bigint::text, 8, '0') end,
          case when s.r1 < 0.2 then 'empresa' else 'pessoa' end,
          ${pickOf(STREETS, 's.r7')} || ', ' || (1 + floor(s.r9 * 3000))::int,
          ${pickOf(cityNames, 's.r8')}, ${pickOf(cityStates, 's.r8')}, 'Brasil',
          lpad((1000000 + floor(s.r9 * 98999999))::bigint::text, 8, '0'),
          case when s.r4 < 0.7 then m.membership_id end, case when s.r4 < 0.7 then s.created end,
          jsonb_build_object('plano', ${pickOf(PLANS, 's.r5')}, 'score', floor(s.r6 * 101)::int,
            'canal', ${pickOf(ORIGINS, 's.r7')}),
          s.created, s.created + floor(s.r9 * 31) * interval '1 day'
        from named s join t_member m on m.org_id = s.org_id and m.m = floor(s.r3 * ${b.members}::int)::int
        order by s.org_id, s.k
        returning organization_id, id, name)
      insert into t_contact
      select organization_id, row_number() over (partition by organization_id order by id), id, name from ins`,
    ],
    [
      'card drafts',
      sql`insert into t_card_src
        select org_id, board_id, k, company, product, ord, created,
          created + r6 * (now() - created), due, value, source, contact_k, described, utm
        from (
          select b.org_id, b.board_id, k, random() as r1, random() as r2, random() as r3, random() as r4,
            random() as r5, random() as r6, random() as r7, random() as r8,
            -- created over the last year in id order, as a live board accumulates them (bench/seed.ts)
            now() - interval '365 days' + (k - 1 + random()) / ${b.cards}::float8 * interval '365 days' as created,
            case when random() < 0.8 then date_trunc('day', now()) + (floor(random() * 151) - 60) * interval '1 day'
              + (9 + floor(random() * 10)) * interval '1 hour' end as due,
            round((random() * 50000)::numeric, 2) as value
          from t_board b cross join generate_series(1, ${b.cards}::int) k
        ) d, lateral (select
          ${pickOf(COMPANY, 'r1')} || ' ' || ${pickOf(SUFFIX, 'r2')} as company, ${pickOf(PRODUCT, 'r3')} as product,
          ${phaseOrder(t, 'r4')} as ord, ${SOURCE} as source,
          case when r7 < 0.4 and ${b.contacts}::int > 0 then 1 + floor(r8 * ${b.contacts}::int)::int end as contact_k,
          r8 < 0.3 as described, ${pickOf(['google', 'facebook', 'newsletter'], 'r2')} as utm) x`,
    ],
    ['index t_field', sql.raw('create index on t_field (board_id)')],
    ['analyze drafts', sql.raw('analyze t_card_src, t_field, t_contact')],
    [
      'cards',
      sql`with ins as (
        insert into cards (organization_id, document_id, board_id, title, description, value, due_date,
          due_date_source, current_phase_id, current_phase_entered_at, contact_id, creation_source, tracking, fields,
          created_at, updated_at)
        select s.org_id, ${doc('bench-card', 's.board_id', 's.k')}, s.board_id, s.company || ' - ' || s.product,
          case when s.described then '<p>Oportunidade de ' || s.product || ' para ' || s.company || '.</p>' end,
          s.value, s.due, case when s.due is not null then 'manual' end, ph.phase_id, s.entered, ct.contact_id,
          s.source, case when s.source = 'form' then jsonb_build_object('utm_source', s.utm) else '{}' end,
          coalesce(fv.fields, '{}'), s.created, s.entered
        from t_card_src s
          join t_phase ph on ph.board_id = s.board_id and ph.ord = s.ord
          left join t_contact ct on ct.org_id = s.org_id and ct.k = s.contact_k
          -- bench/seed.ts: a field of a later phase only once the card is won or lost; 95% / 70% filled
          left join lateral (
            select jsonb_object_agg(f.document_id, ${FIELD_VALUE}) as fields from t_field f
            where f.board_id = s.board_id and (f.ord <= s.ord or s.ord >= 4)
              and random() < case when f.ord = 0 then 0.95 else 0.7 end
          ) fv on true
        order by s.org_id, s.board_id, s.k
        returning organization_id, board_id, id, current_phase_id, current_phase_entered_at, due_date, value, title,
          created_at)
      insert into t_card select * from ins`,
    ],
    ['analyze cards', sql.raw('analyze t_card, t_tag')],
    [
      'card tags',
      sql`with ins as (
        insert into card_tags (organization_id, card_id, tag_id)
        select c.org_id, c.card_id, g.tag_id from t_card c join t_tag g on g.board_id = c.board_id
        where random() < ${tagShare}::float8
        returning organization_id, card_id, tag_id)
      insert into t_card_tag select * from ins`,
    ],
    [
      'card assignees',
      sql`with ins as (
        insert into card_assignees (organization_id, card_id, membership_id)
        select c.org_id, c.card_id, m.membership_id from t_card c join t_member m on m.org_id = c.org_id
        where random() < ${assigneeShare}::float8
        returning organization_id, card_id, membership_id)
      insert into t_card_assignee select * from ins`,
    ],
  ];
}
