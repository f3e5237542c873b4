import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { ApiError, client, reason, unwrap } from '../api';
import { DateTimeInput } from '../components/DateTimeInput';
import { Link } from '../components/Link';
import { dateTime } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { refusalOf, useChannels } from '../lib/marketing';
import { num, pluralOf } from '../lib/words';
import { navigate } from '../router';
import { canWrite } from '../session';
import {
  Badge,
  Button,
  type Column,
  DataTable,
  Dialog,
  EmptyState,
  Field,
  PageHeader,
  Pagination,
  type Tone,
  toast,
} from '../ui';
import * as catalogue from '../words/campaigns';
import { useEmailTemplates } from './EmailTemplates';
import { bodyOf, tcode, useWaTemplates } from './Templates';

export const cw = wordsOf(catalogue);
type Words = keyof typeof catalogue.ptBR;
/** A code of the service as this catalogue's word (an unknown one as it is). */
export const ccode = (prefix: string, value: string) =>
  `${prefix}_${value}` in catalogue.ptBR ? cw(`${prefix}_${value}` as Words) : value;

export interface CampaignStats {
  total: number;
  pending: number;
  sent: number;
  failed: number;
  skipped: number;
  skippedNoConsent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
}
export interface Campaign {
  documentId: string;
  name: string;
  description: string | null;
  channel: 'whatsapp' | 'email' | 'sms';
  chatChannel: { documentId: string; name: string; type: 'whatsapp' | 'email' | 'sms' };
  campaignStatus: 'draft' | 'scheduled' | 'processing' | 'paused' | 'completed' | 'failed' | 'cancelled';
  segment: { documentId: string; name: string } | null;
  template: { documentId: string; name: string; kind: 'email' | 'whatsapp' } | null;
  stats: CampaignStats;
  scheduledAt: string | null;
  startedAt: string | null;
  completedAt: string | null;
  error: string | null;
  createdAt: string;
}

const TONE: Record<Campaign['campaignStatus'], Tone> = {
  draft: 'neutral',
  scheduled: 'info',
  processing: 'info',
  paused: 'warning',
  completed: 'success',
  failed: 'danger',
  cancelled: 'neutral',
};
export const statusBadge = (s: Campaign['campaignStatus']) => <Badge tone={TONE[s]}>{ccode('st', s)}</Badge>;

/**
 * A campaign refusal in the chosen language: an action its status does not allow (details.campaignStatus),
 * a segment or template gone, else the API's reason.
 */
export function campaignRefusal(err: unknown, verb: string): string {
  if (err instanceof ApiError && typeof err.details?.campaignStatus === 'string') {
    const path = (err.details.errors as { path?: string[] }[] | undefined)?.[0]?.path?.[0];
    if (path === 'segment') return cw('refusedSegment');
    if (path === 'template') return cw('refusedTemplate');
    return cw('refused', { action: ccode('verb', verb), status: ccode('st', err.details.campaignStatus) });
  }
  return reason(err);
}

const PAGE_SIZE = 20;
const STATUSES = ['draft', 'scheduled', 'processing', 'paused', 'completed', 'failed', 'cancelled'] as const;

