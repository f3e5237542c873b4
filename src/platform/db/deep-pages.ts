import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/**
 * Deep pages read their keys first (a deferred join, issue 35 item 4; docs/performance.md "Deep pages").
 *
 * `LIMIT n OFFSET k` over a list's index still visits the k skipped entries; a plain page query fetches the
 * whole row (the heap tuple: a card's `fields` jsonb, a contact's every column) of each of them before throwing
 * it away. Past `fromOffset` the page is read in two steps inside ONE statement: the keys (organization_id, id)
 * of the page in the list's order, from the index that serves that order (an index-only walk when the filters
 * are on its columns), LIMIT/OFFSET there; then the rows of those keys only, through the primary key, put back
 * in the same order. The order is total (every list order ends with the id), so the second ORDER BY over the
 * page's rows gives exactly the order of the first: the same page, byte for byte.
 *
 * 1,000: below it the skipped rows are few enough that fetching them costs less than the second statement's
 * plan and probes (a page at offset 1,000 reads about 1,025 heap rows, ≈ 1 ms warm), and the first pages keep the
 * plain plan the list-plan tests check (an index walk that stops after the page). Tests lower it.
 */
export const deepPages = { fromOffset: 1000 };

export function isDeepPage(offset: number): boolean {
  return offset >= deepPages.fromOffset;
}

/** `(organization_id, id) in (<keys>)`: the outer condition of a deferred join. */
export function keyIn(organizationId: PgColumn, id: PgColumn, keys: SQL | { getSQL(): SQL }): SQL {
  return sql`(${organizationId}, ${id}) in (${keys})`;
}
