import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/**
 * Deep pages read their keys first: past `fromOffset`, the page's (organization_id, id) come from the index that
 * serves the list's order, then only those rows are fetched, in the same order (byte for byte the same page).
 * Why and why 1,000: docs/decisions.md "Deep pages: the deferred join".
 */
export const deepPages = { fromOffset: 1000 };

export function isDeepPage(offset: number): boolean {
  return offset >= deepPages.fromOffset;
}

/** `(organization_id, id) in (<keys>)`: the outer condition of a deferred join. */
export function keyIn(organizationId: PgColumn, id: PgColumn, keys: SQL | { getSQL(): SQL }): SQL {
  return sql`(${organizationId}, ${id}) in (${keys})`;
}
