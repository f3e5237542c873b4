import {
  type CollisionDetection,
  DndContext,
  type DragEndEvent,
  DragOverlay,
  type DragStartEvent,
  type KeyboardCoordinateGetter,
  KeyboardSensor,
  MouseSensor,
  pointerWithin,
  rectIntersection,
  TouchSensor,
  useDraggable,
  useDroppable,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { memo } from 'preact/compat';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  ApiError,
  type Board,
  type Card,
  type CardStats,
  client,
  type Page,
  type Phase,
  reason,
  unwrap,
} from '../api';
import { CardDrawer } from '../components/CardDrawer';
import { Link } from '../components/Link';
import { NewCardDialog } from '../components/NewCard';
import { NotFound } from '../components/NotFound';
import { SavedFilters } from '../components/SavedFilters';
import { date, money, t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { canConfigure, canEditCards } from '../lib/board-access';
import type { CardFilters } from '../lib/card-filters';
import { inkOn } from '../lib/contrast';
import { people, personName } from '../lib/labels';
import { initials } from '../lib/people';
import { num, plural, upperFirst, w } from '../lib/words';
import { navigate } from '../router';
import { Button } from '../ui';
import * as boardWords from '../words/board-work';

const PAGE_SIZE = 20;
const kw = wordsOf(boardWords);

export type { CardFilters };

/** The `savedFilter` parameter of the list, when a saved filter is applied as it is. */
const savedParam = (f: CardFilters) => (f.saved ? { savedFilter: f.saved } : {});

/** The list query of the board's cards: the page's filters, Strapi's bracket form. */
export function cardFilters(f: CardFilters, phaseId?: string) {
  const filters: Record<string, unknown> = {};
  if (phaseId) filters.currentPhase = { documentId: { $eq: phaseId } };
  if (f.q.trim()) filters.title = { $containsi: f.q.trim() };
  if (f.tag) filters.tags = { documentId: { $eq: f.tag } };
  if (f.assignee) filters.assignees = { documentId: { $eq: f.assignee } };
  return filters;
}

export function useBoard(boardId: string) {
  return useQuery({
    queryKey: ['board', boardId],
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/boards/{id}', { params: { path: { id: boardId } } }),
      )) as unknown as Board,
  });
}

function listCards(boardId: string, query: Record<string, unknown>) {
  return unwrap(
    client.GET('/api/boards/{boardId}/cards', { params: { path: { boardId }, query: query as never } }),
  ) as unknown as Promise<Page<Card>>;
}

/** Keyboard moves: ← → jump to the centre of the previous / next column (dnd-kit's default moves 25 px). */
const columnJump: KeyboardCoordinateGetter = (event, { context: { droppableRects, collisionRect } }) => {
  if (!collisionRect || (event.code !== 'ArrowRight' && event.code !== 'ArrowLeft')) return undefined;
  event.preventDefault();
  const rects = [...droppableRects.values()].sort((a, b) => a.left - b.left);
  const cx = collisionRect.left + collisionRect.width / 2;
  let i = rects.findIndex((r) => cx >= r.left && cx <= r.left + r.width);
  if (i < 0) i = rects.findIndex((r) => r.left > cx) - 1;
  i = Math.max(0, Math.min(rects.length - 1, i + (event.code === 'ArrowRight' ? 1 : -1)));
  const r = rects[i];
  return { x: r.left + r.width / 2 - collisionRect.width / 2, y: collisionRect.top };
};
const collision: CollisionDetection = (args) => {
  const hit = pointerWithin(args);
  return hit.length ? hit : rectIntersection(args);
};

interface PendingMove {
  card: Card;
  from: string;
  to: string;
}

