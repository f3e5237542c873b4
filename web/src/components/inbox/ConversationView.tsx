import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { type MutableRef, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type ChatMessage, type Conversation, client, reason, unwrap } from '../../api';
import { dateTime, t } from '../../i18n';
import { contactLabel } from '../../lib/labels';
import { messageError } from '../../lib/message-errors';
import { personName } from '../../lib/people';
import { canWrite } from '../../session';
import { Button } from '../../ui';
import { Link } from '../Link';
import { NotFound } from '../NotFound';
import { MessageFile, previewWords } from './Attachment';
import { Composer } from './Composer';
import { ConversationCardActions } from './ConversationCard';
import { Snooze } from './Snooze';

type Schemas = import('../../api').Schemas;
type Inbox = Schemas['ChatInbox'];
type Member = Schemas['Membership'];

export const STATUSES = ['open', 'pending', 'resolved', 'snoozed'] as const;

/** A change of the conversation (status, assignee, seen): the service's answer replaces it, the list is asked again. */
type Act = (call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>) => Promise<void>;

/** One conversation: the conversation, its messages (newest first, 30 a page) and, for a member, whom it can be assigned to. */
function useConversationData(id: number, writable: boolean) {
  const conv = useQuery({
    queryKey: ['conversation', id],
    queryFn: async () => await unwrap(client.GET('/api/conversations/{id}', { params: { path: { id } } })),
  });
  const messages = useInfiniteQuery({
    queryKey: ['messages', id],
    initialPageParam: 0,
    enabled: !!conv.data,
    queryFn: async ({ pageParam }) =>
      await unwrap(
        client.GET('/api/conversations/{id}/messages', {
          params: {
            path: { id },
            query: { limit: 30, ...(pageParam ? { before: pageParam } : {}) } as never,
          },
        }),
      ),
    getNextPageParam: (last) => (last.meta.hasMore ? last.data[last.data.length - 1]?.id : undefined),
  });
  const members = useQuery({
    queryKey: ['memberships'],
    enabled: writable,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/memberships', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as Member[],
  });
  return { conv, messages, members };
}

/** The open conversation: its header (status, assignee, seen), its thread and, for a member, the composer. */
export function ConversationView({ id, inboxes }: { id: number; inboxes: Inbox[] }) {
  const qc = useQueryClient();
  const writable = canWrite();
  const [error, setError] = useState('');
  const { conv, messages, members } = useConversationData(id, writable);
  const c = conv.data;
  // An open conversation is read: opening it, and each message arriving while it is open, marks it seen
  // (members and up) — unless the person just marked it unread, until they open another one.
  const keptUnread = useRef<number | null>(null);
  useEffect(() => {
    if (keptUnread.current !== id) keptUnread.current = null;
  }, [id]);
  useEffect(() => {
    if (!c || !writable || c.unreadCount === 0 || keptUnread.current === c.id) return;
    void act(() => client.POST('/api/conversations/{id}/seen', { params: { path: { id } } }));
  }, [c?.id, c?.unreadCount]);
  const thread = useRef<HTMLOListElement>(null);
  const all = (messages.data?.pages ?? []).flatMap((p) => p.data).reverse();
  const newest = all[all.length - 1]?.id;
  useEffect(() => {
    const el = thread.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [newest]);

  async function act(call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>) {
    setError('');
    try {
      const updated = (await unwrap(call())) as Conversation;
      qc.setQueryData(['conversation', id], updated);
      await qc.invalidateQueries({ queryKey: ['conversations'] });
    } catch (err) {
      setError(reason(err));
    }
  }
  if (conv.error instanceof ApiError && conv.error.status === 404) return <NotFound />;
  if (!c)
    return (
      <div class="thread-pane">
        {conv.error ? (
          <p role="alert" class="error">
            {reason(conv.error)}
          </p>
        ) : (
          <p class="muted">{t('loading')}</p>
        )}
      </div>
    );
  const inbox = inboxes.find((i) => i.id === c.inboxId);
  const windowOpen = !!c.windowExpiresAt && new Date(c.windowExpiresAt).getTime() > Date.now();
  return (
    <section class="thread-pane" aria-labelledby="conv-title" data-testid="conversation">
      <ThreadHeader
        c={c}
        inbox={inbox}
        members={members.data}
        writable={writable}
        act={act}
        keptUnread={keptUnread}
      />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {messages.hasNextPage && (
        <Button
          variant="secondary"
          class="older"
          busy={messages.isFetchingNextPage}
          onClick={() => messages.fetchNextPage()}
        >
          {t('olderMessages')}
        </Button>
      )}
      <MessageThread c={c} all={all} loaded={!!messages.data} listRef={thread} />
      {writable && <Composer conv={c} inbox={inbox} windowOpen={windowOpen} />}
    </section>
  );
}

/** The conversation's contact, number, inbox and card; its status, assignee and seen / unread switch. */
function ThreadHeader(props: {
  c: Conversation;
  inbox?: Inbox;
  members?: Member[];
  writable: boolean;
  act: Act;
  keptUnread: MutableRef<number | null>;
}) {
  const { c, inbox, writable, act, keptUnread } = props;
  const id = c.id;
  return (
    <header class="thread-head">
      <div>
        <h2 id="conv-title">{contactLabel(c)}</h2>
        <p class="muted small">
          +{c.waId}
          {inbox ? ` · ${inbox.name}` : ''}
          {c.card && (
            <>
              {' · '}
              <Link href={`/boards/${c.card.board.documentId}/cards/${c.card.documentId}`}>
                {c.card.title}
              </Link>
            </>
          )}
        </p>
        {writable && <ConversationCardActions c={c} />}
      </div>
      <div class="row">
        <label>
          {t('status')}
          <select
            name="conversation-status"
            value={c.status}
            disabled={!writable}
            onChange={(e) =>
              act(() =>
                client.PATCH('/api/conversations/{id}', {
                  params: { path: { id } },
                  body: { data: { status: (e.target as HTMLSelectElement).value } } as never,
                }),
              )
            }
          >
            {STATUSES.filter((s) => s !== 'snoozed' || c.status === 'snoozed').map((s) => (
              <option key={s} value={s}>
                {t(`conv_${s}`)}
              </option>
            ))}
          </select>
        </label>
        <Snooze c={c} writable={writable} act={act} />
        <AssigneeSelect c={c} members={props.members} writable={writable} act={act} />
        {writable && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              keptUnread.current = c.unreadCount > 0 ? null : c.id;
              void act(() =>
                c.unreadCount > 0
                  ? client.POST('/api/conversations/{id}/seen', { params: { path: { id } } })
                  : client.POST('/api/conversations/{id}/unread', { params: { path: { id } } }),
              );
            }}
          >
            {c.unreadCount > 0 ? t('markSeen') : t('markUnread')}
          </button>
        )}
      </div>
    </header>
  );
}

