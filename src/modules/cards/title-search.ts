import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { searchCopyDdl } from '../../platform/db/search-copy.js';
import { foldedPattern, scopedTrigramKeys } from '../../platform/db/search-fold.js';
import { soleContainsi } from '../../platform/http/list-query.js';
import { type StatsOptions, totalAndStats } from './repo.js';
import { cardTitleSearch } from './table.js';

/**
 * The total and stats of `filters[title][$containsi]=…` (alone, or with the one phase a Kanban column pins) from
 * `card_title_search` (table.ts), one narrow row per card: its title folded (crm_fold) and what the stats read
 * (docs/performance.md, fifth pass; docs/cards.md), kept by triggers on `cards` (platform/db/search-copy.ts): the
 * one-statement create and bulk inserts, changes of the copied columns (title, board, moves, due date, value) and
 * deletes (a board's cascade too). Keyed by (organization, board, card): a row trigger finds the copy by the old
 * board. The page of such a list is still the ordered walk of the cards' own index; only the count and stats
 * read this table.
 */
export const CARD_TITLE_SEARCH_SQL = searchCopyDdl({
  table: 'card_title_search',
  source: 'cards',
  columns: [
    ['organization_id', (r) => `${r}organization_id`],
    ['card_id', (r) => `${r}id`],
    ['board_id', (r) => `${r}board_id`],
    ['phase_id', (r) => `${r}current_phase_id`],
    ['phase_entered_at', (r) => `${r}current_phase_entered_at`],
    ['due_date', (r) => `${r}due_date`],
    ['value', (r) => `${r}value`],
    ['title', (r) => `crm_fold(${r}title)`],
  ],
  key: ['organization_id', 'card_id'],
  watch: ['board_id', 'current_phase_id', 'current_phase_entered_at', 'due_date', 'value', 'title'],
  shape: 'crm_fold',
  findOld: 'organization_id = OLD.organization_id AND board_id = OLD.board_id AND card_id = OLD.id',
});

export interface TitleSearch {
  text: string;
  /** The phase the filter pins (pinnedPhase), or null. */
  phaseId: number | null;
}

/**
 * When `card_title_search` can answer a list's total and stats: the filter is `title $containsi` and nothing else,
 * or that and the one phase it pins. `$contains` is exact, which a folded copy cannot tell; it and
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
 * `crm_fold(title) LIKE crm_fold(pattern)` is the list's own `$containsi` condition (list-query.ts); the board's
 * trigram keys only pick the candidates it decides on, through the table's GIN index (table.ts).
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
    scopedTrigramKeys(t.boardId, t.title, boardId, search.text),
    sql`${t.title} like ${foldedPattern('$containsi', search.text)}`,
  );
  return totalAndStats(tx, t, where, stats, {
    phaseEnteredAt: t.phaseEnteredAt,
    dueDate: t.dueDate,
    value: t.value,
  });
}
