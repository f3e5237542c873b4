// Over 600 lines on purpose: one screen (conversation list, thread, composer, card panel) sharing one live state;
// it is split by the web app's next round (issue 31), which redraws this screen.
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Conversation, client, featureOff, reason, unwrap } from '../api';
import { FeatureOff } from '../components/FeatureOff';
import { Link } from '../components/Link';
import { NotFound } from '../components/NotFound';
import { dateTime, t } from '../i18n';
import { contactLabel } from '../lib/labels';
import { type LiveEvent, useLive } from '../live';
import { navigate } from '../router';
import { canWrite } from '../session';

type Schemas = import('../api').Schemas;
type Inbox = Schemas['ChatInbox'];
type Member = Schemas['Membership'];
type Template = Schemas['WhatsAppTemplate'];

const STATUSES = ['open', 'pending', 'resolved', 'snoozed'] as const;

/** The inbox: conversations (filters, search, live updates) and one conversation's thread. */
/** A labelled filter select of the conversation list (label read by screen readers only). */
function FilterSelect(props: {
  name: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly (readonly [string, string])[];
}) {
  return (
    <label>
      <span class="sr-only">{props.label}</span>
      <select
        name={props.name}
        value={props.value}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
      >
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export function InboxPage({ conversationId }: { conversationId?: string }) {
  const qc = useQueryClient();
  const [status, setStatus] = useState('all');
  const [assignee, setAssignee] = useState('');
  const [inboxId, setInboxId] = useState('');
  const [unread, setUnread] = useState(false);
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [live, setLive] = useState(false);
  /** A filter's setter that also goes back to the first page. */
  const refilter =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setPage(1);
    };
  useEffect(() => {
    const id = setTimeout(() => refilter(setQuery)(q.trim()), 300);
    return () => clearTimeout(id);
  }, [q]);
  const inboxes = useQuery({
    queryKey: ['inboxes'],
    queryFn: async () => (await unwrap(client.GET('/api/inboxes'))).data as Inbox[],
  });
  const filters = { status, assignee, inboxId, unread, query, page };
  const list = useQuery({
    queryKey: ['conversations', filters],
    enabled: !inboxes.error,
    queryFn: async () =>
      await unwrap(
        client.GET('/api/conversations', {
          params: {
            query: {
              ...(status !== 'all' ? { status } : {}),
              ...(assignee ? { assignee } : {}),
              ...(inboxId ? { inboxId: Number(inboxId) } : {}),
              ...(unread ? { unread: 'true' } : {}),
              ...(query ? { q: query } : {}),
              page,
              pageSize: 25,
            } as never,
          },
        }),
      ),
  });
  const selected = conversationId ? Number(conversationId) : null;
  useLive(
    inboxes.data ? '/api/conversations/events' : null,
    (e: LiveEvent) => {
      void qc.invalidateQueries({ queryKey: ['conversations'] });
      const id = (e.data?.conversation as Conversation | undefined)?.id;
      if (id === undefined) return;
      if (e.event === 'conversation.updated') qc.setQueryData(['conversation', id], e.data.conversation);
      if (e.event === 'message.created') {
        qc.setQueryData(['conversation', id], e.data.conversation);
        void qc.invalidateQueries({ queryKey: ['messages', id] });
      }
    },
    () => {
      setLive(true);
      // Anything that happened while the stream was closed: ask again.
      void qc.invalidateQueries({ queryKey: ['conversations'] });
      void qc.invalidateQueries({ queryKey: ['messages'] });
    },
  );

  const off = featureOff(inboxes.error);
  if (off) return <FeatureOff feature={off} />;
  // Conversation ids are numeric: anything else is no conversation.
  if (conversationId !== undefined && !/^\d{1,15}$/.test(conversationId)) return <NotFound />;
  const pag = list.data?.meta.pagination;
  return (
    <section class="page inbox" data-testid="inbox">
      <div class="inbox-list">
        <h1>
          {t('inbox')}{' '}
          {live && (
            <span class="badge" data-testid="live">
              {t('live')}
            </span>
          )}
        </h1>
        <div class="filters compact">
          <label>
            <span class="sr-only">{t('searchConversations')}</span>
            <input
              type="search"
              name="q"
              placeholder={t('searchConversations')}
              value={q}
              onInput={(e) => setQ((e.target as HTMLInputElement).value)}
            />
          </label>
          <FilterSelect
            name="status"
            label={t('status')}
            value={status}
            onChange={refilter(setStatus)}
            options={[['all', t('allStatuses')], ...STATUSES.map((s) => [s, t(`conv_${s}`)] as const)]}
          />
          <FilterSelect
            name="assignee"
            label={t('assignee')}
            value={assignee}
            onChange={refilter(setAssignee)}
            options={[
              ['', t('everyone')],
              ['me', t('assignedToMe')],
              ['none', t('unassigned')],
            ]}
          />
          {(inboxes.data?.length ?? 0) > 1 && (
            <FilterSelect
              name="inbox"
              label={t('inbox')}
              value={inboxId}
              onChange={refilter(setInboxId)}
              options={[
                ['', t('allInboxes')],
                ...(inboxes.data ?? []).map((i) => [String(i.id), i.name] as const),
              ]}
            />
          )}
          <label class="inline">
            <input
              type="checkbox"
              name="unread"
              checked={unread}
              onChange={(e) => refilter(setUnread)((e.target as HTMLInputElement).checked)}
            />
            {t('unreadOnly')}
          </label>
        </div>
        {(list.error || inboxes.error) && (
          <p role="alert" class="error">
            {reason(list.error ?? inboxes.error)}
          </p>
        )}
        {inboxes.data?.length === 0 && <p class="muted">{t('noInboxes')}</p>}
        <ul class="conversations" data-testid="conversations">
          {list.data?.data.map((c) => (
            <li key={c.id}>
              <a
                href={`/app/inbox/${c.id}`}
                data-conversation-id={c.id}
                aria-current={c.id === selected ? 'page' : undefined}
                onClick={(e) => {
                  if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
                  e.preventDefault();
                  navigate(`/inbox/${c.id}`);
                }}
              >
                <span class="conv-head">
                  <strong>{contactLabel(c)}</strong>
                  {c.unreadCount > 0 && (
                    <span class="count unread" data-unread>
                      <span class="sr-only">{t('unread')}: </span>
                      {c.unreadCount}
                    </span>
                  )}
                </span>
                <span class="conv-preview">{c.lastMessagePreview ?? ''}</span>
                <span class="muted small">
                  {t(`conv_${c.status}`)} · {dateTime(c.lastMessageAt)}
                  {c.assignee ? ` · ${c.assignee.user.username}` : ''}
                </span>
              </a>
            </li>
          ))}
          {list.data?.data.length === 0 && <li class="muted">{t('noItems')}</li>}
        </ul>
        {pag && pag.pageCount > 1 && (
          <nav class="pager" aria-label="pagination">
            <button
              type="button"
              disabled={page <= 1}
              onClick={() => setPage(page - 1)}
              aria-label={t('previousPage')}
            >
              ‹
            </button>
            <span>
              {page} / {pag.pageCount}
            </span>
            <button
              type="button"
              disabled={page >= pag.pageCount}
              onClick={() => setPage(page + 1)}
              aria-label={t('nextPage')}
            >
              ›
            </button>
          </nav>
        )}
      </div>
      {selected ? (
        <ConversationView id={selected} inboxes={inboxes.data ?? []} />
      ) : (
        <p class="muted inbox-empty">{t('pickConversation')}</p>
      )}
    </section>
  );
}

function ConversationView({ id, inboxes }: { id: number; inboxes: Inbox[] }) {
  const qc = useQueryClient();
  const writable = canWrite();
  const [error, setError] = useState('');
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
          <label>
            {t('assignee')}
            <select
              name="conversation-assignee"
              value={c.assignee?.documentId ?? ''}
              disabled={!writable}
              onChange={(e) => {
                const v = (e.target as HTMLSelectElement).value;
                void act(() =>
                  client.PATCH('/api/conversations/{id}', {
                    params: { path: { id } },
                    body: { data: { assignee: v || null } } as never,
                  }),
                );
              }}
            >
              <option value="">{t('unassigned')}</option>
              {c.assignee && !members.data?.some((m) => m.documentId === c.assignee?.documentId) && (
                <option value={c.assignee.documentId}>{c.assignee.user.username}</option>
              )}
              {members.data
                ?.filter((m) => m.role !== 'viewer')
                .map((m) => (
                  <option key={m.documentId} value={m.documentId}>
                    {m.user.username}
                  </option>
                ))}
            </select>
          </label>
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
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {messages.hasNextPage && (
        <button
          type="button"
          class="secondary older"
          disabled={messages.isFetchingNextPage}
          onClick={() => messages.fetchNextPage()}
        >
          {t('olderMessages')}
        </button>
      )}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reachable by keyboard to scroll it */}
      <ol class="thread" ref={thread} data-testid="messages" aria-label={t('messages')} tabIndex={0}>
        {all.map((m) => (
          <li key={m.id} class={`msg ${m.direction}`} data-message-id={m.id}>
            <p>{m.content || (m.attachments[0]?.filename ?? `[${m.contentType}]`)}</p>
            <span class="muted small">
              {m.direction === 'outgoing'
                ? (m.sender.membership?.user.username ?? t('system'))
                : contactLabel(c)}{' '}
              · {dateTime(m.createdAt)} · {t(`msg_${m.status}`)}
              {m.error ? ` · ${m.error}` : ''}
            </span>
          </li>
        ))}
        {messages.data && all.length === 0 && <li class="muted">{t('noItems')}</li>}
      </ol>
      {writable && <Composer conv={c} inbox={inbox} windowOpen={windowOpen} />}
    </section>
  );
}

