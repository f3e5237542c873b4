/**
 * The database functions of the erasure (registration.ts runs them as schema SQL): `crm_scrub_text` replaces
 * every match of a person's identifier pattern (identifiers.ts) with `[erased]`; `crm_scrub_jsonb` does it in
 * every string, number and key of a JSON value, so its structure stays valid (a phone stored as a JSON number
 * becomes the string "[erased]").
 */

export const ERASED = '[erased]';

export const SCRUB_SQL = [
  `
CREATE OR REPLACE FUNCTION public.crm_scrub_text(value text, pattern text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $f$ SELECT regexp_replace(value, pattern, '${ERASED}', 'gi') $f$`,
  `
CREATE OR REPLACE FUNCTION public.crm_scrub_jsonb(value jsonb, pattern text) RETURNS jsonb
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $f$
  BEGIN
    IF value IS NULL THEN
      RETURN NULL;
    END IF;
    CASE jsonb_typeof(value)
      WHEN 'string' THEN
        RETURN to_jsonb(regexp_replace(value #>> '{}', pattern, '${ERASED}', 'gi'));
      WHEN 'number' THEN
        IF (value #>> '{}') ~* pattern THEN
          RETURN to_jsonb('${ERASED}'::text);
        END IF;
        RETURN value;
      WHEN 'object' THEN
        RETURN coalesce((
          SELECT jsonb_object_agg(regexp_replace(key, pattern, '${ERASED}', 'gi'),
                                  public.crm_scrub_jsonb(v, pattern))
          FROM jsonb_each(value) AS e(key, v)), '{}'::jsonb);
      WHEN 'array' THEN
        RETURN coalesce((
          SELECT jsonb_agg(public.crm_scrub_jsonb(v, pattern) ORDER BY n)
          FROM jsonb_array_elements(value) WITH ORDINALITY AS e(v, n)), '[]'::jsonb);
      ELSE
        RETURN value;
    END CASE;
  END
  $f$`,
];
