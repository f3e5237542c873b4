import { getTableColumns, getTableName, is, SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

/**
 * Many rows in one INSERT whose text does not grow with them: one array parameter per column, spread back into
 * rows by `unnest` (docs/performance.md, "Background imports"). Drizzle's multi-row `values()` builds a
 * parameter per cell, which cost an import about a third of its Node time; this builds one string per column.
 *
 * A column is written when any row gives it a value. A row that leaves it out (undefined) gets the column's
 * default: its `$defaultFn` called here, or its SQL default through `coalesce` (so an explicit null in such a
 * column also takes the default; the tables written this way have no nullable column with a default).
 * Generated and identity columns are never written. Values are encoded by each column's own encoder.
 */
export function unnestInsertSql<T extends PgTable>(
  table: T,
  rows: readonly Partial<T['$inferInsert']>[],
  returning = false,
): SQL {
  const written = Object.entries(getTableColumns(table) as Record<string, PgColumn>).filter(
    ([key, col]) =>
      !col.generated &&
      !col.generatedIdentity &&
      (col.defaultFn !== undefined || rows.some((r) => (r as Record<string, unknown>)[key] !== undefined)),
  );
  const arrayColumn = written.find(([, col]) => col.getSQLType().endsWith(']'));
  if (arrayColumn) throw new Error(`unnestInsertSql: array column ${arrayColumn[1].name} is not supported`);
  const names = written.map(([, col]) => sql.identifier(col.name));
  const arrays = written.map(([key, col]) => {
    const values = rows.map((r) => {
      const v = (r as Record<string, unknown>)[key];
      return v === undefined && col.defaultFn ? col.defaultFn() : v;
    });
    return sql`${arrayLiteral(col, values)}::${sql.raw(col.getSQLType())}[]`;
  });
  const selected = written.map(([key, col], i) => {
    const value = sql.raw(`u.c${i}`);
    const missing = rows.some((r) => (r as Record<string, unknown>)[key] === undefined);
    if (!missing || col.defaultFn || col.default === undefined) return value;
    const fallback = is(col.default, SQL)
      ? col.default
      : sql`${col.mapToDriverValue(col.default)}::${sql.raw(col.getSQLType())}`;
    return sql`coalesce(${value}, ${fallback})`;
  });
  const aliases = sql.raw(written.map((_, i) => `c${i}`).join(', '));
  return sql`insert into ${sql.identifier(getTableName(table))} (${sql.join(names, sql`, `)})
    select ${sql.join(selected, sql`, `)} from unnest(${sql.join(arrays, sql`, `)}) as u(${aliases})${
      returning ? sql` returning *` : sql``
    }`;
}

/** A PostgreSQL array literal of one column's values: every element quoted and escaped, NULL for a missing one. */
function arrayLiteral(col: PgColumn, values: unknown[]): string {
  const parts = values.map((v) => {
    if (v === undefined || v === null) return 'NULL';
    const encoded = col.mapToDriverValue(v);
    const text = encoded instanceof Date ? encoded.toISOString() : String(encoded);
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${parts.join(',')}}`;
}
