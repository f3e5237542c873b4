import { type AnyColumn, type SQL, sql } from 'drizzle-orm';

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
  // crm_trgm_keys(scope, text): every run of three characters of the text (spaces and punctuation included, no
  // padding, no word splitting: a text that holds the pattern holds each of its runs), each hashed together with a
  // scope (a board, an organization) into an int4, for a GIN index whose keys are the scope's own
  // (docs/performance.md "Scoped trigram keys"; docs/decisions.md). Not pg_trgm's show_trgm: it pads words and
  // shows a trigram of multibyte characters as a hash, so a pattern's padded trigram ("中文 ") cannot be told from
  // an inner one and a text holding the pattern inside a longer word ("中文名字") would be missed. hashtextextended
  // is the hash PostgreSQL keeps stable across releases (hash partitioning depends on it); every name is
  // pg_catalog's, so an index over the function restores under any search_path. Never replaced in place.
  `
DO $$
BEGIN
  IF to_regprocedure('public.crm_trgm_keys(bigint,text)') IS NULL THEN
    CREATE FUNCTION public.crm_trgm_keys(bigint, text) RETURNS int4[]
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      AS $f$ SELECT coalesce(array_agg(DISTINCT
               (pg_catalog.hashtextextended($1::text || ':' || pg_catalog.substr($2, i, 3), 0) % 2147483647)::int4), '{}')
             FROM pg_catalog.generate_series(1, pg_catalog.length($2) - 2) AS i $f$;
  END IF;
END $$`,
];

/**
 * Whether RLS lets the scoped keys answer through their index: `crm_trgm_keys` and `arraycontains` are LEAKPROOF,
 * which only a superuser can mark (migrate.ts sets this after each run). Without it the keys condition would be a
 * per-row filter far dearer than the LIKE it serves, so it is left out and the LIKE alone decides, as for every
 * other search without a superuser.
 */
let scopedKeysIndexed = true;
export function setScopedKeysIndexed(on: boolean) {
  scopedKeysIndexed = on;
}

/**
 * `crm_trgm_keys(scopeColumn, column) @> crm_trgm_keys(scope, crm_fold(raw))`: the condition that lets a GIN index
 * over `crm_trgm_keys(scopeColumn, column)` (a search copy's folded text) find the rows of one scope that hold
 * every three-character run of the searched text. A candidate filter only: the caller's LIKE decides. A pattern
 * that folds to fewer than three characters has no keys: the condition is then true (the statement's values are
 * known when it is planned, so the planner drops it), not `@> '{}'`, which would compute every row's keys.
 * Undefined (no condition) when the index cannot answer under RLS (setScopedKeysIndexed).
 */
export function scopedTrigramKeys(
  scopeColumn: SQL | AnyColumn,
  column: SQL | AnyColumn,
  scope: number,
  raw: string,
): SQL | undefined {
  if (!scopedKeysIndexed) return undefined;
  const keys = sql`crm_trgm_keys(${scope}::bigint, crm_fold(${raw}::text))`;
  return sql`(cardinality(${keys}) = 0 or crm_trgm_keys(${scopeColumn}, ${column}) @> ${keys})`;
}

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