/** The card moves of the page: each shown in its target column at once, with the outcome said. */
function useCardMoves(boardId: string, board: Board | undefined) {
  const qc = useQueryClient();
  const [pending, setPending] = useState<Map<string, PendingMove>>(new Map());
  const pendingNow = useRef(pending);
  pendingNow.current = pending;
  const [message, setMessage] = useState<{ kind: 'error' | 'ok'; text: string } | null>(null);
  const move = async (card: Card, to: string) => {
    const from = card.currentPhase?.documentId ?? '';
    if (!to || to === from) return;
    setMessage(null);
    const before = pendingNow.current.get(card.documentId);
    // Shown in the target column at once; kept there after the move (the column's first page is sorted by
    // creation, so a moved card may belong to a later page), taken back when the service refuses.
    setPending((m) => new Map(m).set(card.documentId, { card, from, to }));
    try {
      const moved = (await unwrap(
        client.POST('/api/boards/{boardId}/cards/{id}/move', {
          params: { path: { boardId, id: card.documentId } },
          body: { phase: to },
        }),
      )) as unknown as Card;
      setPending((m) => new Map(m).set(card.documentId, { card: moved, from, to }));
      await Promise.all([
        qc.invalidateQueries({ queryKey: ['cards', boardId, from] }),
        qc.invalidateQueries({ queryKey: ['cards', boardId, to] }),
        qc.invalidateQueries({ queryKey: ['stats', boardId] }),
        qc.invalidateQueries({ queryKey: ['card', boardId, card.documentId] }),
      ]);
      setMessage({
        kind: 'ok',
        text: `${t('moved')}: ${card.title} → ${board?.phases.find((p) => p.documentId === to)?.name}`,
      });
    } catch (err) {
      // The refused card snaps back to its column, and the service's reason is shown.
      setPending((m) => {
        const n = new Map(m);
        if (before) n.set(card.documentId, before);
        else n.delete(card.documentId);
        return n;
      });
      setMessage({ kind: 'error', text: `${t('moveRefused')}: ${reason(err, board)}` });
    }
  };
  // A card saved in the drawer while its move is shown: the shown copy takes the saved one.
  const saved = (card: Card) =>
    setPending((m) => {
      const entry = m.get(card.documentId);
      return entry ? new Map(m).set(card.documentId, { ...entry, card }) : m;
    });
  // Other filters: the moves shown so far are the columns' business again.
  const clearPending = () => setPending(new Map());
  // A card created on the page: shown at the top of its column at once (its column's first page may not hold it).
  const place = (card: Card) => {
    const to = card.currentPhase?.documentId ?? '';
    setPending((m) => new Map(m).set(card.documentId, { card, from: '', to }));
    void Promise.all([
      qc.invalidateQueries({ queryKey: ['cards', boardId, to] }),
      qc.invalidateQueries({ queryKey: ['stats', boardId] }),
    ]);
  };
  return { pending, clearPending, message, setMessage, move, saved, place };
}