function Composer({ conv, inbox, windowOpen }: { conv: Conversation; inbox?: Inbox; windowOpen: boolean }) {
  const qc = useQueryClient();
  const [text, setText] = useState('');
  const [error, setError] = useState<{ text: string; window: boolean } | null>(null);
  const [sending, setSending] = useState(false);
  const [template, setTemplate] = useState(!windowOpen);
  useEffect(() => setTemplate(!windowOpen), [conv.id, windowOpen]);
  const send = async (message: Record<string, unknown>) => {
    setError(null);
    setSending(true);
    try {
      await unwrap(
        client.POST('/api/conversations/{id}/messages', {
          params: { path: { id: conv.id } },
          body: { data: { message } } as never,
        }),
      );
      setText('');
      await Promise.all([
        qc.invalidateQueries({ queryKey: ['messages', conv.id] }),
        qc.invalidateQueries({ queryKey: ['conversation', conv.id] }),
        qc.invalidateQueries({ queryKey: ['conversations'] }),
      ]);
    } catch (err) {
      const windowClosed = err instanceof ApiError && err.status === 422 && !!err.details?.window;
      setError({ text: reason(err), window: windowClosed });
      if (windowClosed) setTemplate(true);
    } finally {
      setSending(false);
    }
  };
  return (
    <div class="composer">
      {!windowOpen && (
        <p class="muted small" data-testid="window-closed">
          {t('windowClosed')}
        </p>
      )}
      {!template ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void send({ content: text });
          }}
        >
          <label for="reply">{t('reply')}</label>
          <textarea
            id="reply"
            name="reply"
            rows={3}
            required
            value={text}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                if (text.trim()) void send({ content: text });
              }
            }}
          />
          <div class="row">
            <button type="submit" disabled={sending}>
              {t('send')}
            </button>
            {inbox && (
              <button type="button" class="link" onClick={() => setTemplate(true)}>
                {t('useTemplate')}
              </button>
            )}
          </div>
        </form>
      ) : (
        <TemplateForm
          channelId={inbox?.channel.documentId}
          sending={sending}
          onSend={send}
          onText={() => setTemplate(false)}
        />
      )}
      {error && (
        <p role="alert" class="error" data-testid="send-error">
          {error.text}
        </p>
      )}
    </div>
  );
}

