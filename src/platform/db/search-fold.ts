import { type SQL, sql } from 'drizzle-orm';

/**
 * Accent- and case-blind search: `crm_fold(text)`, the text lowercased and without accents ("Vitória" → "vitoria"),
 * immutable so that indexes and search copies can use it; created by migrate.ts when missing, never replaced in
 * place. Its three variants and why: docs/decisions.md "Accent- and case-blind search: crm_fold".
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
