import { useQuery } from '@tanstack/react-query';
import { type Board, client, unwrap } from '../api';

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
