import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'preact/hooks';
import { type Board, type Card, client, unwrap } from '../api';

/** The organization's boards (the boards page's query and cache key): every picker of a board reads this one. */
export function useBoardList(enabled = true) {
  return useQuery({
    queryKey: ['boards'],
    enabled,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/boards', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as unknown as Board[],
  });
}

/** A board's cards whose title holds `q` (accent- and case-blind, the API's `$containsi`), at most `pageSize`. */
export async function findCards<C = { documentId: string; title: string }>(
  boardId: string,
  q: string,
  pageSize: number,
): Promise<C[]> {
  const text = q.trim();
  return (
    await unwrap(
      client.GET('/api/boards/{boardId}/cards', {
        params: {
          path: { boardId },
          query: {
            ...(text ? { filters: { title: { $containsi: text } } } : {}),
            pagination: { pageSize },
          } as never,
        },
      }),
    )
  ).data as unknown as C[];
}

/** A card picker's search: the typed text, and the board's cards holding it (the newest 8 when empty), 300 ms after typing. */
export function useCardSearch(boardId: string, enabled = true) {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const id = setTimeout(() => setQ(text.trim()), 300);
    return () => clearTimeout(id);
  }, [text]);
  const cards = useQuery({
    queryKey: ['card-pick', boardId, q],
    enabled: enabled && !!boardId,
    queryFn: () => findCards<Card>(boardId, q, 8),
  });
  return { text, setText, cards: cards.data, error: cards.error };
}
