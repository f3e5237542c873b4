import { ApiError, reason } from '../api';
import { ConditionsSection } from '../components/board-editor/Conditions';
import { FieldsSection } from '../components/board-editor/Fields';
import { PeopleSection } from '../components/board-editor/People';
import { PhasesSection } from '../components/board-editor/Phases';
import { SettingsSection } from '../components/board-editor/Settings';
import { bw } from '../components/board-editor/shared';
import { TagsSection } from '../components/board-editor/Tags';
import { TransitionsSection } from '../components/board-editor/Transitions';
import { Link } from '../components/Link';
import { NotFound } from '../components/NotFound';
import { canConfigure } from '../lib/board-access';
import { PageHeader, Skeleton } from '../ui';
import { useBoard } from './Kanban';

const SECTIONS = [
  ['be-board', 'secBoard'],
  ['be-phases', 'secPhases'],
  ['be-fields', 'secFields'],
  ['be-transitions', 'secTransitions'],
  ['be-conditions', 'secConditions'],
  ['be-tags', 'secTags'],
  ['be-people', 'secPeople'],
] as const;

/**
 * The board editor (/app/boards/:boardId/edit): the board's settings, phases, fields, allowed moves, field
 * conditions, tags and people, each saved through the API's structure routes; the Kanban reads the same board
 * query, so it follows at once. For admins and the board's owner (the service decides).
 */
export function BoardEditorPage({ boardId }: { boardId: string }) {
  const board = useBoard(boardId);
  if (board.error) {
    if (board.error instanceof ApiError && (board.error.status === 404 || board.error.status === 400))
      return <NotFound />;
    return (
      <p role="alert" class="error page">
        {reason(board.error)}
      </p>
    );
  }
  if (!board.data)
    return (
      <section class="page">
        <Skeleton lines={8} />
      </section>
    );
  const b = board.data;
  const back = (
    <Link href={`/boards/${b.documentId}`} class="button-link">
      {bw('openKanban')}
    </Link>
  );
  if (!canConfigure(b))
    return (
      <section class="page">
        <PageHeader title={bw('editorTitle', { name: b.name })} actions={back} />
        <p class="muted">{bw('notAllowed')}</p>
      </section>
    );
  return (
    <section class="page board-editor" data-testid="board-editor">
      <PageHeader title={bw('editorTitle', { name: b.name })} actions={back}>
        <nav class="be-nav" aria-label={bw('sections')}>
          {SECTIONS.map(([id, key]) => (
            <a key={id} href={`#${id}`}>
              {bw(key)}
            </a>
          ))}
        </nav>
      </PageHeader>
      <SettingsSection key={`settings-${b.name}-${b.color}-${JSON.stringify(b.boardSettings)}`} board={b} />
      <PhasesSection board={b} />
      <FieldsSection board={b} />
      <TransitionsSection board={b} />
      <ConditionsSection board={b} />
      <TagsSection board={b} />
      <PeopleSection
        key={`people-${b.owner?.documentId}-${b.members.length}-${b.editors.length}`}
        board={b}
      />
    </section>
  );
}
