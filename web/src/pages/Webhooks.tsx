import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { dateTime } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { isAdmin, refusalOf } from '../lib/marketing';
import { num } from '../lib/words';
import {
  Badge,
  Button,
  type Column,
  confirmAction,
  DataTable,
  Dialog,
  Field,
  PageHeader,
  Pagination,
  type Tone,
  toast,
} from '../ui';
import * as catalogue from '../words/webhooks';

const hw = wordsOf(catalogue);
type Key = keyof typeof catalogue.ptBR;

/** The event types the service emits (src/platform/events/outbox.ts), `*` for all. */
const EVENTS = [
  '*',
  'card.created',
  'card.updated',
  'card.phase_changed',
  'card.won',
  'card.lost',
  'card.deleted',
  'contact.created',
  'contact.updated',
  'conversation.created',
  'message.received',
  'task.completed',
  'campaign.completed',
  'lead.received',
] as const;
const eventWord = (e: string) => hw(`ev_${e}` as Key);

interface Subscription {
  documentId: string;
  url: string;
  events: string[];
  enabled: boolean;
  consecutiveFailures: number;
  disabledReason: string | null;
  createdAt: string;
}

/** Webhooks (BETA, admins): subscriptions, their delivery log, re-enable one the service disabled. */
export function WebhooksPage() {
  const admin = isAdmin();
  const qc = useQueryClient();
  const list = useQuery({
    queryKey: ['webhook-subscriptions'],
    enabled: admin,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/webhook-subscriptions', {
            params: { query: { pagination: { pageSize: 100 } } as never },
          }),
        )
      ).data as unknown as Subscription[],
  });
  const [editing, setEditing] = useState<Subscription | 'new' | null>(null);
  const [log, setLog] = useState<Subscription | null>(null);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const reenable = async (s: Subscription) => {
    setError('');
    try {
      await unwrap(
        client.PUT('/api/webhook-subscriptions/{id}', {
          params: { path: { id: s.documentId } },
          body: { data: { enabled: true } },
        }),
      );
      toast(hw('reenabled'));
      await qc.invalidateQueries({ queryKey: ['webhook-subscriptions'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const remove = async (s: Subscription) => {
    const ok = await confirmAction({
      title: hw('removeTitle'),
      text: hw('removeText'),
      confirmLabel: hw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(
        client.DELETE('/api/webhook-subscriptions/{id}', { params: { path: { id: s.documentId } } }),
      );
      toast(hw('removed'));
      await qc.invalidateQueries({ queryKey: ['webhook-subscriptions'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const columns: Column<Subscription>[] = [
    { key: 'url', label: hw('url'), render: (s) => <code class="wh-url">{s.url}</code> },
    { key: 'events', label: hw('events'), render: (s) => s.events.map(eventWord).join(', ') },
    {
      key: 'enabled',
      label: hw('state'),
      render: (s) => (
        <>
          <Badge tone={s.enabled ? 'success' : 'danger'}>{s.enabled ? hw('on') : hw('off')}</Badge>
          {!s.enabled && s.disabledReason && (
            <span class="muted wh-reason"> {hw('disabledBy', { reason: s.disabledReason })}</span>
          )}
        </>
      ),
    },
    { key: 'failures', label: hw('failures'), numeric: true, render: (s) => num(s.consecutiveFailures) },
    { key: 'createdAt', label: hw('created'), render: (s) => dateTime(s.createdAt) },
    {
      key: 'actions',
      label: hw('actions'),
      render: (s) => (
        <span class="ds-actions">
          <Button variant="secondary" onClick={() => setEditing(s)} aria-label={hw('editOf', { url: s.url })}>
            {hw('edit')}
          </Button>
          <Button variant="ghost" onClick={() => setLog(s)} aria-label={hw('logOf', { url: s.url })}>
            {hw('log')}
          </Button>
          {!s.enabled && (
            <Button onClick={() => reenable(s)} aria-label={hw('reenableOf', { url: s.url })}>
              {hw('reenable')}
            </Button>
          )}
          <Button variant="ghost" onClick={() => remove(s)} aria-label={hw('removeOf', { url: s.url })}>
            {hw('remove')}
          </Button>
        </span>
      ),
    },
  ];
  return (
    <section class="page mkt" data-testid="webhooks">
      <PageHeader
        title={hw('title')}
        beta
        actions={admin && <Button onClick={() => setEditing('new')}>{hw('newSub')}</Button>}
      >
        <p class="muted">{hw('intro')}</p>
      </PageHeader>
      {!admin ? (
        <p class="muted">{hw('adminsOnly')}</p>
      ) : (
        <DataTable
          caption={hw('title')}
          testId="webhook-subscriptions"
          columns={columns}
          rows={list.data}
          loading={list.isLoading}
          rowKey={(s) => s.documentId}
          empty={hw('empty')}
        />
      )}
      {(error || list.error) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      {editing && (
        <SubscriptionEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          sub={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSecret={setSecret}
        />
      )}
      {log && <Deliveries sub={log} onClose={() => setLog(null)} />}
      {secret && (
        <Dialog
          open
          title={hw('secretTitle')}
          onClose={() => setSecret('')}
          footer={<Button onClick={() => setSecret('')}>{hw('close')}</Button>}
        >
          <p>{hw('secretText')}</p>
          <p>
            <code data-testid="webhook-secret" class="wh-url">
              {secret}
            </code>
          </p>
        </Dialog>
      )}
    </section>
  );
}

function SubscriptionEditor({
  sub,
  onClose,
  onSecret,
}: {
  sub: Subscription | null;
  onClose: () => void;
  onSecret: (s: string) => void;
}) {
  const qc = useQueryClient();
  const [url, setUrl] = useState(sub?.url ?? '');
  const [events, setEvents] = useState<string[]>(sub?.events ?? []);
  const [enabled, setEnabled] = useState(sub?.enabled ?? true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const toggle = (e: string, on: boolean) =>
    setEvents(on ? [...events.filter((x) => x !== e), e] : events.filter((x) => x !== e));
  const save = async (ev: Event) => {
    ev.preventDefault();
    setErrors({});
    setGeneral('');
    if (!events.length) {
      setErrors({ events: hw('pickEvents') });
      return;
    }
    setBusy(true);
    const data = { url, events: events as never, enabled };
    try {
      if (sub) {
        await unwrap(
          client.PUT('/api/webhook-subscriptions/{id}', {
            params: { path: { id: sub.documentId } },
            body: { data },
          }),
        );
      } else {
        const r = await unwrap(client.POST('/api/webhook-subscriptions', { body: { data } }));
        onSecret(r.secret);
      }
      toast(hw('saved'));
      await qc.invalidateQueries({ queryKey: ['webhook-subscriptions'] });
      onClose();
    } catch (err) {
      const r = refusalOf(err, ['url', 'events']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      title={sub ? hw('editSub') : hw('newSub')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {hw('cancel')}
          </Button>
          <Button submit busy={busy} form="webhook-form">
            {hw('save')}
          </Button>
        </>
      }
    >
      <form id="webhook-form" class="mkt-form" onSubmit={save}>
        <Field label={hw('url')} required hint={hw('urlHint')} error={errors.url}>
          <input
            name="webhook-url"
            type="url"
            maxLength={2000}
            value={url}
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
        </Field>
        <fieldset class="wh-events">
          <legend>{hw('events')}</legend>
          {EVENTS.map((e) => (
            <label key={e} class="mkt-check">
              <input
                type="checkbox"
                name={`webhook-event-${e}`}
                checked={events.includes(e)}
                onChange={(x) => toggle(e, (x.target as HTMLInputElement).checked)}
              />{' '}
              {eventWord(e)}
            </label>
          ))}
          {errors.events && (
            <p role="alert" class="error">
              {errors.events}
            </p>
          )}
        </fieldset>
        <label class="mkt-check">
          <input
            type="checkbox"
            name="webhook-enabled"
            checked={enabled}
            onChange={(e) => setEnabled((e.target as HTMLInputElement).checked)}
          />{' '}
          {hw('enabled')}
        </label>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}

interface Delivery {
  id: number;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
}
const TONE: Record<Delivery['status'], Tone> = { pending: 'info', delivered: 'success', failed: 'danger' };

/** A subscription's delivery log, newest first. */
function Deliveries({ sub, onClose }: { sub: Subscription; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const r = useQuery({
    queryKey: ['webhook-deliveries', sub.documentId, page],
    placeholderData: keepPreviousData,
    refetchInterval: 3000,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/webhook-subscriptions/{id}/deliveries', {
          params: { path: { id: sub.documentId }, query: { pagination: { page, pageSize: 20 } } as never },
        }),
      )) as unknown as { data: Delivery[]; meta: { pagination: { pageCount: number } } },
  });
  const columns: Column<Delivery>[] = [
    { key: 'eventType', label: hw('event'), render: (d) => eventWord(d.eventType) },
    {
      key: 'status',
      label: hw('state'),
      render: (d) => <Badge tone={TONE[d.status]}>{hw(`st_${d.status}` as Key)}</Badge>,
    },
    { key: 'attempts', label: hw('attempts'), numeric: true, render: (d) => num(d.attempts) },
    {
      key: 'code',
      label: hw('response'),
      render: (d) => (d.lastStatusCode ? String(d.lastStatusCode) : '—'),
    },
    { key: 'when', label: hw('when'), render: (d) => dateTime(d.deliveredAt ?? d.createdAt) },
    { key: 'detail', label: hw('detail'), render: (d) => (d.lastError ? <code>{d.lastError}</code> : '—') },
  ];
  return (
    <Dialog open title={hw('logTitle', { url: sub.url })} onClose={onClose} wide>
      {r.error && (
        <p role="alert" class="error">
          {reason(r.error)}
        </p>
      )}
      <div class="mkt" data-testid="webhook-deliveries">
        <DataTable
          caption={hw('logTitle', { url: sub.url })}
          columns={columns}
          rows={r.data?.data}
          loading={r.isLoading}
          rowKey={(d) => String(d.id)}
          empty={hw('logEmpty')}
          footer={
            <Pagination page={page} pageCount={r.data?.meta.pagination.pageCount ?? 1} onPage={setPage} />
          }
        />
      </div>
    </Dialog>
  );
}
