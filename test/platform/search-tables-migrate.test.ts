import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { modules } from '../../src/modules.js';
import { type Database, queryRows } from '../../src/platform/db/client.js';
import { migrateDatabase } from '../../src/platform/db/migrate.js';
import { newTenant, openPrivateApp } from '../helpers/app.js';

/**
 * The search tables' triggers (contacts/name-search.ts, cards/title-search.ts) on a database of their own (an
 * in-memory PGlite: these tests drop triggers and truncate `cards` and `contacts`, which the shared test
 * database must never see): created where missing, the tables are filled from the rows already there.
 */
let db: Database;
let app: FastifyInstance;

let close: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ db, app, close } = await openPrivateApp());
});
afterAll(() => close?.());

const mirrored = async () => {
  const [r] = await queryRows<{ cards: boolean; contacts: boolean; n: number }>(
    db.system,
    sql`select
          (select coalesce(array_agg((organization_id, id, board_id, current_phase_id, current_phase_entered_at,
                                      due_date, value, crm_fold(title)) order by organization_id, id), '{}') from cards)
          = (select coalesce(array_agg((organization_id, card_id, board_id, phase_id, phase_entered_at, due_date,
                                        value, title) order by organization_id, card_id), '{}') from card_title_search)
            as cards,
          (select coalesce(array_agg((organization_id, id, crm_fold(name)) order by organization_id, id), '{}') from contacts)
          = (select coalesce(array_agg((organization_id, contact_id, name) order by organization_id, contact_id), '{}')
             from contact_name_search) as contacts,
          ((select count(*) from card_title_search) + (select count(*) from contact_name_search))::int as n`,
  );
  return r;
};

describe('search tables: migration', () => {
  test('created where missing, they are filled from the rows already there; TRUNCATE clears them', async () => {
    const t = await newTenant(app);
    const board = await t.api.post('/boards', {
      data: { name: 'Migrate', phases: [{ name: 'Open', slug: 'open' }] },
    });
    expect(board.status).toBe(201);
    for (const title of ['Globex', 'Initech'])
      expect(
        (await t.api.post(`/boards/${board.body.documentId}/cards`, { data: { title, value: 3 } })).status,
      ).toBe(201);
    for (const name of ['Ana Silva', 'Bia Souza'])
      expect((await t.api.post('/contacts', { data: { name } })).status).toBe(201);
    expect(await mirrored()).toEqual({ cards: true, contacts: true, n: 4 });

    // As a database whose last migration run predates the search tables: no insert triggers, empty tables.
    await db.system.execute(sql`drop trigger card_title_search_insert on cards`);
    await db.system.execute(sql`drop trigger contact_name_search_insert on contacts`);
    await db.system.execute(sql`truncate card_title_search, contact_name_search`);
    // Rows written while the triggers were away.
    await db.system.execute(
      sql`insert into cards (organization_id, document_id, board_id, title, value, current_phase_id)
          select organization_id, 'untracked', board_id, 'Untracked GLOBEX', 7, current_phase_id from cards limit 1`,
    );
    await db.system.execute(
      sql`insert into contacts (organization_id, document_id, name)
          select organization_id, 'untracked', 'Untracked SILVA' from contacts limit 1`,
    );
    await db.system.execute(sql`update crm_schema_state set fingerprint = 'before-search-tables'`);
    await migrateDatabase(db, modules);
    expect(await mirrored()).toEqual({ cards: true, contacts: true, n: 6 });
    const cards = await t.api.get(`/boards/${board.body.documentId}/cards`, {
      'filters[title][$containsi]': 'globex',
    });
    expect(cards.body.meta.pagination.total).toBe(2);
    expect(cards.body.meta.stats.valueSum).toBe(10);
    const contacts = await t.api.get('/contacts', { 'filters[name][$containsi]': 'silva' });
    expect(contacts.body.meta.pagination.total).toBe(2);

    // Running the migration again changes nothing (no second fill, no duplicate triggers).
    await db.system.execute(sql`update crm_schema_state set fingerprint = 'again'`);
    await migrateDatabase(db, modules);
    expect(await mirrored()).toEqual({ cards: true, contacts: true, n: 6 });
    const [triggers] = await queryRows<{ n: number }>(
      db.system,
      sql`select count(*)::int as n from pg_trigger
          where tgname like 'card_title_search_%' or tgname like 'contact_name_search_%'`,
    );
    expect(triggers.n).toBe(8);

    await db.system.execute(sql`truncate cards, contacts cascade`);
    expect(await mirrored()).toEqual({ cards: true, contacts: true, n: 0 });
  });

  test("an older release's copies (titles and names only lowercased, the 0.1.0 shape) are refolded by the upgrade", async () => {
    const t = await newTenant(app);
    const board = await t.api.post('/boards', {
      data: { name: 'Refold', phases: [{ name: 'Open', slug: 'open' }] },
    });
    const boardId = board.body.documentId;
    for (const title of ['Vitória Régia', 'Ação de cobrança'])
      expect((await t.api.post(`/boards/${boardId}/cards`, { data: { title } })).status).toBe(201);
    expect((await t.api.post('/contacts', { data: { name: 'João Conceição' } })).status).toBe(201);
    // As 0.1.0 left them: lower() copies, its triggers' WHEN clause, no shape comment.
    await db.system.execute(sql`update card_title_search set title = lower(c.title) from cards c
      where c.organization_id = card_title_search.organization_id and c.id = card_title_search.card_id`);
    await db.system.execute(sql`update contact_name_search set name = lower(c.name) from contacts c
      where c.organization_id = contact_name_search.organization_id and c.id = contact_name_search.contact_id`);
    await db.system.execute(sql`comment on table card_title_search is null`);
    await db.system.execute(sql`comment on table contact_name_search is null`);
    const total = async (path: string, query: Record<string, unknown>) =>
      (await t.api.get(path, query)).body.meta.pagination.total;
    expect(await total(`/boards/${boardId}/cards`, { 'filters[title][$containsi]': 'vitoria' })).toBe(0);
    expect(await mirrored()).toMatchObject({ cards: false, contacts: false });

    await db.system.execute(sql`update crm_schema_state set fingerprint = 'before-accent-blind'`);
    await migrateDatabase(db, modules);
    expect(await mirrored()).toEqual({ cards: true, contacts: true, n: 3 });
    expect(await total(`/boards/${boardId}/cards`, { 'filters[title][$containsi]': 'VITORIA' })).toBe(1);
    expect(await total(`/boards/${boardId}/cards`, { 'filters[title][$containsi]': 'acao' })).toBe(1);
    expect(await total('/contacts', { 'filters[name][$containsi]': 'joao conceicao' })).toBe(1);
    // The recreated update triggers keep following the rows.
    const [first] = (await t.api.get(`/boards/${boardId}/cards`, { 'filters[title][$containsi]': 'acao' }))
      .body.data;
    await t.api.put(`/boards/${boardId}/cards/${first.documentId}`, { data: { title: 'Promoção' } });
    expect(await total(`/boards/${boardId}/cards`, { 'filters[title][$containsi]': 'promocao' })).toBe(1);
    expect(await mirrored()).toEqual({ cards: true, contacts: true, n: 3 });
    const [triggers] = await queryRows<{ n: number }>(
      db.system,
      sql`select count(*)::int as n from pg_trigger
          where tgname like 'card_title_search_%' or tgname like 'contact_name_search_%'`,
    );
    expect(triggers.n).toBe(8);
  });
});
