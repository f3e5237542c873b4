import { sql } from 'drizzle-orm';
import { bigint, boolean, integer, jsonb, PgDialect, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { unnestInsertSql } from '../../src/platform/db/bulk-insert.js';
import { type Database, queryRows } from '../../src/platform/db/client.js';
import { sqlRowMapper } from '../../src/platform/db/rows.js';
import { testDatabase } from '../helpers/app.js';

/**
 * unnestInsertSql (src/platform/db/bulk-insert.ts): many rows in one statement of one array per column, on both
 * backends (PGlite always, PostgreSQL with DATABASE_URL). The rows read back equal to what was given, whatever the
 * text holds (quotes, backslashes, braces, commas, the word NULL), with the defaults of the columns a row leaves out.
 */
const TABLE = `bulk_insert_probe_${process.pid}`;
const probe = pgTable(TABLE, {
  id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
  label: text('label').notNull(),
  note: text('note'),
  kind: text('kind').notNull().default('plain'),
  n: integer('n'),
  flag: boolean('flag').notNull().default(false),
  data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
  at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  tag: text('tag').$defaultFn(() => 'from-fn'),
});
const row = sqlRowMapper(probe);

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await db.system.execute(
    sql.raw(`create table ${TABLE} (id bigint generated always as identity primary key, label text not null,
      note text, kind text not null default 'plain', n integer, flag boolean not null default false,
      data jsonb not null default '{}', at timestamptz not null default now(), tag text)`),
  );
});
afterAll(async () => {
  await db.system.execute(sql.raw(`drop table if exists ${TABLE}`));
});

const insert = async (rows: Partial<typeof probe.$inferInsert>[]) =>
  (await queryRows<Record<string, unknown>>(db.system, unnestInsertSql(probe, rows, true))).map(row.map);

describe('unnestInsertSql', () => {
  test('hostile text, nulls, jsonb and dates read back as given, in order', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const labels = ['a "quoted" word', 'back\\slash\\', '{braces}', 'a,b', 'NULL', '', 'ação çà 🙂', "it's"];
    const out = await insert(
      labels.map((label, i) => ({
        label,
        note: i % 2 ? null : `note ${label}`,
        n: i,
        flag: i % 3 === 0,
        data: { label, nested: { list: [1, '"x"'] } },
        at,
      })),
    );
    expect(out.map((r) => r.label)).toEqual(labels);
    expect(out.map((r) => r.note)).toEqual(labels.map((l, i) => (i % 2 ? null : `note ${l}`)));
    expect(out.map((r) => r.n)).toEqual(labels.map((_, i) => i));
    expect(out.map((r) => r.flag)).toEqual(labels.map((_, i) => i % 3 === 0));
    expect(out.map((r) => r.data)).toEqual(labels.map((label) => ({ label, nested: { list: [1, '"x"'] } })));
    expect(out.every((r) => r.at.getTime() === at.getTime())).toBe(true);
    expect(out.every((r) => r.kind === 'plain' && r.tag === 'from-fn')).toBe(true);
  });

  test('a column some rows leave out takes its default there; a column no row gives is not written', async () => {
    const before = Date.now() - 60_000;
    const out = await insert([{ label: 'x', kind: 'special', flag: true, tag: 'own' }, { label: 'y' }]);
    expect(out.map((r) => [r.kind, r.flag, r.tag])).toEqual([
      ['special', true, 'own'],
      ['plain', false, 'from-fn'],
    ]);
    expect(out.every((r) => r.at.getTime() >= before && r.n === null)).toBe(true);
    expect(out[1].id).toBeGreaterThan(out[0].id);
  });

  test('the statement text does not grow with the rows (one parameter per column)', () => {
    const text = (n: number) =>
      new PgDialect().sqlToQuery(
        unnestInsertSql(
          probe,
          Array.from({ length: n }, () => ({ label: 'z' })),
        ),
      );
    expect(text(1).sql).toBe(text(5_000).sql);
    expect(text(5_000).params).toHaveLength(2);
  });
});
