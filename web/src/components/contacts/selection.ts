import { useState } from 'preact/hooks';
import type { Matching } from './BulkBar';
import type { Contact } from './shared';

/**
 * The contacts list's selection: rows picked one by one, or every contact a search matches (sent to the service as
 * the list's `q`). Every match stays selected only while the box still says the search the list shows; leaving it
 * keeps what the screen shows selected (the rows on it, not an older page's).
 */
export function useContactSelection(list: {
  rows: Contact[] | undefined;
  /** The search the list was asked with ('' for none) and what the box says now. */
  query: string;
  typed: string;
  total: number | undefined;
  /** The list still shows the previous search's page. */
  stale: boolean;
}) {
  const { rows, query, total } = list;
  const [selected, setSelected] = useState<Map<string, Contact>>(new Map());
  // The search whose every match is selected: another search (or none) drops it.
  const [allOf, setAllOf] = useState<string | null>(null);
  const matching: Matching | null =
    query && allOf === query && total !== undefined && list.typed.trim() === query
      ? { q: query, total }
      : null;
  const onScreen = () => new Map((rows ?? []).map((c) => [c.documentId, c] as const));
  const toggle = (c: Contact, on: boolean) => {
    const next = matching ? onScreen() : new Map(selected);
    if (on) next.set(c.documentId, c);
    else next.delete(c.documentId);
    setSelected(next);
    if (!on) setAllOf(null);
  };
  const pageAll = !!rows?.length && (!!matching || rows.every((c) => selected.has(c.documentId)));
  const togglePage = (on: boolean) => {
    const next = matching ? onScreen() : new Map(selected);
    for (const c of rows ?? []) on ? next.set(c.documentId, c) : next.delete(c.documentId);
    setSelected(next);
    if (!on) setAllOf(null);
  };
  return {
    selected,
    matching,
    toggle,
    pageAll,
    togglePage,
    /** Only a search is offered "every match": without one the selection would be every contact. */
    offerAll: !!query && pageAll && !matching && !list.stale && (total ?? 0) > (rows?.length ?? 0),
    selectAllMatching: () => setAllOf(query),
    onlyThisPage: () => {
      setSelected(onScreen());
      setAllOf(null);
    },
    /** A new search: the matches of the old one are no longer selected. */
    searchChanged: () => setAllOf(null),
    clear: () => {
      setSelected(new Map());
      setAllOf(null);
    },
  };
}
