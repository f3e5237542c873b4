import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROLLUP_OF_CARDS } from '../../../src/modules/cards/report-rollups.js';
import { modules } from '../../../src/modules.js';
import { type Database, queryRows } from '../../../src/platform/db/client.js';
import { migrateDatabase } from '../../../src/platform/db/migrate.js';
import { newTenant, openPrivateApp } from '../../helpers/app.js';

/**
 * The card-count triggers' life cycle on a database of its own (an in-memory PGlite: these tests drop
 * triggers and truncate `cards`, which the shared test database must never see).
 */
let db: Database;
let app: FastifyInstance;

let close: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ db, app, close } = await openPrivateApp());
});
afterAll(() => close?.());

const countRows = async () => {
  const [r] = await queryRows<{ counts: number; deltas: number; cards: number }>(
    db.system,
    sql`select (select count(*) from card_counts)::int as counts, (select count(*) from card_count_deltas)::int as deltas,
               (select count(*) from cards)::int as cards`,
  );
  return r;
};

async function boardWithCards(n: number) {
  const t = await newTenant(app);
  const res = await t.api.post('/boards', {
    data: {
      name: 'Migrate',
      phases: [
        { name: 'Open', slug: 'open' },
        { name: 'Done', slug: 'done' },
      ],
    },
  });
  expect(res.status).toBe(201);
  for (let i = 0; i < n; i++)
    expect(
      (await t.api.post(`/boards/${res.body.documentId}/cards`, { data: { title: `c${i}`, value: i } }))
        .status,
    ).toBe(201);
  return { t, boardId: res.body.documentId as string };
}

describe('card counts: migration and maintenance', () => {
  test('created where missing, they are filled from the cards already there', async () => {
    const { t, boardId } = await boardWithCards(3);
    await db.system.execute(sql`drop trigger card_counts_insert on cards`);
    await db.system.execute(sql`truncate card_counts, card_count_deltas`);
    // A card written while the triggers were away.
    await db.system.execute(
      sql`insert into cards (organization_id, document_id, board_id, title, value, current_phase_id)
          select organization_id, 'untracked' || id, board_id, 'untracked', 100, current_phase_id from cards limit 1`,
    );
    // As a database whose last migration run predates the counts: its schema fingerprint differs.
    await db.system.execute(sql`update crm_schema_state set fingerprint = 'before-counts'`);
    await migrateDatabase(db, modules);
    const list = await t.api.get(`/boards/${boardId}/cards`);
    expect(list.body.meta.pagination.total).toBe(4);
    expect(list.body.meta.stats.valueSum).toBe(0 + 1 + 2 + 100);
    // Running the migration again changes nothing (no second fill, no duplicate triggers).
    await db.system.execute(sql`update crm_schema_state set fingerprint = 'again'`);
    await migrateDatabase(db, modules);
    expect((await t.api.get(`/boards/${boardId}/cards`)).body.meta).toEqual(list.body.meta);
    const [triggers] = await queryRows<{ n: number }>(
      db.system,
      sql`select count(*)::int as n from pg_trigger where tgrelid = 'cards'::regclass and tgname like 'card_counts_%'`,
    );
    expect(triggers.n).toBe(4);
  });

  test('TRUNCATE of the cards clears the counts', async () => {
    await boardWithCards(2);
    expect((await countRows()).deltas + (await countRows()).counts).toBeGreaterThan(0);
    await db.system.execute(sql`truncate cards cascade`);
    expect(await countRows()).toEqual({ counts: 0, deltas: 0, cards: 0 });
  });
});

describe('report rollups: migration', () => {
  test('created where missing, they are filled from the cards (and links) already there; TRUNCATE clears them', async () => {
    const { boardId } = await boardWithCards(3);
    await db.system.execute(sql`drop trigger card_report_insert on cards`);
    await db.system.execute(sql`truncate card_report_rollups, card_report_deltas`);
    // A card (with a tag) written while the cards' trigger was away.
    await db.system.execute(
      sql`insert into cards (organization_id, document_id, board_id, title, value, current_phase_id)
          select organization_id, 'untracked-r' || id, board_id, 'untracked', 100, current_phase_id from cards
          where board_id = (select id from boards where document_id = ${boardId}) limit 1`,
    );
    await db.system.execute(
      sql`insert into tags (organization_id, document_id, board_id, name, slug)
          select organization_id, 'tag-r' || id, board_id, 'T', 't' from cards where title = 'untracked'`,
    );
    await db.system.execute(
      sql`insert into card_tags (organization_id, card_id, tag_id)
          select c.organization_id, c.id, t.id from cards c join tags t on t.board_id = c.board_id and t.slug = 't'
          where c.title = 'untracked'`,
    );
    // As a database whose last migration run predates the rollups: its schema fingerprint differs.
    await db.system.execute(sql`update crm_schema_state set fingerprint = 'before-rollups'`);
    await migrateDatabase(db, modules);
    await db.system.execute(sql`update crm_schema_state set fingerprint = 'again'`);
    await migrateDatabase(db, modules); // idempotent: no second fill, no duplicate triggers
    const stored = await queryRows<Record<string, unknown>>(
      db.system,
      sql`select board_id, kind, key, day, sum(card_count)::int as n, sum(value_sum)::float8 as v
          from (select * from card_report_rollups union all
                select organization_id, board_id, kind, key, day, card_count, value_sum from card_report_deltas) r
          group by 1, 2, 3, 4 having sum(card_count) <> 0 order by 1, 2, 3, 4`,
    );
    const orgs = (await queryRows<{ id: number }>(db.system, sql`select id from organizations`)).map(
      (r) => r.id,
    );
    const truth = await queryRows<Record<string, unknown>>(
      db.system,
      sql.raw(`select board_id, kind, key, day, sum(card_count)::int as n, sum(value_sum)::float8 as v from (
          ${orgs.map((o) => ROLLUP_OF_CARDS(String(o))).join(' union all ')}) r group by 1, 2, 3, 4 order by 1, 2, 3, 4`),
    );
    expect(truth.length).toBeGreaterThan(0);
    expect(stored).toEqual(truth);
    const [triggers] = await queryRows<{ n: number }>(
      db.system,
      sql`select count(*)::int as n from pg_trigger where tgname like 'card_report_%'`,
    );
    expect(triggers.n).toBe(10);
    await db.system.execute(sql`truncate cards cascade`);
    const [left] = await queryRows<{ n: number }>(
      db.system,
      sql`select ((select count(*) from card_report_rollups) + (select count(*) from card_report_deltas))::int as n`,
    );
    expect(left.n).toBe(0);
  });
});
