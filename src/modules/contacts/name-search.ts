import { and, count, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { likePattern, soleContainsi } from '../../platform/http/list-query.js';
import { contactNameSearch } from './table.js';

/**
 * The exact total of `filters[name][$containsi]=…` from `contact_name_search` (table.ts), one narrow row per
 * contact holding its name lowercased (docs/performance.md, fifth pass; docs/contacts.md). The page of such a
 * list is still the ordered walk of the contacts' own index; only the count reads this table.
 *
 * Kept by triggers on `contacts` in the writing transaction: inserts by a statement trigger (one INSERT … SELECT
 * per statement, so imports stay bulk), name changes and deletes by row triggers (an update that leaves the
 * name alone does not even call them: the WHEN clause is checked in C), TRUNCATE by a statement trigger. Row
 * triggers for the two that must find the search row: a statement trigger joining its transition table would
 * keep, in PL/pgSQL's cached plan, a join chosen for the first statement's row count. `migrate.ts` applies
 * this after every migration (idempotent); the first time, it fills the table from the contacts already there,
 * one organization at a time (forced RLS, as the card counts do).
 */
export const CONTACT_NAME_SEARCH_SQL = [
  `
CREATE OR REPLACE FUNCTION contact_name_search_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE contact_name_search;
  ELSE
    INSERT INTO contact_name_search (organization_id, contact_id, name)
    SELECT organization_id, id, lower(name) FROM new_contacts;
  END IF;
  RETURN NULL;
END $fn$`,
  `
CREATE OR REPLACE FUNCTION contact_name_search_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM contact_name_search WHERE organization_id = OLD.organization_id AND contact_id = OLD.id;
  ELSE
    UPDATE contact_name_search SET name = lower(NEW.name)
    WHERE organization_id = NEW.organization_id AND contact_id = NEW.id AND name <> lower(NEW.name);
  END IF;
  RETURN NULL;
END $fn$`,
  `
DO $$
DECLARE
  fresh boolean := NOT EXISTS (
    SELECT 1 FROM pg_trigger WHERE tgname = 'contact_name_search_insert' AND tgrelid = 'contacts'::regclass);
  o record;
BEGIN
  IF fresh THEN
    CREATE TRIGGER contact_name_search_insert AFTER INSERT ON contacts REFERENCING NEW TABLE AS new_contacts
      FOR EACH STATEMENT EXECUTE FUNCTION contact_name_search_insert();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'contact_name_search_truncate' AND tgrelid = 'contacts'::regclass) THEN
    CREATE TRIGGER contact_name_search_truncate AFTER TRUNCATE ON contacts
      FOR EACH STATEMENT EXECUTE FUNCTION contact_name_search_insert();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'contact_name_search_update' AND tgrelid = 'contacts'::regclass) THEN
    CREATE TRIGGER contact_name_search_update AFTER UPDATE ON contacts
      FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION contact_name_search_change();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'contact_name_search_delete' AND tgrelid = 'contacts'::regclass) THEN
    CREATE TRIGGER contact_name_search_delete AFTER DELETE ON contacts
      FOR EACH ROW EXECUTE FUNCTION contact_name_search_change();
  END IF;
  IF fresh THEN
    FOR o IN SELECT id FROM organizations LOOP
      PERFORM set_config('app.organization_id', o.id::text, true);
      DELETE FROM contact_name_search WHERE organization_id = o.id;
      INSERT INTO contact_name_search (organization_id, contact_id, name)
      SELECT organization_id, id, lower(name) FROM contacts WHERE organization_id = o.id;
    END LOOP;
    PERFORM set_config('app.organization_id', '', true);
  END IF;
END $$`,
];

/**
 * The name text a list's filter searches when `contact_name_search` can answer its total: the filter is
 * `name $containsi` and nothing else, and no `q` (whose words live in `contacts.search_text`). `$contains` is
 * case-sensitive, which a lowercased copy cannot tell: it stays on the contacts.
 */
export function nameSearchOf(filters: Record<string, unknown> | undefined, q: string | undefined) {
  if (q || !filters || Object.keys(filters).length !== 1) return undefined;
  return soleContainsi(filters, 'name');
}

/**
 * How many of the organization's contacts have `text` in their name, ignoring case. `lower(name) LIKE
 * lower(pattern)` is what ILIKE computes in a multibyte (UTF-8) database, so the total is the one the
 * contacts' `name ILIKE pattern` gives; the pattern is lowercased by the database, with the same function.
 */
export function countNameMatches(tx: Tx, orgId: number, text: string) {
  return tx
    .select({ total: count() })
    .from(contactNameSearch)
    .where(
      and(
        eq(contactNameSearch.organizationId, orgId),
        sql`${contactNameSearch.name} like lower(${likePattern('$containsi', text)})`,
      ),
    );
}