export function KanbanPage({ boardId, cardId }: { boardId: string; cardId?: string }) {
  const board = useBoard(boardId);
  const [filters, setFilters] = useState<CardFilters>({ q: '', tag: '', assignee: '' });
  const [q, setQ] = useState('');
  const moves = useCardMoves(boardId, board.data);
  // New cards and moves: for whom the service lets change this board's cards (a member who only sees it reads).
  const writable = !!board.data && canEditCards(board.data);
  // The phase a new card is being created in ('' : the entry phase); null: no new card form open.
  const [newIn, setNewIn] = useState<string | null>(null);

  useEffect(() => {
    const id = setTimeout(() => {
      setFilters((f) => ({ ...f, q }));
      moves.clearPending();
    }, 300);
    return () => clearTimeout(id);
  }, [q]);

  const stats = useQuery({
    queryKey: ['stats', boardId, filters],
    queryFn: () =>
      listCards(boardId, {
        filters: cardFilters(filters),
        ...savedParam(filters),
        pagination: { pageSize: 1 },
      }),
    enabled: board.isSuccess,
  });
  const [slaByPhase, setSlaByPhase] = useState<Record<string, number>>({});

  if (board.error) {
    if (board.error instanceof ApiError && (board.error.status === 404 || board.error.status === 400))
      return <NotFound />;
    return (
      <p role="alert" class="error">
        {reason(board.error)}
      </p>
    );
  }
  if (!board.data) return <p class="page">{t('loading')}</p>;
  const b = board.data;
  const { message } = moves;
  return (
    <section class="kanban-page">
      <BoardHead
        board={b}
        stats={stats.data}
        sla={Object.values(slaByPhase).reduce((a, n) => a + n, 0)}
        onNewCard={writable ? () => setNewIn('') : undefined}
      />
      <FilterForm
        board={b}
        q={q}
        onQ={setQ}
        filters={filters}
        onFilters={(f) => {
          moves.clearPending();
          setFilters(f);
        }}
        writable={writable}
        onSaved={(f) => {
          moves.clearPending();
          setQ(f.q);
          setFilters(f);
        }}
      />
      {newIn !== null && (
        <NewCardDialog
          board={b}
          phaseId={newIn || undefined}
          onClose={() => setNewIn(null)}
          onCreated={moves.place}
        />
      )}
      <div aria-live="polite" class="sr-only">
        {message?.kind === 'ok' ? message.text : ''}
      </div>
      {message?.kind === 'error' && (
        <p role="alert" aria-live="assertive" class="error move-error" data-testid="move-error">
          {message.text}
          <Button variant="ghost" onClick={() => moves.setMessage(null)} aria-label={t('close')}>
            ×
          </Button>
        </p>
      )}
      <BoardColumns
        board={b}
        filters={filters}
        pending={moves.pending}
        writable={writable}
        onMove={moves.move}
        onSla={(phaseId, n) => setSlaByPhase((m) => (m[phaseId] === n ? m : { ...m, [phaseId]: n }))}
        onNewCard={writable ? setNewIn : undefined}
      />
      {cardId && (
        <CardDrawer
          board={b}
          cardId={cardId}
          onClose={() => {
            navigate(`/boards/${boardId}`);
            // Focus goes back to the card the drawer was opened from (after the page has re-rendered).
            requestAnimationFrame(() =>
              document.querySelector<HTMLElement>(`article[data-card-id="${cardId}"]`)?.focus(),
            );
          }}
          onMove={moves.move}
          onSaved={moves.saved}
        />
      )}
    </section>
  );
}

/**
 * The board's name, its figures under the filters (cards, value where the board shows values, overdue, SLA
 * breaches), the report link, a new card (entry phase) and the board's editor for those who may configure it.
 */
function BoardHead({
  board: b,
  stats,
  sla,
  onNewCard,
}: {
  board: Board;
  stats?: Page<Card>;
  sla: number;
  onNewCard?: () => void;
}) {
  const s: CardStats | undefined = stats?.meta.stats;
  return (
    <header class="board-head">
      <h1>{b.name}</h1>
      <dl class="stats" aria-label={w('boardFigures')}>
        <div>
          <dt>{t('totalCards')}</dt>
          <dd data-stat="total">{stats ? num(stats.meta.pagination.total) : '…'}</dd>
        </div>
        {b.boardSettings.showValue && (
          <div>
            <dt>{t('totalValue')}</dt>
            <dd data-stat="valueSum">{s ? money(s.valueSum, b.boardSettings.currency) : '…'}</dd>
          </div>
        )}
        <div class={s?.overdueCount ? 'warn' : ''}>
          <dt>{s ? upperFirst(plural(s.overdueCount, 'overdueOne', 'overdueMany')) : t('overdue')}</dt>
          <dd data-stat="overdue">{s ? num(s.overdueCount) : '…'}</dd>
        </div>
        <div class={sla ? 'warn' : ''}>
          <dt>{t('slaBreached')}</dt>
          <dd data-stat="sla">{num(sla)}</dd>
        </div>
      </dl>
      <Link href={`/boards/${b.documentId}/report`} class="button-link">
        {t('report')}
      </Link>
      {canConfigure(b) && (
        <Link href={`/boards/${b.documentId}/edit`} class="button-link" data-testid="edit-board">
          {kw('editBoard')}
        </Link>
      )}
      {onNewCard && b.phases.length > 0 && (
        <Button onClick={onNewCard} data-testid="new-card">
          {kw('newCard')}
        </Button>
      )}
    </header>
  );
}

