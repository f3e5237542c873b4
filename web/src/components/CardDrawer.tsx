import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Board, type Card, client, type Phase, reason, unwrap } from '../api';
import type { Condition } from '../conditions';
import { date, dateTime, t } from '../i18n';
import { canEditCards } from '../lib/board-access';
import { code } from '../lib/words';
import { canWrite } from '../session';
import { Button } from '../ui';
import { CardComments } from './CardComments';
import { CardConversation, CardMeetings } from './CardExtras';
import { CardForm, useCardDraft } from './CardForm';
import { DateInput } from './DateInput';
import { CardProducts } from './sales/CardProducts';

interface Task {
  documentId: string;
  name: string;
  taskStatus: string;
  dueDate: string | null;
}

/** The card drawer: fields by type with the board's show/hide conditions, tags, assignees, contact, products and quotes, comments, history, tasks. */
export function CardDrawer(props: {
  board: Board;
  cardId: string;
  onClose: () => void;
  onMove: (c: Card, to: string) => Promise<void>;
  onSaved: (c: Card) => void;
}) {
  const { board, cardId, onClose } = props;
  const boardId = board.documentId;
  const qc = useQueryClient();
  const card = useQuery({
    queryKey: ['card', boardId, cardId],
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/boards/{boardId}/cards/{id}', { params: { path: { boardId, id: cardId } } }),
      )) as unknown as Card,
  });
  // The card's fields and phase: for whom the service lets change this board's cards (comments and tasks need
  // only the member role).
  const writable = canEditCards(board, card.data);
  const conditions = useQuery({
    queryKey: ['conditions', boardId],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/boards/{boardId}/field-conditions', {
            params: { path: { boardId }, query: { pagination: { pageSize: 100 } } as never },
          }),
        )
      ).data as unknown as Condition[],
  });
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['card', boardId, cardId] }),
      qc.invalidateQueries({ queryKey: ['cards', boardId] }),
      qc.invalidateQueries({ queryKey: ['stats', boardId] }),
      qc.invalidateQueries({ queryKey: ['comments', boardId, cardId] }),
    ]);
  const edit = useCardDraft(boardId, cardId, props.onSaved, refresh, board);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    heading.current?.focus();
  }, [cardId]);
  useEffect(() => {
    // A dialog opened over the drawer (the quote editor, a confirmation) takes its own Escape.
    const esc = (e: KeyboardEvent) =>
      e.key === 'Escape' && !e.defaultPrevented && !document.querySelector('dialog[open]') && onClose();
    document.addEventListener('keydown', esc);
    return () => document.removeEventListener('keydown', esc);
  }, [onClose]);

  const c = card.data;
  const phases = [...board.phases].sort((a, b) => a.order - b.order);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click beside the drawer closes it; the keyboard has Escape and the close button
    // biome-ignore lint/a11y/useKeyWithClickEvents: as above
    <div class="drawer-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <aside
        class="drawer"
        role="dialog"
        aria-modal="true"
        aria-labelledby="drawer-title"
        data-testid="card-drawer"
      >
        <header>
          <h2 id="drawer-title" tabIndex={-1} ref={heading}>
            {c?.title ?? t('loading')}
          </h2>
          <Button variant="ghost" onClick={onClose} aria-label={t('close')}>
            ×
          </Button>
        </header>
        {card.error && (
          <p role="alert" class="error">
            {reason(card.error)}
          </p>
        )}
        {c && (
          <>
            <p class="muted">
              {t('phase')}: <strong>{c.currentPhase?.name}</strong> · {dateTime(c.createdAt)}
            </p>
            {writable && (
              <MoveSelect card={c} phases={phases} onMove={(to) => void props.onMove(c, to).then(refresh)} />
            )}
            <CardForm
              board={board}
              card={c}
              phases={phases}
              conditions={conditions.data}
              writable={writable}
              edit={edit}
            />
            <CardProducts board={board} card={c} />
            <Tasks boardId={boardId} card={c} />
            <CardMeetings boardId={boardId} card={c} />
            <CardConversation card={c} />
            <CardComments board={board} cardId={cardId} />
          </>
        )}
      </aside>
    </div>
  );
}

/** "Move to": the board's other phases. */
function MoveSelect({
  card: c,
  phases,
  onMove,
}: {
  card: Card;
  phases: Phase[];
  onMove: (to: string) => void;
}) {
  return (
    <label class="move-select">
      {t('moveTo')}
      <select
        name="move"
        value=""
        onChange={(e) => {
          const to = (e.target as HTMLSelectElement).value;
          if (to) onMove(to);
        }}
      >
        <option value="">—</option>
        {phases
          .filter((p) => p.documentId !== c.currentPhase?.documentId)
          .map((p) => (
            <option key={p.documentId} value={p.documentId}>
              {p.name}
            </option>
          ))}
      </select>
    </label>
  );
}

function Tasks({ boardId, card }: { boardId: string; card: Card }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [due, setDue] = useState('');
  const [error, setError] = useState('');
  const key = ['tasks', 'card', card.documentId];
  const list = useQuery({
    queryKey: key,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/tasks', {
            params: {
              query: {
                filters: { card: { documentId: { $eq: card.documentId } } },
                pagination: { pageSize: 50 },
              } as never,
            },
          }),
        )
      ).data as unknown as Task[],
  });
  const board = qc.getQueryData<Board>(['board', boardId]);
  const statuses = (board as unknown as { taskStatuses?: string[] })?.taskStatuses ?? [
    'pending',
    'in-progress',
    'completed',
    'cancelled',
  ];
  const create = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      await unwrap(
        client.POST('/api/tasks', {
          body: {
            data: {
              name,
              card: card.documentId,
              ...(due ? { dueDate: new Date(`${due}T12:00:00Z`).toISOString() } : {}),
            },
          } as never,
        }),
      );
      setName('');
      setDue('');
      await qc.invalidateQueries({ queryKey: key });
    } catch (err) {
      setError(reason(err));
    }
  };
  const setStatus = async (id: string, taskStatus: string) => {
    try {
      await unwrap(
        client.PUT('/api/tasks/{id}/status', {
          params: { path: { id } },
          body: { data: { taskStatus } } as never,
        }),
      );
      await qc.invalidateQueries({ queryKey: key });
    } catch (err) {
      setError(reason(err));
    }
  };
  return (
    <section aria-labelledby="tasks-title">
      <h3 id="tasks-title">{t('tasks')}</h3>
      <ul class="plain">
        {list.data?.map((x) => (
          <li key={x.documentId} class="task-row">
            <span>{x.name}</span> <span class="muted small">{date(x.dueDate)}</span>
            <label>
              <span class="sr-only">{t('status')}</span>
              <select
                value={x.taskStatus}
                disabled={!canWrite()}
                onChange={(e) => setStatus(x.documentId, (e.target as HTMLSelectElement).value)}
              >
                {statuses.map((s) => (
                  <option key={s} value={s}>
                    {code('task', s)}
                  </option>
                ))}
              </select>
            </label>
          </li>
        ))}
      </ul>
      {canWrite() && (
        <form onSubmit={create} class="row">
          <label>
            {t('newTask')}
            <input
              name="task"
              required
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </label>
          <div class="field">
            <label for="task-due">{t('dueDate')}</label>
            <DateInput id="task-due" name="task-due" value={due} onChange={setDue} />
          </div>
          <Button submit>{t('create')}</Button>
        </form>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
