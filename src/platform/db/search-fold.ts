import { type SQL, sql } from 'drizzle-orm';

/**
 * Accent- and case-blind search (issue 35, docs/decisions.md "Accent-blind search"): `crm_fold(text)` is the text
 * lowercased and without accents ("Vitória" → "vitoria", "AÇÃO" → "acao", "ß" → "ss"). PostgreSQL's `unaccent`
 * is STABLE (its dictionary could change), so it cannot appear in an index or a generated column; this IMMUTABLE
 * wrapper names the dictionary and can. Not inlined (an IMMUTABLE SQL function calling a STABLE one never is), so
 * it is one function the planner matches against the indexes built over it, and one function migrate.ts marks
 * LEAKPROOF (it cannot fail on any text) so that RLS lets those indexes answer.
 *
 * Applied by migrate.ts ahead of the migrations (the indexes and the generated column of 0001_accent_blind_search
 * call it), idempotent: created only when missing. Without the unaccent extension (a server without contrib) the
 * function folds the Latin-1 and Latin Extended-A accents with translate() instead. Its definition is never
 * replaced in place: the indexes and search copies built with it would silently disagree with a new one; a
 * change must be a new function (and new indexes) or a REINDEX plus a refill of the copies.
 */
export const SEARCH_FOLD_SQL = [
  `
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'unaccent') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;
    EXCEPTION WHEN others THEN
      RAISE NOTICE 'unaccent extension unavailable (%): crm_fold uses translate()', SQLERRM;
    END;
  END IF;
  IF to_regprocedure('public.crm_fold(text)') IS NULL THEN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'unaccent') THEN
      CREATE FUNCTION public.crm_fold(text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
        AS $f$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, $1)) $f$;
    ELSE
      CREATE FUNCTION public.crm_fold(text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
        AS $f$ SELECT translate(lower($1),
          'àáâãäåāăąçćĉċčďđèéêëēĕėęěĝğġģĥħìíîïĩīĭįıĵķĺļľŀłñńņňòóôõöøōŏőŕŗřśŝşšţťŧùúûüũūŭůűųŵýÿŷźżž',
          'aaaaaaaaacccccddeeeeeeeeegggghhiiiiiiiiijklllllnnnnooooooooorrrsssstttuuuuuuuuuuwyyyzzz') $f$;
    END IF;
  END IF;
END $$`,
];

/** `crm_fold(expr)`: what an accent-blind condition compares on the row's side. */
export function fold(expr: SQL): SQL {
  return sql`crm_fold(${expr})`;
}

/**
 * The LIKE pattern of an insensitive text operator (`$containsi`, `$startsWithi`, `$endsWithi`, their `$not…`)
 * folded by the database: crm_fold of the raw text, then LIKE's own characters escaped (folding can make a
 * `%`, `_` or `\` out of their full-width forms, so escaping comes after it), then the operator's wildcards.
 * A constant of the statement: computed once, and usable by a trigram index.
 */
export function foldedPattern(op: string, raw: string): SQL {
  const escaped = sql`replace(replace(replace(crm_fold(${raw}::text), '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;
  const name = op.toLowerCase();
  if (name.includes('contains')) return sql`('%' || ${escaped} || '%')`;
  return name.includes('startswith') ? sql`(${escaped} || '%')` : sql`('%' || ${escaped})`;
}
