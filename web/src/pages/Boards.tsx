import { useQuery } from '@tanstack/react-query';
import { type Board, client, unwrap } from '../api';
import { Link } from '../components/Link';
import { t } from '../i18n';

export function useBoards() {
  return useQuery({
    queryKey: ['boards'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/boards', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as unknown as Board[],
  });
}

export function BoardsPage() {
  const boards = useBoards();
  return (
    <section class="page">
      <h1>{t('boards')}</h1>
      {boards.isLoading && <p>{t('loading')}</p>}
      {boards.data?.length === 0 && <p>{t('noItems')}</p>}
      <ul class="board-list">
        {boards.data?.map((b) => (
          <li key={b.documentId} style={{ borderColor: b.color ?? undefined }}>
            <Link href={`/boards/${b.documentId}`}>
              <strong>{b.name}</strong>
            </Link>
            <span class="muted">
              {b.phases.length} · {b.boardSettings.currency}
            </span>
            <Link href={`/boards/${b.documentId}/report`}>{t('report')}</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