/** The card filters: title search, tag, assignee; and what the keyboard does (or that a viewer only looks). */
function FilterForm(props: {
  board: Board;
  q: string;
  onQ: (q: string) => void;
  filters: CardFilters;
  onFilters: (f: CardFilters) => void;
  writable: boolean;
  /** A saved filter picked: the page's filters at once (the search box too). */
  onSaved?: (f: CardFilters) => void;
}) {
  const { board: b, filters, writable } = props;
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()}>
      <label>
        <span class="sr-only">{t('searchCards')}</span>
        <input
          type="search"
          name="q"
          placeholder={t('searchCards')}
          value={props.q}
          onInput={(e) => props.onQ((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        <span class="sr-only">{t('tag')}</span>
        <select
          name="tag"
          value={filters.tag}
          onChange={(e) => props.onFilters({ ...filters, tag: (e.target as HTMLSelectElement).value })}
        >
          <option value="">{t('allTags')}</option>
          {b.tags.map((x) => (
            <option key={x.documentId} value={x.documentId}>
              {x.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span class="sr-only">{t('assignee')}</span>
        <select
          name="assignee"
          value={filters.assignee}
          onChange={(e) => props.onFilters({ ...filters, assignee: (e.target as HTMLSelectElement).value })}
        >
          <option value="">{t('allAssignees')}</option>
          {people(b).map((p) => (
            <option key={p.documentId} value={p.documentId}>
              {personName(p)}
            </option>
          ))}
        </select>
      </label>
      {props.onSaved && (
        <SavedFilters
          boardId={b.documentId}
          filters={filters}
          query={cardFilters(filters)}
          writable={writable}
          onApply={props.onSaved}
        />
      )}
      {!writable && <span class="muted">{t('viewerNote')}</span>}
      {writable && (
        <span class="muted small" id="kbd-help">
          {t('keyboardHelp')}
        </span>
      )}
    </form>
  );
}

/** What a screen reader hears while a card is dragged: the card, the column it is over, where it went. */
const dragAnnouncements = (phases: Phase[]) => ({
  onDragStart: ({ active }: { active: { data: { current?: unknown } } }) =>
    `${(active.data.current as { card: Card }).card.title}`,
  onDragOver: ({ over }: { over: { id: unknown } | null }) =>
    over ? `${t('moveTo')} ${phases.find((p) => p.documentId === over.id)?.name}` : '',
  onDragEnd: ({ over }: { over: { id: unknown } | null }) =>
    over ? `${phases.find((p) => p.documentId === over.id)?.name}` : '',
  onDragCancel: () => t('cancel'),
});

/** The phases' columns, where cards are dragged (pointer or keyboard) from one phase to another. */
function BoardColumns(props: {
  board: Board;
  filters: CardFilters;
  pending: Map<string, PendingMove>;
  writable: boolean;
  onMove: (card: Card, to: string) => Promise<void>;
  onSla: (phaseId: string, n: number) => void;
  /** A new card in a phase (writers only). */
  onNewCard?: (phaseId: string) => void;
}) {
  const { board: b } = props;
  const [dragging, setDragging] = useState<Card | null>(null);
  const lastDrop = useRef(0);
  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: 6 } }),
    // A finger picks a card up after holding it a quarter second: a swipe over the cards scrolls the page.
    useSensor(TouchSensor, { activationConstraint: { delay: 250, tolerance: 8 } }),
    useSensor(KeyboardSensor, {
      coordinateGetter: columnJump,
      // A jump to a column past the board's visible part scrolls the board at once (smooth scrolling left the
      // card over the old column until the animation ended, and a drop then went there).
      scrollBehavior: 'auto',
      keyboardCodes: { start: ['Space'], cancel: ['Escape'], end: ['Space', 'Enter'] },
    }),
  );
  const phases = [...b.phases].sort((x, y) => x.order - y.order);
  const onDragStart = (e: DragStartEvent) => setDragging((e.active.data.current as { card: Card }).card);
  const onDragEnd = (e: DragEndEvent) => {
    setDragging(null);
    // The click a pointer drag may end with is not an "open" (it fires before this timer).
    lastDrop.current = 1;
    setTimeout(() => {
      lastDrop.current = 0;
    }, 0);
    const card = (e.active.data.current as { card: Card }).card;
    if (e.over) void props.onMove(card, String(e.over.id));
  };
  const blocked = (from: string | undefined, to: string) =>
    !!phases
      .find((p) => p.documentId === from)
      ?.allowedTransitions.some((x) => x.phase.documentId === to && !x.allowed);
  const open = (card: Card) => {
    if (lastDrop.current) return;
    navigate(`/boards/${b.documentId}/cards/${card.documentId}`);
  };
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={collision}
      onDragStart={onDragStart}
      onDragEnd={onDragEnd}
      onDragCancel={() => setDragging(null)}
      // The board scrolls only when the pointer is at its very edge (dnd-kit's 20% made a drop near the edge
      // scroll the board under the pointer and land on the next column).
      autoScroll={{ threshold: { x: 0.04, y: 0.1 }, acceleration: 4 }}
      accessibility={{ announcements: dragAnnouncements(phases) }}
    >
      <div class="columns">
        {phases.map((p) => (
          <Column
            key={p.documentId}
            board={b}
            phase={p}
            filters={props.filters}
            pending={props.pending}
            writable={props.writable}
            onOpen={open}
            onMove={props.onMove}
            blocked={!!dragging && blocked(dragging.currentPhase?.documentId, p.documentId)}
            onSla={(n) => props.onSla(p.documentId, n)}
            onNew={props.onNewCard && (() => props.onNewCard?.(p.documentId))}
          />
        ))}
      </div>
      <DragOverlay dropAnimation={null}>
        {dragging ? <CardView card={dragging} board={b} overlay /> : null}
      </DragOverlay>
    </DndContext>
  );
}

