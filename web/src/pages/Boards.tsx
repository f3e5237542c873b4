import { useState } from 'preact/hooks';
import { Link } from '../components/Link';
import { NewBoardDialog } from '../components/NewBoard';
import { t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { canConfigure, isOrgAdmin } from '../lib/board-access';
import { useBoardList } from '../lib/board-queries';
import { Button, PageHeader } from '../ui';
import * as boardWords from '../words/board-work';

const kw = wordsOf(boardWords);

export function BoardsPage() {
  const boards = useBoardList();
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
