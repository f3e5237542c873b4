/**
 * `bench/seed-tenants.ts --verify`: one organization the seeder wrote, picked at random, read through the service
 * in this process (app.inject, a session of its owner) and compared with the rows in the database and with the
 * seeder's options: its boards, one board's structure, cards, title search and report, its contacts; and the
 * counts and report rollups the service keeps, against the same figures computed from the cards
 * (src/modules/cards/report-rollups.ts ROLLUP_OF_CARDS, the oracle of the rollups' tests).
 */
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { ROLLUP_OF_CARDS } from '../src/modules/cards/report-rollups.js';
import { sessionSigner } from '../src/platform/auth/tokens.js';
import { type Database, queryRows } from '../src/platform/db/client.js';
import { instanceSecret } from '../src/platform/secrets/secrets.js';
import { startJobs } from '../src/workers.js';
import { benchConfig } from './lib.js';
import type { TenantOptions } from './seed-tenants.js';

interface Check {
  what: string;
  api: unknown;
  db: unknown;
  expected?: unknown;
}

const one = async <T>(db: Database, query: ReturnType<typeof sql>) =>
  (await queryRows<T>(db.system, query))[0];

/**
 * Rows of the organization whose foreign key finds no parent, over every foreign key of a table with an
 * `organization_id` (the default seed mode skips the checks: bench/seed-tenants-derived.ts).
 */
async function orphans(db: Database, orgId: number): Promise<number> {
  const queries = await queryRows<{ q: string }>(
    db.system,
    sql`select format('select count(*)::int as n from %I c where c.organization_id = %s and %s and not exists (select 1 from %I p where %s)',
          cl.relname, ${orgId}::bigint,
          (select string_agg(format('c.%I is not null', a.attname), ' and ') from unnest(con.conkey) k
             join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k),
          pl.relname,
          (select string_agg(format('p.%I = c.%I', pa.attname, ca.attname), ' and ')
             from unnest(con.conkey, con.confkey) as u(ck, pk)
             join pg_attribute ca on ca.attrelid = con.conrelid and ca.attnum = u.ck
             join pg_attribute pa on pa.attrelid = con.confrelid and pa.attnum = u.pk)) as q
        from pg_constraint con join pg_class cl on cl.oid = con.conrelid join pg_class pl on pl.oid = con.confrelid
        where con.contype = 'f' and exists (select 1 from pg_attribute a where a.attrelid = con.conrelid
          and a.attname = 'organization_id' and not a.attisdropped)`,
  );
  let n = 0;
  for (const { q } of queries) n += (await one<{ n: number }>(db, sql.raw(q)))!.n;
  return n;
}