function Column(props: {
  board: Board;
  phase: Phase;
  filters: CardFilters;
  pending: Map<string, PendingMove>;
  writable: boolean;
  blocked: boolean;
  onOpen: (c: Card) => void;
  onMove: (card: Card, to: string) => Promise<void>;
  onSla: (n: number) => void;
  onNew?: () => void;
}) {
  const { board, phase, filters, pending } = props;
  const { setNodeRef, isOver } = useDroppable({ id: phase.documentId });
  const query = useInfiniteQuery({
    queryKey: ['cards', board.documentId, phase.documentId, filters],
    initialPageParam: 1,
    queryFn: ({ pageParam }) =>
      listCards(board.documentId, {
        filters: cardFilters(filters, phase.documentId),
        ...savedParam(filters),
        pagination: { page: pageParam, pageSize: PAGE_SIZE },
        // The stats (count, value, SLA) come with the first page only.
        ...(pageParam > 1 ? { stats: 'false' } : {}),
      }),
    getNextPageParam: (last) =>
      last.meta.pagination.page < last.meta.pagination.pageCount ? last.meta.pagination.page + 1 : undefined,
  });
  const first = query.data?.pages[0]?.meta;
  const sla = first?.stats?.phaseSlaBreachedCount ?? 0;
  useEffect(() => props.onSla(sla), [sla]);
  const cards = useMemo(() => {
    const placed = [...pending.values()].filter((m) => m.to === phase.documentId).map((m) => m.card);
    const ids = new Set(placed.map((c) => c.documentId));
    const loaded = (query.data?.pages ?? [])
      .flatMap((p) => p.data)
      .filter((c) => !pending.has(c.documentId) && !ids.has(c.documentId));
    return [...placed, ...loaded];
  }, [query.data, pending, phase.documentId]);
  const headingId = `phase-${phase.documentId}`;
  // Stable callbacks: a page loaded with "load more" renders its new cards only (CardItem is memoised), not the
  // whole column again — at a few hundred cards that re-render blocked the main thread for 0.3–0.6 s.
  const handlers = useRef({ onOpen: props.onOpen, onMove: props.onMove });
  handlers.current = { onOpen: props.onOpen, onMove: props.onMove };
  const onOpen = useCallback((c: Card) => handlers.current.onOpen(c), []);
  const onMove = useCallback((c: Card, to: string) => handlers.current.onMove(c, to), []);
  return (
    <section
      ref={setNodeRef}
      class={`column${isOver ? ' over' : ''}${props.blocked ? ' blocked' : ''}`}
      data-phase-id={phase.documentId}
      aria-labelledby={headingId}
    >
      {/* The phase's colour only on a stripe and a dot (hidden from screen readers): the name keeps the text colour. */}
      <header
        class={phase.color ? 'phase-colored' : undefined}
        style={phase.color ? { '--phase-color': phase.color } : undefined}
      >
        {phase.color && <span class="phase-dot" aria-hidden="true" data-phase-color={phase.color} />}
        <h2 id={headingId}>{phase.name}</h2>
        <span class="count" data-count>
          {first ? num(first.pagination.total) : '…'}
        </span>
        {board.boardSettings.showValue && first?.stats && (
          <span class="muted small">{money(first.stats.valueSum, board.boardSettings.currency)}</span>
        )}
        {sla > 0 && (
          <span class="badge warn" title={t('slaBreached')}>
            SLA {sla}
          </span>
        )}
        {props.onNew && (
          <button
            type="button"
            class="column-new"
            onClick={props.onNew}
            aria-label={kw('newCardIn', { phase: phase.name })}
            title={kw('newCardIn', { phase: phase.name })}
          >
            +
          </button>
        )}
      </header>
      <ol class="cards">
        {cards.map((c) => (
          <CardItem
            key={c.documentId}
            card={c}
            board={board}
            writable={props.writable}
            onOpen={onOpen}
            onMove={onMove}
          />
        ))}
      </ol>
      {query.isLoading && <p class="muted">{t('loading')}</p>}
      {query.hasNextPage && (
        <Button
          variant="secondary"
          class="more"
          busy={query.isFetchingNextPage}
          onClick={() => query.fetchNextPage()}
        >
          {t('loadMore')}
        </Button>
      )}
    </section>
  );
}