/** The conversation's assignee: none, or a member above viewer (the current one kept when no longer listed). */
function AssigneeSelect(props: { c: Conversation; members?: Member[]; writable: boolean; act: Act }) {
  const { c, members } = props;
  return (
    <label>
      {t('assignee')}
      <select
        name="conversation-assignee"
        value={c.assignee?.documentId ?? ''}
        disabled={!props.writable}
        onChange={(e) => {
          const v = (e.target as HTMLSelectElement).value;
          void props.act(() =>
            client.PATCH('/api/conversations/{id}', {
              params: { path: { id: c.id } },
              body: { data: { assignee: v || null } } as never,
            }),
          );
        }}
      >
        <option value="">{t('unassigned')}</option>
        {c.assignee && !members?.some((m) => m.documentId === c.assignee?.documentId) && (
          <option value={c.assignee.documentId}>{personName(c.assignee)}</option>
        )}
        {members
          ?.filter((m) => m.role !== 'viewer')
          .map((m) => (
            <option key={m.documentId} value={m.documentId}>
              {personName(m)}
            </option>
          ))}
      </select>
    </label>
  );
}

/**
 * While the thread shows its end, it stays there as its messages change size (a picture replacing its wait box, in
 * MessagePicture.tsx): the newest message is not pushed out of sight. Once the person scrolls up, nothing moves.
 */
function useKeepAtEnd(listRef: MutableRef<HTMLOListElement | null>) {
  useEffect(() => {
    const list = listRef.current;
    if (!list) return;
    let atEnd = true;
    const scrolled = () => {
      atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
    };
    const resized = new ResizeObserver(() => {
      if (atEnd) list.scrollTop = list.scrollHeight;
    });
    for (const item of list.children) resized.observe(item);
    // Messages come and go (another conversation opened in the same view): the new ones watched, the gone ones let go.
    const added = new MutationObserver((changes) => {
      for (const change of changes) {
        for (const gone of change.removedNodes) if (gone instanceof Element) resized.unobserve(gone);
        for (const item of change.addedNodes) if (item instanceof Element) resized.observe(item);
      }
    });
    added.observe(list, { childList: true });
    list.addEventListener('scroll', scrolled, { passive: true });
    return () => {
      resized.disconnect();
      added.disconnect();
      list.removeEventListener('scroll', scrolled);
    };
  }, []);
}

/** The thread, oldest message first: a scrolling region the view keeps at its newest message. */
function MessageThread(props: {
  c: Conversation;
  all: ChatMessage[];
  loaded: boolean;
  listRef: MutableRef<HTMLOListElement | null>;
}) {
  const { c, all } = props;
  useKeepAtEnd(props.listRef);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reachable by keyboard to scroll it
    <ol class="thread" ref={props.listRef} data-testid="messages" aria-label={t('messages')} tabIndex={0}>
      {all.map((m) => (
        <li key={m.id} class={`msg ${m.direction}`} data-message-id={m.id}>
          {m.attachments.length > 0 && <MessageFile conversationId={c.id} message={m} />}
          {(m.content || m.attachments.length === 0) && (
            <p>{previewWords(m.content || `[${m.contentType}]`)}</p>
          )}
          <span class="muted small">
            {m.direction === 'outgoing'
              ? m.sender.membership
                ? personName(m.sender.membership)
                : t('system')
              : contactLabel(c)}{' '}
            · {dateTime(m.createdAt)} · {t(`msg_${m.status}`)}
            {m.error ? ` · ${messageError(m.error)}` : ''}
          </span>
        </li>
      ))}
      {props.loaded && all.length === 0 && <li class="muted">{t('noItems')}</li>}
    </ol>
  );
}
