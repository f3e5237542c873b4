import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { likePattern, soleContainsi } from '../../platform/http/list-query.js';
import { type StatsOptions, totalAndStats } from './repo.js';
import { cardTitleSearch } from './table.js';

/**
 * The total and stats of `filters[title][$containsi]=…` (alone, or with the one phase a Kanban column pins) from
 * `card_title_search` (table.ts), one narrow row per card: its title lowercased and what the stats read
 * (docs/performance.md, fifth pass; docs/cards.md). The page of such a list is still the ordered walk of the
 * cards' own index; only the count and stats read this table.
 *
 * Kept by triggers on `cards` in the writing transaction, like the contacts' name search (contacts/name-search.ts):
 * inserts by a statement trigger (the one-statement create and bulk inserts: one INSERT … SELECT), changes of the
 * copied columns (title, board, moves, due date, value) and deletes (a board's cascade too) by row triggers,
 * TRUNCATE by a statement trigger. `migrate.ts` applies this after every migration (idempotent); the first time,
 * it fills the table from the cards already there, one organization at a time.
 */
const COPIED = ['board_id', 'current_phase_id', 'current_phase_entered_at', 'due_date', 'value', 'title'];
const changed = `(${COPIED.map((c) => `OLD.${c}`).join(', ')}) IS DISTINCT FROM (${COPIED.map((c) => `NEW.${c}`).join(', ')})`;

export const CARD_TITLE_SEARCH_SQL = [
  `
CREATE OR REPLACE FUNCTION card_title_search_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE card_title_search;
  ELSE
    INSERT INTO card_title_search (organization_id, card_id, board_id, phase_id, phase_entered_at, due_date, value, title)
    SELECT organization_id, id, board_id, current_phase_id, current_phase_entered_at, due_date, value, lower(title)
    FROM new_cards;
  END IF;
  RETURN NULL;
END $fn$`,
  `
CREATE OR REPLACE FUNCTION card_title_search_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM card_title_search
    WHERE organization_id = OLD.organization_id AND board_id = OLD.board_id AND card_id = OLD.id;
  ELSE
    UPDATE card_title_search
    SET board_id = NEW.board_id, phase_id = NEW.current_phase_id, phase_entered_at = NEW.current_phase_entered_at,
        due_date = NEW.due_date, value = NEW.value, title = lower(NEW.title)
    WHERE organization_id = OLD.organization_id AND board_id = OLD.board_id AND card_id = OLD.id;
  END IF;
  RETURN NULL;
END $fn$`,
  `
DO $$
DECLARE
  fresh boolean := NOT EXISTS (
    SELECT 1 FROM pg_trigger WHERE tgname = 'card_title_search_insert' AND tgrelid = 'cards'::regclass);
  o record;
BEGIN
  IF fresh THEN
    CREATE TRIGGER card_title_search_insert AFTER INSERT ON cards REFERENCING NEW TABLE AS new_cards
      FOR EACH STATEMENT EXECUTE FUNCTION card_title_search_insert();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'card_title_search_truncate' AND tgrelid = 'cards'::regclass) THEN
    CREATE TRIGGER card_title_search_truncate AFTER TRUNCATE ON cards
      FOR EACH STATEMENT EXECUTE FUNCTION card_title_search_insert();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'card_title_search_update' AND tgrelid = 'cards'::regclass) THEN
    CREATE TRIGGER card_title_search_update AFTER UPDATE ON cards
      FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION card_title_search_change();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'card_title_search_delete' AND tgrelid = 'cards'::regclass) THEN
    CREATE TRIGGER card_title_search_delete AFTER DELETE ON cards
      FOR EACH ROW EXECUTE FUNCTION card_title_search_change();
  END IF;
  IF fresh THEN
    FOR o IN SELECT id FROM organizations LOOP
      PERFORM set_config('app.organization_id', o.id::text, true);
      DELETE FROM card_title_search WHERE organization_id = o.id;
      INSERT INTO card_title_search (organization_id, card_id, board_id, phase_id, phase_entered_at, due_date, value, title)
      SELECT organization_id, id, board_id, current_phase_id, current_phase_entered_at, due_date, value, lower(title)
      FROM cards WHERE organization_id = o.id;
    END LOOP;
    PERFORM set_config('app.organization_id', '', true);
  END IF;
END $$`,
];

export interface TitleSearch {
  text: string;
  /** The phase the filter pins (pinnedPhase), or null. */
  phaseId: number | null;
}

/**
 * When `card_title_search` can answer a list's total and stats: the filter is `title $containsi` and nothing else,
 * or that and the one phase it pins. `$contains` is case-sensitive, which a lowercased copy cannot tell; it and
 * every other filter stay on the cards.
 */
export function titleSearchOf(
  filters: Record<string, unknown> | undefined,
  pinned: { id: number } | undefined,
): TitleSearch | undefined {
  const text = soleContainsi(filters, 'title');
  if (text === undefined || !filters) return undefined;
  const keys = Object.keys(filters);
  if (keys.length === 1) return { text, phaseId: null };
  return keys.length === 2 && keys.includes('currentPhase') && pinned
    ? { text, phaseId: pinned.id }
    : undefined;
}

/**
 * countAndStats (repo.ts) of a title search, from the narrow table: the same aggregates over the same cards.
 * `lower(title) LIKE lower(pattern)` is what ILIKE computes in a multibyte (UTF-8) database.
 */
export async function titleSearchStats(
  tx: Tx,
  orgId: number,
  boardId: number,
  search: TitleSearch,
  stats: StatsOptions | null,
) {
  const t = cardTitleSearch;
  const where = and(
    eq(t.organizationId, orgId),
    eq(t.boardId, boardId),
    search.phaseId === null ? undefined : eq(t.phaseId, search.phaseId),
    sql`${t.title} like lower(${likePattern('$containsi', search.text)})`,
  );
  return totalAndStats(tx, t, where, stats, {
    phaseEnteredAt: t.phaseEnteredAt,
    dueDate: t.dueDate,
    value: t.value,
  });
}
