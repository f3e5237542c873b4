import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { DateTimeInput } from '../components/DateTimeInput';
import { Link } from '../components/Link';
import { dateTime, getLang } from '../i18n';
import { refusalOf } from '../lib/marketing';
import { num } from '../lib/words';
import { navigate } from '../router';
import { canWrite } from '../session';
import {
  Button,
  type Column,
  confirmAction,
  DataTable,
  Field,
  PageHeader,
  Pagination,
  Skeleton,
  toast,
} from '../ui';
import { type Campaign, type CampaignStats, campaignRefusal, ccode, cw, statusBadge } from './Campaigns';

interface Recipient {
  contact: { documentId: string; name: string } | null;
  address: string;
  status: 'pending' | 'sending' | 'sent' | 'failed' | 'skipped';
  skipReason: string | null;
  attempts: number;
  error: string | null;
  sentAt: string | null;
  deliveredAt: string | null;
  openedAt: string | null;
  clickedAt: string | null;
}
type Action = 'trigger' | 'pause' | 'resume' | 'cancel';
const ACTIONS: Record<Campaign['campaignStatus'], Action[]> = {
  draft: ['trigger', 'cancel'],
  scheduled: ['pause', 'cancel'],
  processing: ['pause', 'cancel'],
  paused: ['resume', 'cancel'],
  completed: [],
  failed: [],
  cancelled: [],
};
const live = (s: Campaign['campaignStatus'] | undefined) => s === 'processing' || s === 'scheduled';
const skipWord = (r: string | null) => {
  const word = ccode('sk', r ?? '');
  return word === (r ?? '') ? cw('sk_other') : word;
};
const pct = (part: number, whole: number) =>
  new Intl.NumberFormat(getLang(), { style: 'percent', maximumFractionDigits: 1 }).format(
    whole ? part / whole : 0,
  );