/** One card of a column with its "move to" menu; memoised: it renders again only when its own card changes. */
const CardItem = memo(function CardItem(p: {
  card: Card;
  board: Board;
  writable: boolean;
  onOpen: (c: Card) => void;
  onMove: (c: Card, to: string) => Promise<void>;
}) {
  return (
    <li>
      <DraggableCard card={p.card} board={p.board} writable={p.writable} onOpen={p.onOpen} />
      {p.writable && <MoveMenu card={p.card} board={p.board} onMove={p.onMove} />}
    </li>
  );
});

function DraggableCard({
  card,
  board,
  writable,
  onOpen,
}: {
  card: Card;
  board: Board;
  writable: boolean;
  onOpen: (c: Card) => void;
}) {
  const { attributes, listeners, setNodeRef, isDragging } = useDraggable({
    id: card.documentId,
    data: { card },
    disabled: !writable,
  });
  return (
    <CardView
      card={card}
      board={board}
      nodeRef={setNodeRef}
      dragging={isDragging}
      props={{
        // A viewer's card only opens (no drag attributes: dnd-kit would mark it aria-disabled).
        ...(writable
          ? { ...attributes, ...listeners, 'aria-roledescription': 'card', 'aria-describedby': 'kbd-help' }
          : { role: 'button' }),
        onClick: () => onOpen(card),
        onKeyDown: (e: KeyboardEvent) => {
          if (writable) (listeners?.onKeyDown as ((e: KeyboardEvent) => void) | undefined)?.(e);
          if (e.key === 'Enter' && !isDragging) onOpen(card);
        },
      }}
    />
  );
}

