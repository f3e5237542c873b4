import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { client, reason, type Schemas, unwrap } from '../api';
import { dateTime, t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { personName } from '../lib/people';
import { num, pluralOf } from '../lib/words';
import { Badge, Button, Dialog, EmptyState, toast } from '../ui';
import * as catalogue from '../words/notifications';
import { Link } from './Link';

const nw = wordsOf(catalogue);

/** A notification of the caller (GET /api/notifications): `subject.label` is the card's title or the task's name. */
type Notification = Schemas['Notification'];

const PAGE_SIZE = 20;

const listNotifications = (query: Record<string, unknown>) =>
  unwrap(client.GET('/api/notifications', { params: { query: query as never } }));

/** How many of the caller's notifications are unread: asked every minute and when the window gets the focus again. */
function useUnreadCount() {
  return useQuery({
    queryKey: ['notifications', 'unread'],
    refetchInterval: 60_000,
    refetchOnWindowFocus: true,
    queryFn: async () =>
      (await listNotifications({ unread: 'true', pagination: { pageSize: 1 } })).meta.pagination.total,
  });
}

/** A notification as a sentence in the chosen language, from its type (the service's title is English). */
function sentence(n: Notification): string {
  const label = n.subject.label;
  switch (n.type) {
    case 'comment_mention': {
      const name = (n.actor && personName(n.actor)) || nw('someone');
      return label ? nw('mentioned', { name, card: label }) : nw('mentionedOnCard', { name });
    }
    case 'task_reminder':
      return label ? nw('taskReminder', { task: label }) : nw('taskReminderNoName');
  }
  return n.title;
}

/** What a notification's own text adds: a mention's excerpt of the comment; a reminder's body is the service's English. */
const details = (n: Notification) => (n.type === 'task_reminder' ? '' : n.body);

/** Where a notification leads: a card's drawer on its board's Kanban, the tasks page; null when the app has no page for it. */
function target(n: Notification): string | null {
  const s = n.subject;
  if (s.kind === 'card' && s.boardDocumentId) return `/boards/${s.boardDocumentId}/cards/${s.documentId}`;
  if (s.kind === 'task') return '/tasks';
  return null;
}

/** The header's bell: the unread count as a badge (none at 0, "9+" past 9), said in words to screen readers. */
export function NotificationBell({ onOpen }: { onOpen: () => void }) {
  const n = useUnreadCount().data ?? 0;
  const label = n > 0 ? nw(pluralOf(n, 'unreadOne', 'unreadMany'), { n: num(n) }) : nw('title');
  return (
    <button
      type="button"
      class="bell"
      aria-haspopup="dialog"
      aria-label={label}
      title={label}
      onClick={onOpen}
      data-testid="notification-bell"
    >
      <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20">
        <path
          d="M12 3a6 6 0 0 0-6 6v3.5L4.5 16h15L18 12.5V9a6 6 0 0 0-6-6Zm-2 15a2 2 0 0 0 4 0"
          fill="none"
          stroke="currentColor"
          stroke-width="2"
          stroke-linejoin="round"
        />
      </svg>
      {n > 0 && (
        <span class="bell-count" aria-hidden="true">
          {n > 9 ? `${num(9)}+` : num(n)}
        </span>
      )}
    </button>
  );
}

/**
 * The latest notifications, newest first (20 a page, "Ver mais" for the next): one opened is marked read and leads
 * to what it is about; "Marcar todas como lidas" reads them all. A control that goes once used ("Marcar todas como
 * lidas" with the last unread one, "Ver mais" with the last page, an item's button once it is read) hands the focus
 * to a notification of the list, never to the page behind the dialog.
 */
export function NotificationsPanel({ open, onClose }: { open: boolean; onClose: () => void }) {
  const qc = useQueryClient();
  const unread = useUnreadCount().data ?? 0;
  const [busy, setBusy] = useState(false);
  const listRef = useRef<HTMLUListElement>(null);
  const readAll = async () => {
    setBusy(true);
    try {
      await unwrap(client.POST('/api/notifications/read'));
      toast(nw('allRead'));
      focusItem(listRef, 0);
    } catch (err) {
      toast(reason(err), 'error');
    } finally {
      setBusy(false);
      await qc.invalidateQueries({ queryKey: ['notifications'] });
    }
  };
  return (
    <Dialog
      open={open}
      title={nw('title')}
      onClose={onClose}
      footer={
        unread > 0 && (
          <Button variant="secondary" busy={busy} onClick={readAll}>
            {nw('readAll')}
          </Button>
        )
      }
    >
      <NotificationList onClose={onClose} listRef={listRef} />
    </Dialog>
  );
}

/** The list's notification at `index` (the last when there are fewer) takes the focus. */
function focusItem(listRef: RefObject<HTMLUListElement>, index: number) {
  const items = listRef.current?.children;
  if (items?.length) (items[Math.min(index, items.length - 1)] as HTMLElement).focus();
}

/**
 * The panel's list (asked again each time the panel opens). "Ver mais" asks the next page by its offset: a
 * notification that arrived since pushes one already shown onto it, listed once.
 */
function NotificationList({
  onClose,
  listRef,
}: {
  onClose: () => void;
  listRef: RefObject<HTMLUListElement>;
}) {
  const qc = useQueryClient();
  const list = useInfiniteQuery({
    queryKey: ['notifications', 'list'],
    staleTime: 0,
    initialPageParam: 1,
    queryFn: ({ pageParam }) => listNotifications({ pagination: { page: pageParam, pageSize: PAGE_SIZE } }),
    getNextPageParam: (last) => {
      const { page = 1, pageCount = 0 } = last.meta.pagination;
      return page < pageCount ? page + 1 : undefined;
    },
  });
  const shown = new Set<string>();
  const items = (list.data?.pages ?? [])
    .flatMap((p) => p.data)
    .filter((n) => !shown.has(n.documentId) && shown.add(n.documentId));
  // The first notification "Ver mais" brought, to take the focus once drawn ("Ver mais" may be gone with the last page).
  const [focusAt, setFocusAt] = useState<number | null>(null);
  useEffect(() => {
    if (focusAt === null) return;
    focusItem(listRef, focusAt);
    setFocusAt(null);
  }, [focusAt]);
  const more = async () => {
    const first = items.length;
    if (!(await list.fetchNextPage()).isError) setFocusAt(first);
  };
  const markRead = async (n: Notification) => {
    if (n.read) return;
    try {
      await unwrap(client.POST('/api/notifications/{id}/read', { params: { path: { id: n.documentId } } }));
    } catch (err) {
      toast(reason(err), 'error');
    }
    await qc.invalidateQueries({ queryKey: ['notifications'] });
  };
  if (list.isLoading) return <p class="muted">{t('loading')}</p>;
  if (list.error)
    return (
      <p role="alert" class="error">
        {reason(list.error)}
      </p>
    );
  if (items.length === 0) return <EmptyState text={nw('none')} />;
  return (
    <>
      <ul class="notification-list" data-testid="notifications" ref={listRef}>
        {items.map((n) => {
          const to = target(n);
          const content = (
            <>
              {!n.read && <Badge tone="info">{nw('unread')}</Badge>}
              <span class="notification-sentence">{sentence(n)}</span>
              {details(n) && <span class="notification-body">{details(n)}</span>}
              <time class="muted small" dateTime={n.createdAt}>
                {dateTime(n.createdAt)}
              </time>
            </>
          );
          return (
            // The item takes the focus when its button goes (read) or it is the first "Ver mais" brought.
            <li
              key={n.documentId}
              class={n.read ? undefined : 'unread'}
              data-notification-id={n.documentId}
              tabIndex={-1}
            >
              {to ? (
                <Link
                  href={to}
                  onClick={(here) => {
                    void markRead(n);
                    // A modified click opens the page elsewhere; a plain one leads there and closes the panel.
                    if (here) onClose();
                  }}
                >
                  {content}
                </Link>
              ) : n.read ? (
                <div>{content}</div>
              ) : (
                <button
                  type="button"
                  onClick={(e) => {
                    const item = e.currentTarget.closest('li');
                    void markRead(n).then(() => item?.focus());
                  }}
                >
                  {content}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {list.hasNextPage && (
        <Button variant="secondary" class="more" busy={list.isFetchingNextPage} onClick={more}>
          {nw('more')}
        </Button>
      )}
    </>
  );
}