/** One campaign: what it sends to whom, its actions by status, its engagement and its recipients (paged). */
export function CampaignDetailPage({ id }: { id: string }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState('');
  const [error, setError] = useState('');
  const c = useQuery({
    queryKey: ['campaign', id],
    queryFn: async () =>
      (await unwrap(client.GET('/api/campaigns/{id}', { params: { path: { id } } }))) as unknown as Campaign,
    refetchInterval: (q) => (live(q.state.data?.campaignStatus) ? 2000 : false),
  });
  if (c.error)
    return (
      <section class="page mkt">
        <p role="alert" class="error">
          {reason(c.error)}
        </p>
        <Link href="/campaigns">{cw('back')}</Link>
      </section>
    );
  if (!c.data)
    return (
      <section class="page mkt">
        <Skeleton lines={6} />
      </section>
    );
  const camp = c.data;
  const act = async (action: Action | 'delete') => {
    if (
      (action === 'cancel' || action === 'delete') &&
      !(await confirmAction({
        title: cw(`act_${action}`),
        text: action === 'delete' ? cw('confirmDelete') : cw('confirmCancel'),
        confirmLabel: cw(`act_${action}`),
        danger: true,
      }))
    )
      return;
    setBusy(action);
    setError('');
    try {
      if (action === 'delete') {
        await unwrap(client.DELETE('/api/campaigns/{id}', { params: { path: { id } } }));
        toast(cw('done_delete'));
        await qc.invalidateQueries({ queryKey: ['campaigns'] });
        navigate('/campaigns');
        return;
      }
      const next = await unwrap(client.POST(`/api/campaigns/{id}/${action}`, { params: { path: { id } } }));
      qc.setQueryData(['campaign', id], next);
      toast(cw(`done_${action}`));
      await qc.invalidateQueries({ queryKey: ['campaigns'] });
    } catch (err) {
      setError(campaignRefusal(err, action));
      // Refused for its status: someone else changed it meanwhile; show the campaign as it is now.
      await qc.invalidateQueries({ queryKey: ['campaign', id] });
    } finally {
      setBusy('');
    }
  };
  const allowed = canWrite() ? ACTIONS[camp.campaignStatus] : [];
  const deletable = canWrite() && camp.campaignStatus !== 'processing' && camp.campaignStatus !== 'paused';
  return (
    <section class="page mkt" data-testid="campaign">
      <p>
        <Link href="/campaigns">← {cw('back')}</Link>
      </p>
      <PageHeader
        title={camp.name}
        actions={
          <>
            {allowed.map((a) =>
              a === 'cancel' ? (
                <Button key={a} variant="secondary" onClick={() => act('cancel')} busy={busy === a}>
                  {cw('act_cancel')}
                </Button>
              ) : (
                <Button key={a} onClick={() => act(a)} busy={busy === a} data-action={a}>
                  {cw(`act_${a}`)}
                </Button>
              ),
            )}
            {deletable && (
              <Button variant="danger" onClick={() => act('delete')} busy={busy === 'delete'}>
                {cw('act_delete')}
              </Button>
            )}
          </>
        }
      >
        <p data-testid="campaign-status">{statusBadge(camp.campaignStatus)}</p>
      </PageHeader>
      {error && (
        <p role="alert" class="error" data-testid="campaign-error">
          {error}
        </p>
      )}
      <dl class="mkt-facts">
        <dt>{cw('channel')}</dt>
        <dd>{`${camp.chatChannel.name} · ${ccode('kind', camp.chatChannel.type)}`}</dd>
        <dt>{cw('segment')}</dt>
        <dd>{camp.segment?.name ?? '—'}</dd>
        <dt>{cw('template')}</dt>
        <dd>{camp.template ? <code>{camp.template.name}</code> : '—'}</dd>
        <dt>{cw('scheduledAt')}</dt>
        <dd>{dateTime(camp.scheduledAt) || '—'}</dd>
        <dt>{cw('startedAt')}</dt>
        <dd>{dateTime(camp.startedAt) || '—'}</dd>
        <dt>{cw('completedAt')}</dt>
        <dd>{dateTime(camp.completedAt) || '—'}</dd>
        {camp.error && (
          <>
            <dt>{cw('error')}</dt>
            <dd>
              <code>{camp.error}</code>
            </dd>
          </>
        )}
      </dl>
      {canWrite() && (camp.campaignStatus === 'draft' || camp.campaignStatus === 'scheduled') && (
        <Reschedule campaign={camp} />
      )}
      <Engagement stats={camp.stats} kind={camp.chatChannel.type} />
      {camp.stats.skipped > 0 && <SkipReasons id={id} skipped={camp.stats.skipped} />}
      <Recipients
        id={id}
        version={`${camp.campaignStatus}:${camp.stats.sent}:${camp.stats.failed}:${camp.stats.skipped}`}
      />
    </section>
  );
}

/** `YYYY-MM-DDTHH:MM` in the browser's time zone, as DateTimeInput takes it. */
const localOf = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
};

