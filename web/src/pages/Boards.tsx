import { useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { type Board, client, unwrap } from '../api';
import { Link } from '../components/Link';
import { NewBoardDialog } from '../components/NewBoard';
import { t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { canConfigure, isOrgAdmin } from '../lib/board-access';
import { Button, PageHeader } from '../ui';
import * as boardWords from '../words/board-work';

const kw = wordsOf(boardWords);

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
  const [creating, setCreating] = useState(false);
  return (
    <section class="page">
      <PageHeader
        title={t('boards')}
        actions={isOrgAdmin() && <Button onClick={() => setCreating(true)}>{kw('newBoard')}</Button>}
      />
      {creating && <NewBoardDialog onClose={() => setCreating(false)} />}
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
            {canConfigure(b) && (
              <Link href={`/boards/${b.documentId}/edit`} aria-label={kw('editBoardOf', { name: b.name })}>
                {kw('editBoard')}
              </Link>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
