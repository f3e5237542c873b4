import { getTableColumns } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * Maps raw rows of `table` (snake_case keys, values as the driver or `to_jsonb` hands them over) to the rows
 * drizzle's select builder returns, through each column's own decoder (timestamps to Dates, bigints to numbers):
 * for the statements written as SQL on a hot path. `columnNames` is the table's columns for such a statement.
 */
export function sqlRowMapper<T extends PgTable>(table: T) {
  const columns = Object.entries(getTableColumns(table));
  return {
    columnNames: columns.map(([, col]) => col.name),
    map(raw: Record<string, unknown>): T['$inferSelect'] {
      const out: Record<string, unknown> = {};
      for (const [key, col] of columns) {
        const v = raw[col.name];
        out[key] = v === null || v === undefined ? null : col.mapFromDriverValue(v);
      }
      return out as T['$inferSelect'];
    },
  };
}
