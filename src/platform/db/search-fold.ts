import { type SQL, sql } from 'drizzle-orm';

/**
 * Accent- and case-blind search (issue 35, docs/decisions.md "Accent-blind search"): `crm_fold(text)` is the text
 * lowercased and without accents ("Vitória" → "vitoria", "AÇÃO" → "acao", "ß" → "ss"). PostgreSQL's `unaccent`
 * is STABLE (its dictionary could change), so it cannot appear in an index or a generated column.
 *
 * - With a superuser (PGlite, a self-hosted server): `crm_unaccent(regdictionary, text)` binds the extension's
 *   own C function (`unaccent_dict`) as IMMUTABLE, and `crm_fold` is `lower(crm_unaccent('public.unaccent', $1))`,
 *   a SQL function the planner inlines: a row costs two C calls (measured: 0.8 µs against ILIKE's 0.55 µs, where
 *   a non-inlined SQL wrapper costs 1.9 µs, which an ordered page walk that filters thousands of rows feels).
 *   migrate.ts marks `lower` and `crm_unaccent` LEAKPROOF (neither can fail on any text) so that RLS lets the
 *   indexes over `crm_fold(column)` answer.
 * - Without one (LANGUAGE C needs a superuser): the usual wrapper, `lower(unaccent('public.unaccent', $1))`
 *   declared IMMUTABLE (never inlined: the indexes still match it; without LEAKPROOF marks, which need a superuser
 *   too, the searches are correct but not indexed under RLS, as the other search operators already are then).
 * - Without the unaccent extension (a server without contrib): `translate(lower($1), …)` over the accents of
 *   Latin-1 and Latin Extended-A.
 *
 * Applied by migrate.ts ahead of the migrations (the indexes and the generated column of 0001_accent_blind_search
 * call it), idempotent: created only when missing. Its definition is never replaced in place: the indexes and
 * search copies built with it would silently disagree with a new one; a change must be a new function (and new
 * indexes) or a REINDEX plus a refill of the copies.
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
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'unaccent') THEN
      CREATE FUNCTION public.crm_fold(text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
        AS $f$ SELECT translate(lower($1),
          'àáâãäåāăąçćĉċčďđèéêëēĕėęěĝğġģĥħìíîïĩīĭįıĵķĺļľŀłñńņňòóôõöøōŏőŕŗřśŝşšţťŧùúûüũūŭůűųŵýÿŷźżž',
          'aaaaaaaaacccccddeeeeeeeeegggghhiiiiiiiiijklllllnnnnooooooooorrrsssstttuuuuuuuuuuwyyyzzz') $f$;
    ELSE
      BEGIN
        IF to_regprocedure('public.crm_unaccent(regdictionary,text)') IS NULL THEN
          CREATE FUNCTION public.crm_unaccent(regdictionary, text) RETURNS text
            AS '$libdir/unaccent', 'unaccent_dict' LANGUAGE c IMMUTABLE PARALLEL SAFE STRICT;
        END IF;
        CREATE FUNCTION public.crm_fold(text) RETURNS text
          LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
          AS $f$ SELECT lower(public.crm_unaccent('public.unaccent'::regdictionary, $1)) $f$;
      EXCEPTION WHEN insufficient_privilege THEN
        CREATE FUNCTION public.crm_fold(text) RETURNS text
          LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
          AS $f$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, $1)) $f$;
      END;
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