/** Prints the checks; true when every one agrees. */
export async function verifyTenants(db: Database, o: TenantOptions): Promise<boolean> {
  // An organization of this seeder: its owner is its own generated user (bench-<n>-user-0).
  const org = await one<{ id: number; slug: string; userId: number }>(
    db,
    sql`select o.id, o.slug, u.id as "userId" from organizations o
        join memberships m on m.organization_id = o.id and m.role = 'owner'
        join users u on u.id = m.user_id and u.username = o.slug || '-user-0'
        order by random() limit 1`,
  );
  if (!org) {
    console.error('verify: no organization written by seed-tenants in this database');
    return false;
  }
  const config = benchConfig();
  const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt')));
  const background = await startJobs(config, db, false);
  const app = await buildApp({ config, db, background });
  await app.ready();
  const headers = { authorization: `Bearer ${await signer.sign(org.userId)}`, 'x-tenant-id': org.slug };
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url: encodeURI(url).replace(/\$/g, '%24'), headers });
    if (res.statusCode !== 200) throw new Error(`GET ${url} → ${res.statusCode} ${res.body.slice(0, 300)}`);
    return JSON.parse(res.body);
  };
  const checks: Check[] = [];
  try {
    const boards = await get('/api/boards?pagination[pageSize]=100');
    const dbBoards = await one<{ n: number }>(
      db,
      sql`select count(*)::int as n from boards where organization_id = ${org.id}`,
    );
    checks.push({ what: 'boards', api: boards.meta.pagination.total, db: dbBoards.n, expected: o.orgBoards });

    const board = boards.data[Math.floor(Math.random() * boards.data.length)];
    const boardId = (await one<{ id: number }>(
      db,
      sql`select id from boards where organization_id = ${org.id} and document_id = ${board.documentId}`,
    ))!.id;
    const structure = await get(`/api/boards/${board.documentId}`);
    const dbStructure = await one<{ phases: number; fields: number; tags: number }>(
      db,
      sql`select (select count(*)::int from phases where organization_id = ${org.id} and board_id = ${boardId}) as phases,
            (select count(*)::int from field_definitions where organization_id = ${org.id} and board_id = ${boardId}) as fields,
            (select count(*)::int from tags where organization_id = ${org.id} and board_id = ${boardId}) as tags`,
    );
    const apiFields = structure.phases.reduce(
      (n: number, p: { fields: unknown[] }) => n + p.fields.length,
      0,
    );
    checks.push({ what: 'phases', api: structure.phases.length, db: dbStructure.phases });
    checks.push({ what: 'fields', api: apiFields, db: dbStructure.fields });
    checks.push({ what: 'tags', api: structure.tags.length, db: dbStructure.tags });

    const cards = await get(`/api/boards/${board.documentId}/cards?pagination[pageSize]=100`);
    const dbCards = await one<{ n: number; value: number; title: string }>(
      db,
      sql`select count(*)::int as n, coalesce(sum(value), 0)::float8 as value, min(title) as title
          from cards where organization_id = ${org.id} and board_id = ${boardId}`,
    );
    checks.push({
      what: 'cards (total)',
      api: cards.meta.pagination.total,
      db: dbCards.n,
      expected: o.boardCards,
    });
    checks.push({ what: 'cards (page rows)', api: cards.data.length, db: dbCards.n });
    if (cards.data.length > 0) {
      const card = cards.data[0];
      const detail = await get(`/api/boards/${board.documentId}/cards/${card.documentId}`);
      checks.push({
        what: 'a card read by id',
        api: detail.data?.documentId ?? detail.documentId,
        db: card.documentId,
      });
      const word = dbCards.title.split(' ')[0];
      const search = await get(`/api/boards/${board.documentId}/cards?filters[title][$containsi]=${word}`);
      const dbSearch = await one<{ n: number }>(
        db,
        sql`select count(*)::int as n from cards where organization_id = ${org.id} and board_id = ${boardId}
            and crm_fold(title) like '%' || crm_fold(${word}) || '%'`,
      );
      checks.push({ what: `title search "${word}"`, api: search.meta.pagination.total, db: dbSearch.n });
    }
    const report = await get(`/api/boards/${board.documentId}/report`);
    checks.push({ what: 'report cards', api: report.summary.totalCards, db: dbCards.n });
    checks.push({ what: 'report value', api: report.summary.totalValue, db: dbCards.value });

    const contacts = await get('/api/contacts?pagination[pageSize]=1');
    const dbContacts = await one<{ n: number }>(
      db,
      sql`select count(*)::int as n from contacts where organization_id = ${org.id}`,
    );
    checks.push({
      what: 'contacts',
      api: contacts.meta.pagination.total,
      db: dbContacts.n,
      expected: o.orgContacts,
    });
    const members = await get('/api/memberships?pagination[pageSize]=100');
    const dbMembers = await one<{ n: number }>(
      db,
      sql`select count(*)::int as n from memberships where organization_id = ${org.id}`,
    );
    checks.push({
      what: 'members',
      api: members.meta.pagination.total,
      db: dbMembers.n,
      expected: o.orgMembers,
    });

    // What the service keeps beside the cards, against the cards themselves (every board of the organization).
    const kept = await one<{ counts: number; rollups: number; deltas: number }>(
      db,
      sql`select
          (select count(*)::int from (
            (select board_id, phase_id, due_day, card_count, value_sum from card_counts where organization_id = ${org.id}
             except all
             select board_id, coalesce(current_phase_id, 0), coalesce((due_date at time zone 'UTC')::date, 'infinity'::date),
               count(*), sum(value) from cards where organization_id = ${org.id} group by 1, 2, 3)
            union all
            (select board_id, coalesce(current_phase_id, 0), coalesce((due_date at time zone 'UTC')::date, 'infinity'::date),
               count(*), sum(value) from cards where organization_id = ${org.id} group by 1, 2, 3
             except all
             select board_id, phase_id, due_day, card_count, value_sum from card_counts where organization_id = ${org.id})
          ) d) as counts,
          (select count(*)::int from (
            (select board_id, kind, key, day, card_count, value_sum from card_report_rollups where organization_id = ${org.id}
             except all
             select board_id, kind, key, day, card_count, value_sum from (${sql.raw(ROLLUP_OF_CARDS(String(org.id)))}) r)
            union all
            (select board_id, kind, key, day, card_count, value_sum from (${sql.raw(ROLLUP_OF_CARDS(String(org.id)))}) r
             except all
             select board_id, kind, key, day, card_count, value_sum from card_report_rollups where organization_id = ${org.id})
          ) d) as rollups,
          (select count(*)::int from card_count_deltas where organization_id = ${org.id})
            + (select count(*)::int from card_report_deltas where organization_id = ${org.id})
            + (select count(*)::int from contact_count_deltas where organization_id = ${org.id}) as deltas`,
    );
    checks.push({ what: 'rows without their parent', api: '–', db: await orphans(db, org.id), expected: 0 });
    checks.push({ what: 'card_counts rows ≠ cards', api: '–', db: kept.counts, expected: 0 });
    checks.push({ what: 'report rollup rows ≠ cards', api: '–', db: kept.rollups, expected: 0 });
    checks.push({ what: 'unfolded deltas', api: '–', db: kept.deltas, expected: 0 });
  } finally {
    await app.close();
    await background.jobs.stop();
  }
  const agree = (c: Check) =>
    (c.api === '–' || c.api === c.db) && (c.expected === undefined || c.db === c.expected);
  console.log(`verify: ${org.slug} (organization ${org.id}), through the service and in the database`);
  console.log('| check | API | database | expected | |\n|---|---:|---:|---:|---|');
  for (const c of checks)
    console.log(`| ${c.what} | ${c.api} | ${c.db} | ${c.expected ?? ''} | ${agree(c) ? 'ok' : 'MISMATCH'} |`);
  return checks.every(agree);
}
