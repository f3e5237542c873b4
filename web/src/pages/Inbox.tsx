import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'preact/hooks';
import { type Conversation, client, featureOff, reason, unwrap } from '../api';
import { FeatureOff } from '../components/FeatureOff';
import { previewWords } from '../components/inbox/Attachment';
import { ConversationView, STATUSES } from '../components/inbox/ConversationView';
import { StartConversation, scw } from '../components/inbox/StartConversation';
import { NotFound } from '../components/NotFound';
import { dateTime, t } from '../i18n';
import { contactLabel } from '../lib/labels';
import { personName } from '../lib/people';
import { num } from '../lib/words';
import { type LiveEvent, useLive } from '../live';
import { navigate } from '../router';
import { canWrite } from '../session';
import { Avatar, Badge, Button, EmptyState, Pagination, Skeleton } from '../ui';

type Inbox = import('../api').Schemas['ChatInbox'];

/** The conversation list's filters, as the list's query key holds them. */
interface ListFilters {
  status: string;
  assignee: string;
  inboxId: string;
  unread: boolean;
  query: string;
  page: number;
}

function listConversations({ status, assignee, inboxId, unread, query, page }: ListFilters) {
  return unwrap(
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
  );
}

/** The list's filters: a change of one goes back to the first page; the search applies 300 ms after typing stops. */
function useListFilters() {
  const [status, setStatus] = useState('all');
  const [assignee, setAssignee] = useState('');
  const [inboxId, setInboxId] = useState('');
  const [unread, setUnread] = useState(false);
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
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
  return {
    filters: { status, assignee, inboxId, unread, query, page } satisfies ListFilters,
    q,
    setQ,
    setPage,
    setStatus: refilter(setStatus),
    setAssignee: refilter(setAssignee),
    setInboxId: refilter(setInboxId),
    setUnread: refilter(setUnread),
  };
}

/** The live stream of the inbox: the list, the open conversation and its thread follow its events. */
function useInboxEvents(on: boolean, onOpen: () => void) {
  const qc = useQueryClient();
  useLive(
    on ? '/api/conversations/events' : null,
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
      onOpen();
      // Anything that happened while the stream was closed: ask again.
      void qc.invalidateQueries({ queryKey: ['conversations'] });
      void qc.invalidateQueries({ queryKey: ['messages'] });
    },
  );
}

/** The inbox: conversations (filters, search, live updates) and one conversation's thread. */
export function InboxPage({ conversationId }: { conversationId?: string }) {
  const f = useListFilters();
  const [live, setLive] = useState(false);
  const [starting, setStarting] = useState(false);
  const inboxes = useQuery({
    queryKey: ['inboxes'],
    queryFn: async () => (await unwrap(client.GET('/api/inboxes'))).data as Inbox[],
  });
  const list = useQuery({
    queryKey: ['conversations', f.filters],
    enabled: !inboxes.error,
    queryFn: async () => await listConversations(f.filters),
  });
  const selected = conversationId ? Number(conversationId) : null;
  useInboxEvents(!!inboxes.data, () => setLive(true));

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
            <span data-testid="live">
              <Badge tone="success">{t('live')}</Badge>
            </span>
          )}
        </h1>
        {canWrite() && !!inboxes.data?.length && (
          <div class="row">
            <Button variant="secondary" onClick={() => setStarting(true)}>
              {scw('newConversation')}
            </Button>
          </div>
        )}
        <ListFilterBar f={f} inboxes={inboxes.data} />
        {(list.error || inboxes.error) && (
          <p role="alert" class="error">
            {reason(list.error ?? inboxes.error)}
          </p>
        )}
        {inboxes.data?.length === 0 ? (
          <EmptyState text={t('noInboxes')} />
        ) : list.isLoading ? (
          <Skeleton lines={6} />
        ) : (
          <ConversationList conversations={list.data?.data} selected={selected} />
        )}
        {pag && pag.pageCount > 1 && (
          <Pagination page={f.filters.page} pageCount={pag.pageCount} onPage={f.setPage} />
        )}
      </div>
      {selected ? (
        <ConversationView id={selected} inboxes={inboxes.data ?? []} />
      ) : (
        <div class="inbox-empty">
          <EmptyState text={t('pickConversation')} />
        </div>
      )}
      <StartConversation open={starting} onClose={() => setStarting(false)} />
    </section>
  );
}

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

/** The list's search, status, assignee, inbox (when there are several) and unread-only filters. */
function ListFilterBar({ f, inboxes }: { f: ReturnType<typeof useListFilters>; inboxes?: Inbox[] }) {
  const { status, assignee, inboxId, unread } = f.filters;
  return (
    <div class="filters compact">
      <label>
        <span class="sr-only">{t('searchConversations')}</span>
        <input
          type="search"
          name="q"
          placeholder={t('searchConversations')}
          value={f.q}
          onInput={(e) => f.setQ((e.target as HTMLInputElement).value)}
        />
      </label>
      <FilterSelect
        name="status"
        label={t('status')}
        value={status}
        onChange={f.setStatus}
        options={[['all', t('allStatuses')], ...STATUSES.map((s) => [s, t(`conv_${s}`)] as const)]}
      />
      <FilterSelect
        name="assignee"
        label={t('assignee')}
        value={assignee}
        onChange={f.setAssignee}
        options={[
          ['', t('everyone')],
          ['me', t('assignedToMe')],
          ['none', t('unassigned')],
        ]}
      />
      {(inboxes?.length ?? 0) > 1 && (
        <FilterSelect
          name="inbox"
          label={t('inbox')}
          value={inboxId}
          onChange={f.setInboxId}
          options={[['', t('allInboxes')], ...(inboxes ?? []).map((i) => [String(i.id), i.name] as const)]}
        />
      )}
      <label class="inline">
        <input
          type="checkbox"
          name="unread"
          checked={unread}
          onChange={(e) => f.setUnread((e.target as HTMLInputElement).checked)}
        />
        {t('unreadOnly')}
      </label>
    </div>
  );
}

/** The conversations of the page: contact, unread count, last message, status, time, assignee. */
function ConversationList({
  conversations,
  selected,
}: {
  conversations?: Conversation[];
  selected: number | null;
}) {
  return (
    <ul class="conversations" data-testid="conversations">
      {conversations?.map((c) => (
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
                  {num(c.unreadCount)}
                </span>
              )}
            </span>
            <span class="conv-preview">
              {/* A conversation whose only message WhatsApp refused has none to preview (nor a time). */}
              {c.lastMessagePreview === null ? (
                <em class="muted">{t('noMessagesYet')}</em>
              ) : (
                previewWords(c.lastMessagePreview)
              )}
            </span>
            <span class="muted small conv-meta">
              {c.assignee && <Avatar user={c.assignee.user} />}
              <span>
                {t(`conv_${c.status}`)}
                {c.lastMessageAt ? ` · ${dateTime(c.lastMessageAt)}` : ''}
                {c.assignee ? ` · ${personName(c.assignee)}` : ''}
              </span>
            </span>
          </a>
        </li>
      ))}
      {conversations?.length === 0 && (
        <li>
          <EmptyState text={t('noItems')} />
        </li>
      )}
    </ul>
  );
}