/** Campaigns: the list with status as words, and composing a new one. */
export function CampaignsPage() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [composing, setComposing] = useState(false);
  const list = useQuery({
    queryKey: ['campaigns', page, status],
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/campaigns', {
          params: {
            query: {
              pagination: { page, pageSize: PAGE_SIZE },
              sort: 'createdAt:desc',
              ...(status ? { filters: { campaignStatus: { $eq: status } } } : {}),
            } as never,
          },
        }),
      )) as unknown as { data: Campaign[]; meta: { pagination: { pageCount: number } } },
    refetchInterval: (q) =>
      q.state.data?.data.some((c) => c.campaignStatus === 'processing' || c.campaignStatus === 'scheduled')
        ? 3000
        : false,
  });
  const columns: Column<Campaign>[] = [
    {
      key: 'name',
      label: cw('name'),
      render: (c) => <Link href={`/campaigns/${c.documentId}`}>{c.name}</Link>,
    },
    { key: 'status', label: cw('status'), render: (c) => statusBadge(c.campaignStatus) },
    {
      key: 'channel',
      label: cw('channel'),
      render: (c) => `${c.chatChannel.name} · ${ccode('kind', c.chatChannel.type)}`,
    },
    { key: 'segment', label: cw('segment'), render: (c) => c.segment?.name ?? '—' },
    { key: 'total', label: cw('audience'), numeric: true, render: (c) => num(c.stats.total) },
    { key: 'sent', label: cw('sent'), numeric: true, render: (c) => num(c.stats.sent) },
    {
      key: 'when',
      label: cw('scheduledAt'),
      render: (c) => dateTime(c.scheduledAt) || '—',
    },
  ];
  return (
    <section class="page mkt" data-testid="campaigns">
      <PageHeader
        title={cw('title')}
        actions={canWrite() && <Button onClick={() => setComposing(true)}>{cw('newCampaign')}</Button>}
      >
        <p class="muted">{cw('description')}</p>
        {!canWrite() && <p class="muted small">{cw('viewersOnly')}</p>}
      </PageHeader>
      <div class="mkt-toolbar">
        <Field label={cw('status')}>
          <select
            name="campaign-status"
            value={status}
            onChange={(e) => {
              setStatus((e.target as HTMLSelectElement).value);
              setPage(1);
            }}
          >
            <option value="">{cw('allStatuses')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {ccode('st', s)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <DataTable
        caption={cw('title')}
        columns={columns}
        rows={list.data?.data}
        loading={list.isLoading}
        rowKey={(c) => c.documentId}
        empty={status ? cw('emptyFilter') : cw('empty')}
        footer={
          <Pagination page={page} pageCount={list.data?.meta.pagination.pageCount ?? 1} onPage={setPage} />
        }
      />
      {list.error && (
        <p role="alert" class="error">
          {reason(list.error)}
        </p>
      )}
      {composing && <Compose onClose={() => setComposing(false)} />}
    </section>
  );
}

interface Segment {
  documentId: string;
  name: string;
}

/** How many contacts the segment has now (asked again every 15 s while the form is open). */
function LiveCount({ segment }: { segment: string }) {
  const count = useQuery({
    queryKey: ['segment-count', segment],
    enabled: !!segment,
    queryFn: async () =>
      unwrap(client.GET('/api/segments/{id}/count', { params: { path: { id: segment } } })),
    refetchInterval: 15_000,
  });
  if (!segment) return null;
  const n = count.data?.count;
  return (
    <p class="live-count" aria-live="polite" data-testid="campaign-audience">
      {n === undefined ? cw('counting') : cw(pluralOf(n, 'recipientsOne', 'recipientsMany'), { n: num(n) })}
    </p>
  );
}

function Compose({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const channels = useChannels();
  const segments = useQuery({
    queryKey: ['campaign-segments'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/segments', {
            params: { query: { pagination: { pageSize: 100 }, sort: 'name:asc' } as never },
          }),
        )
      ).data as unknown as Segment[],
  });
  const [name, setName] = useState('');
  const [channelId, setChannelId] = useState('');
  const [segment, setSegment] = useState('');
  const [template, setTemplate] = useState('');
  const [vars, setVars] = useState<Record<string, string>>({});
  const [smsText, setSmsText] = useState('');
  const [when, setWhen] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const channel = channels.data?.find((c) => c.documentId === channelId);
  const email = useEmailTemplates();
  const wa = useWaTemplates(channel?.type === 'whatsapp' ? channelId : undefined);
  const waTemplate = wa.data?.find((t) => t.documentId === template);
  const params = waTemplate
    ? [...new Set([...bodyOf(waTemplate).matchAll(/\{\{(\d+)\}\}/g)].map((m) => m[1]))]
    : [];
  const templates =
    channel?.type === 'email'
      ? (email.data ?? []).map((t) => ({ id: t.documentId, label: t.name, ok: true }))
      : channel?.type === 'whatsapp'
        ? (wa.data ?? []).map((t) => ({
            id: t.documentId,
            label:
              t.status === 'APPROVED'
                ? `${t.name} · ${tcode('lang', t.language)}`
                : cw('templateNotApproved', { name: t.name, status: tcode('st', t.status) }),
            ok: t.status === 'APPROVED',
          }))
        : [];
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setGeneral('');
    const variables =
      channel?.type === 'whatsapp' ? Object.fromEntries(params.map((p) => [p, vars[p] ?? ''])) : {};
    try {
      const made = (await unwrap(
        client.POST('/api/campaigns', {
          body: {
            data: {
              name: name.trim(),
              channel: channelId,
              segment,
              ...(template && channel?.type !== 'sms' ? { template } : {}),
              ...(Object.keys(variables).length ? { variables } : {}),
              ...(channel?.type === 'sms' ? { messageConfig: { text: smsText } } : {}),
              ...(when ? { scheduledAt: new Date(when).toISOString() } : {}),
            },
          },
        }),
      )) as unknown as Campaign;
      toast(cw('created_ok'));
      await qc.invalidateQueries({ queryKey: ['campaigns'] });
      onClose();
      navigate(`/campaigns/${made.documentId}`);
    } catch (err) {
      const r = refusalOf(err, ['name', 'channel', 'segment', 'template', 'scheduledAt', 'variables']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  const noChannel = channels.data && channels.data.length === 0;
  return (
    <Dialog
      open
      title={cw('compose')}
      onClose={onClose}
      wide
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {cw('cancel')}
          </Button>
          {!noChannel && (
            <Button submit busy={busy} form="campaign-form">
              {cw('create')}
            </Button>
          )}
        </>
      }
    >
      {noChannel ? (
        <EmptyState text={cw('noChannel')} action={<Link href="/channels">{cw('goChannels')}</Link>} />
      ) : (
        <form id="campaign-form" class="mkt-form" onSubmit={submit}>
          <Field label={cw('name')} required error={errors.name}>
            <input
              name="campaign-name"
              maxLength={200}
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </Field>
          <Field label={cw('channel')} required error={errors.channel}>
            <select
              name="campaign-channel"
              value={channelId}
              onChange={(e) => {
                setChannelId((e.target as HTMLSelectElement).value);
                setTemplate('');
                setVars({});
              }}
            >
              <option value="">{cw('pickChannel')}</option>
              {channels.data?.map((c) => (
                <option key={c.documentId} value={c.documentId}>
                  {`${c.name} · ${ccode('kind', c.type)}`}
                </option>
              ))}
            </select>
          </Field>
          {channel && channel.type !== 'sms' && (
            <Field label={cw('template')} required error={errors.template}>
              <select
                name="campaign-template"
                value={template}
                onChange={(e) => {
                  setTemplate((e.target as HTMLSelectElement).value);
                  setVars({ '1': '{{contact.name}}' });
                }}
              >
                <option value="">{cw('pickTemplate')}</option>
                {templates.map((t) => (
                  <option key={t.id} value={t.id} disabled={!t.ok}>
                    {t.label}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {channel &&
            channel.type !== 'sms' &&
            (channel.type === 'email' ? email.data : wa.data) &&
            !templates.some((t) => t.ok) && (
              <p class="muted small" data-testid="campaign-no-template">
                {channel.type === 'email' ? cw('noEmailTemplates') : cw('noTemplates')}{' '}
                <Link href={channel.type === 'email' ? '/templates/email' : '/templates'}>
                  {cw('goTemplates')}
                </Link>
              </p>
            )}
          {waTemplate && <p class="mkt-quote">{bodyOf(waTemplate)}</p>}
          {params.map((p) => (
            <Field
              key={p}
              label={cw('variable', { n: p })}
              hint={cw('variableHint')}
              error={errors.variables}
            >
              <input
                name={`campaign-var-${p}`}
                value={vars[p] ?? ''}
                onInput={(e) => setVars({ ...vars, [p]: (e.target as HTMLInputElement).value })}
              />
            </Field>
          ))}
          {channel?.type === 'sms' && (
            <Field label={cw('smsText')} required>
              <textarea
                name="campaign-sms"
                rows={3}
                maxLength={1600}
                value={smsText}
                onInput={(e) => setSmsText((e.target as HTMLTextAreaElement).value)}
              />
            </Field>
          )}
          <Field label={cw('segment')} required error={errors.segment}>
            <select
              name="campaign-segment"
              value={segment}
              onChange={(e) => setSegment((e.target as HTMLSelectElement).value)}
            >
              <option value="">{cw('pickSegment')}</option>
              {segments.data?.map((s) => (
                <option key={s.documentId} value={s.documentId}>
                  {s.name}
                </option>
              ))}
            </select>
          </Field>
          <LiveCount segment={segment} />
          <Field label={cw('schedule')} hint={cw('scheduleHint')} error={errors.scheduledAt}>
            <DateTimeInput name="campaign-when" value={when} onChange={setWhen} timeLabel={cw('time')} />
          </Field>
          {general && (
            <p role="alert" class="error">
              {general}
            </p>
          )}
        </form>
      )}
    </Dialog>
  );
}