function CardView(p: {
  card: Card;
  board: Board;
  overlay?: boolean;
  dragging?: boolean;
  nodeRef?: (el: HTMLElement | null) => void;
  props?: Record<string, unknown>;
}) {
  const { card, board } = p;
  const now = Date.now();
  const closed = [board.boardSettings.wonPhase, board.boardSettings.lostPhase].includes(
    card.currentPhase?.documentId ?? null,
  );
  const overdue = !closed && card.dueDate && new Date(card.dueDate).getTime() < now;
  const max = card.currentPhase?.maxTimeInPhaseHours;
  const slaBreached =
    !!max &&
    !!card.currentPhaseEnteredAt &&
    new Date(card.currentPhaseEnteredAt).getTime() + max * 3600_000 < now;
  return (
    <article
      ref={p.nodeRef}
      {...(p.props ?? {})}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a card is a control: Enter opens it, Space picks it up (role=button comes with dnd-kit's attributes)
      tabIndex={0}
      data-card-id={p.overlay ? undefined : card.documentId}
      class={`kcard${p.dragging ? ' dragging' : ''}${p.overlay ? ' overlay' : ''}`}
    >
      <h3>{card.title}</h3>
      {board.boardSettings.showValue && (
        <div class="value">{money(card.value, board.boardSettings.currency)}</div>
      )}
      <div class="meta">
        {card.dueDate && (
          <span class={overdue ? 'badge warn' : 'badge'}>
            {overdue ? `${w('overdueOne')} · ` : ''}
            {date(card.dueDate)}
          </span>
        )}
        {slaBreached && <span class="badge warn">SLA</span>}
        {card.contact && <span class="muted small">{card.contact.name}</span>}
      </div>
      {card.tags.length > 0 && (
        <ul class="tags">
          {card.tags.map((x) => (
            <li key={x.documentId} style={{ background: x.color ?? '#666', color: inkOn(x.color ?? '#666') }}>
              {x.name}
            </li>
          ))}
        </ul>
      )}
      {card.assignees.length > 0 && (
        <ul class="assignees" aria-hidden="true">
          {card.assignees.map((a) => (
            <li key={a.documentId} class="avatar" title={personName(a)}>
              {initials(a.user)}
            </li>
          ))}
        </ul>
      )}
      {card.assignees.length > 0 && <span class="sr-only">{card.assignees.map(personName).join(', ')}</span>}
    </article>
  );
}

/** "Move to" on a card, beside it (a control inside the draggable card would be nested in its button role). */
function MoveMenu({
  card,
  board,
  onMove,
}: {
  card: Card;
  board: Board;
  onMove: (c: Card, to: string) => Promise<void>;
}) {
  const here = card.currentPhase?.documentId ?? '';
  return (
    <label class="card-move">
      <span class="sr-only">{w('moveCard', { title: card.title })}</span>
      <select
        name="card-move"
        value=""
        onChange={(e) => {
          const to = (e.target as HTMLSelectElement).value;
          (e.target as HTMLSelectElement).value = '';
          if (to) void onMove(card, to);
        }}
      >
        <option value="">{t('moveTo')}…</option>
        {[...board.phases]
          .sort((x, y) => x.order - y.order)
          .filter((p) => p.documentId !== here)
          .map((p) => (
            <option key={p.documentId} value={p.documentId}>
              {p.name}
            </option>
          ))}
      </select>
    </label>
  );
}