/** A draft's or scheduled campaign's date, changed or (a draft's) removed: PUT /api/campaigns/{id}. */
function Reschedule({ campaign }: { campaign: Campaign }) {
  const qc = useQueryClient();
  const [when, setWhen] = useState(localOf(campaign.scheduledAt));
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async (value: string) => {
    setBusy(true);
    setError('');
    try {
      const next = await unwrap(
        client.PUT('/api/campaigns/{id}', {
          params: { path: { id: campaign.documentId } },
          body: { data: { scheduledAt: value ? new Date(value).toISOString() : null } },
        }),
      );
      qc.setQueryData(['campaign', campaign.documentId], next);
      await qc.invalidateQueries({ queryKey: ['campaigns'] });
      setWhen(value);
      toast(cw('rescheduled'));
    } catch (err) {
      const r = refusalOf(err, ['scheduledAt']);
      setError(r.fields.scheduledAt ?? campaignRefusal(err, 'edit'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="mkt-form mkt-schedule"
      data-testid="campaign-schedule"
      onSubmit={(e) => {
        e.preventDefault();
        void save(when);
      }}
    >
      <Field label={cw('reschedule')} error={error}>
        <DateTimeInput name="reschedule" value={when} onChange={setWhen} timeLabel={cw('time')} />
      </Field>
      <div class="ds-actions">
        <Button submit variant="secondary" busy={busy} disabled={!when}>
          {cw('saveSchedule')}
        </Button>
        {campaign.campaignStatus === 'draft' && campaign.scheduledAt && (
          <Button variant="ghost" busy={busy} onClick={() => save('')}>
            {cw('clearSchedule')}
          </Button>
        )}
      </div>
    </form>
  );
}

function Engagement({ stats, kind }: { stats: CampaignStats; kind: Campaign['channel'] }) {
  const tiles: [string, number, string?][] = [
    [cw('total'), stats.total],
    [cw('pending'), stats.pending],
    [cw('sent'), stats.sent],
    [cw('delivered'), stats.delivered, cw('ofSent', { pct: pct(stats.delivered, stats.sent) })],
    [cw('opened'), stats.opened, cw('ofSent', { pct: pct(stats.opened, stats.sent) })],
    ...(kind === 'email'
      ? ([
          [cw('clicked'), stats.clicked, cw('ofSent', { pct: pct(stats.clicked, stats.sent) })],
          [cw('bounced'), stats.bounced],
        ] as [string, number, string?][])
      : []),
    [cw('failed'), stats.failed],
    [cw('skipped'), stats.skipped],
    [cw('skippedNoConsent'), stats.skippedNoConsent],
  ];
  return (
    <section aria-labelledby="engagement-title">
      <h2 id="engagement-title">{cw('engagement')}</h2>
      <ul class="mkt-stats" data-testid="campaign-stats">
        {tiles.map(([label, n, note]) => (
          <li key={label} data-stat={label}>
            <span class="mkt-stat-n">{num(n)}</span>
            <span class="mkt-stat-label">{label}</span>
            {note && <span class="muted small">{note}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Why the skipped recipients were skipped, counted by reason (no consent, unsubscribed, cancelled…). */
function SkipReasons({ id, skipped }: { id: string; skipped: number }) {
  const r = useQuery({
    queryKey: ['campaign-skips', id, skipped],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/campaigns/{id}/recipients', {
            params: {
              path: { id },
              query: { filters: { status: { $eq: 'skipped' } }, pagination: { pageSize: 100 } } as never,
            },
          }),
        )
      ).data as unknown as Recipient[],
  });
  const counts = new Map<string, number>();
  for (const x of r.data ?? [])
    counts.set(skipWord(x.skipReason), (counts.get(skipWord(x.skipReason)) ?? 0) + 1);
  return (
    <section aria-labelledby="skips-title">
      <h3 id="skips-title">{cw('reasons')}</h3>
      <ul class="plain" data-testid="campaign-skips">
        {[...counts].map(([word, n]) => (
          <li key={word}>
            {word}: <strong>{num(n)}</strong>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The recipients, a page at a time, read again whenever the campaign's counts move (`version`). */
function Recipients({ id, version }: { id: string; version: string }) {
  const [page, setPage] = useState(1);
  const r = useQuery({
    queryKey: ['campaign-recipients', id, page, version],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/campaigns/{id}/recipients', {
          params: { path: { id }, query: { pagination: { page, pageSize: 20 } } as never },
        }),
      )) as unknown as { data: Recipient[]; meta: { pagination: { pageCount: number } } },
  });
  const columns: Column<Recipient>[] = [
    { key: 'contact', label: cw('contact'), render: (x) => x.contact?.name ?? '—' },
    { key: 'address', label: cw('address') },
    { key: 'status', label: cw('status'), render: (x) => ccode('rs', x.status) },
    { key: 'sentAt', label: cw('sentAt'), render: (x) => dateTime(x.sentAt) || '—' },
    {
      key: 'detail',
      label: cw('detail'),
      render: (x) =>
        x.status === 'skipped' ? (
          skipWord(x.skipReason)
        ) : x.error ? (
          <code>{x.error}</code>
        ) : (
          [x.deliveredAt && cw('delivery'), x.openedAt && cw('read'), x.clickedAt && cw('click')]
            .filter(Boolean)
            .join(' · ') || '—'
        ),
    },
  ];
  return (
    <section aria-labelledby="recipients-title">
      <h2 id="recipients-title">{cw('recipients')}</h2>
      <DataTable
        caption={cw('recipients')}
        columns={columns}
        rows={r.data?.data}
        loading={r.isLoading}
        rowKey={(x) => `${x.contact?.documentId ?? ''}${x.address}`}
        empty={cw('recipientsEmpty')}
        footer={
          <Pagination page={page} pageCount={r.data?.meta.pagination.pageCount ?? 1} onPage={setPage} />
        }
      />
    </section>
  );
}