/** The template alternative (outside the 24-hour window): an approved template of the channel and its variables. */
function TemplateForm(props: {
  channelId?: string;
  sending: boolean;
  onSend: (m: Record<string, unknown>) => Promise<void>;
  onText?: () => void;
}) {
  const [picked, setPicked] = useState('');
  const [params, setParams] = useState<string[]>([]);
  const templates = useQuery({
    queryKey: ['templates', props.channelId],
    enabled: !!props.channelId,
    queryFn: async () =>
      (
        (await unwrap(
          client.GET('/api/chat-channels/{channelId}/templates', {
            params: {
              path: { channelId: props.channelId! },
              query: { pagination: { pageSize: 100 } } as never,
            },
          }),
        )) as { data: Template[] }
      ).data.filter((x) => x.status === 'APPROVED'),
  });
  const tpl = templates.data?.find((x) => x.documentId === picked);
  const body = String(
    (tpl?.components.find((c) => String(c.type).toUpperCase() === 'BODY') as { text?: string } | undefined)
      ?.text ?? '',
  );
  const vars = [...new Set([...body.matchAll(/\{\{(\d+)\}\}/g)].map((m) => m[1]))];
  const rendered = body.replace(/\{\{(\d+)\}\}/g, (_, n: string) => params[Number(n) - 1] || `{{${n}}}`);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (!tpl) return;
        void props.onSend({
          content: rendered,
          template_params: {
            name: tpl.name,
            category: tpl.category,
            language: tpl.language,
            processed_params: Object.fromEntries(vars.map((n) => [n, params[Number(n) - 1] ?? ''])),
          },
        });
      }}
    >
      <label>
        {t('template')}
        <select
          name="template"
          value={picked}
          onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}
        >
          <option value="">—</option>
          {templates.data?.map((x) => (
            <option key={x.documentId} value={x.documentId}>
              {x.name} ({x.language})
            </option>
          ))}
        </select>
      </label>
      {templates.data?.length === 0 && <p class="muted small">{t('noTemplates')}</p>}
      {templates.error && <p class="error">{reason(templates.error)}</p>}
      {vars.map((n) => (
        <label key={n}>
          {`{{${n}}}`}
          <input
            name={`param-${n}`}
            required
            value={params[Number(n) - 1] ?? ''}
            onInput={(e) => {
              const next = [...params];
              next[Number(n) - 1] = (e.target as HTMLInputElement).value;
              setParams(next);
            }}
          />
        </label>
      ))}
      {tpl && <p class="template-preview">{rendered}</p>}
      <div class="row">
        <button type="submit" disabled={!tpl || props.sending}>
          {t('sendTemplate')}
        </button>
        {props.onText && (
          <button type="button" class="link" onClick={props.onText}>
            {t('freeText')}
          </button>
        )}
      </div>
    </form>
  );
}
