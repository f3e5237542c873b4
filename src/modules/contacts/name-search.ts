import { and, count, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { searchCopyDdl } from '../../platform/db/search-copy.js';
import { foldedPattern, scopedTrigramKeys } from '../../platform/db/search-fold.js';
import { soleContainsi } from '../../platform/http/list-query.js';
import { contactNameSearch } from './table.js';

/**
 * The exact total of `filters[name][$containsi]=…` from `contact_name_search` (table.ts), one narrow row per
 * contact holding its name folded by crm_fold (docs/performance.md, fifth pass; docs/contacts.md), kept by triggers on
 * `contacts` (platform/db/search-copy.ts). The page of such a list is still the ordered walk of the contacts' own
 * index; only the count reads this table.
 */
export const CONTACT_NAME_SEARCH_SQL = searchCopyDdl({
  table: 'contact_name_search',
  source: 'contacts',
  columns: [
    ['organization_id', (r) => `${r}organization_id`],
    ['contact_id', (r) => `${r}id`],
    ['name', (r) => `crm_fold(${r}name)`],
  ],
  key: ['organization_id', 'contact_id'],
  watch: ['name'],
  shape: 'crm_fold',
  findOld: 'organization_id = OLD.organization_id AND contact_id = OLD.id',
});

/**
 * The name text a list's filter searches when `contact_name_search` can answer its total: the filter is
 * `name $containsi` and nothing else, and no `q` (whose words live in `contacts.search_text`). `$contains` is
 * exact, which a folded copy cannot tell: it stays on the contacts.
 */
export function nameSearchOf(filters: Record<string, unknown> | undefined, q: string | undefined) {
  if (q || !filters || Object.keys(filters).length !== 1) return undefined;
  return soleContainsi(filters, 'name');
}

/**
 * How many of the organization's contacts have `text` in their name, ignoring case and accents. The copy holds
 * `crm_fold(name)` and the pattern is folded by the database with the same function, so the total is the one
 * the contacts' `crm_fold(name) LIKE crm_fold(pattern)` (the list's `$containsi`) gives; the organization's
 * trigram keys only pick the candidates it decides on, through the table's GIN index (table.ts).
 */
export function countNameMatches(tx: Tx, orgId: number, text: string) {
  return tx
    .select({ total: count() })
    .from(contactNameSearch)
    .where(
      and(
        eq(contactNameSearch.organizationId, orgId),
        scopedTrigramKeys(contactNameSearch.organizationId, contactNameSearch.name, orgId, text),
        sql`${contactNameSearch.name} like ${foldedPattern('$containsi', text)}`,
      ),
    );
}
