import { type SQL, sql } from 'drizzle-orm';
import { foldedPattern } from '../../platform/db/search-fold.js';

/**
 * `q`: every word must appear in the search text, accent- and case-blind (the search text and the words both
 * folded by crm_fold: "vitoria" finds "Vitória") (masks of phone/cpf/cnpj ignored). Words of 3+ characters
 * are LIKE conditions the trigram index answers; shorter ones (no trigram to look up) only filter what
 * the index found, through strpos, so they never turn the search into a scan (docs/contacts.md).
 */
export function searchCondition(q: string): SQL {
  const like = (w: string) => sql`"contacts"."search_text" like ${foldedPattern('$containsi', w)}`;
  const short = (w: string) => sql`strpos("contacts"."search_text", crm_fold(${w}::text)) > 0`;
  return sql.join(
    searchTerms(q).map((t) => (t.length >= 3 ? like(t) : short(t))),
    sql` and `,
  );
}

/**
 * Lowercased words of a search; a masked number (123.456.789-09, (11) 9876-5432) becomes its bare digits,
 * the form cpf, cnpj and phone are stored in.
 */
export function searchTerms(q: string): string[] {
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 8)
    .map((word) => (/^[\d().+\-/]+$/.test(word) && /\d/.test(word) ? word.replace(/\D/g, '') : word));
}
