import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { Link } from '../components/Link';
import { dateTime } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { isAdmin, refusalOf, useChannels } from '../lib/marketing';
import {
  Badge,
  Button,
  type Column,
  confirmAction,
  DataTable,
  Dialog,
  EmptyState,
  Field,
  PageHeader,
  type Tone,
  toast,
} from '../ui';
import * as catalogue from '../words/templates';
import { EmailTemplates } from './EmailTemplates';

const tw = wordsOf(catalogue);
type Words = keyof typeof catalogue.ptBR;
/** A code of the service as this catalogue's word (an unknown one as it is). */
export const tcode = (prefix: string, value: string) =>
  `${prefix}_${value}` in catalogue.ptBR ? tw(`${prefix}_${value}` as Words) : value;

export interface WaTemplate {
  documentId: string;
  name: string;
  language: string;
  category: string;
  status: 'APPROVED' | 'PENDING' | 'REJECTED' | 'PAUSED' | 'DISABLED';
  components: { type?: string; text?: string }[];
  syncedAt: string | null;
}
const STATUS_TONE: Record<WaTemplate['status'], Tone> = {
  APPROVED: 'success',
  PENDING: 'warning',
  REJECTED: 'danger',
  PAUSED: 'warning',
  DISABLED: 'neutral',
};
export const waStatus = (s: WaTemplate['status']) => (
  <Badge tone={STATUS_TONE[s] ?? 'neutral'}>{tcode('st', s)}</Badge>
);
export const bodyOf = (t: WaTemplate) => t.components.find((c) => c.type === 'BODY')?.text ?? '';

/** A channel's WhatsApp templates as last synced. */
export function useWaTemplates(channelId: string | undefined) {
  return useQuery({
    queryKey: ['wa-templates', channelId],
    enabled: !!channelId,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/chat-channels/{channelId}/templates', {
            params: { path: { channelId: channelId! }, query: { pagination: { pageSize: 100 } } as never },
          }),
        )
      ).data as unknown as WaTemplate[],
  });
}

/** Templates (BETA): WhatsApp templates per channel (sync, submit, delete) and e-mail templates (edit, preview, test). */
export function TemplatesPage({ kind }: { kind: 'whatsapp' | 'email' }) {
  return (
    <section class="page mkt" data-testid="templates">
      <PageHeader title={tw('title')} beta>
        <p class="muted">{tw('description')}</p>
      </PageHeader>
      <nav class="mkt-tabs" aria-label={tw('tabs')}>
        <Link href="/templates" aria-current={kind === 'whatsapp' ? 'page' : undefined}>
          {tw('tabWhatsapp')}
        </Link>
        <Link href="/templates/email" aria-current={kind === 'email' ? 'page' : undefined}>
          {tw('tabEmail')}
        </Link>
      </nav>
      {!isAdmin() && <p class="muted small">{tw('adminsOnly')}</p>}
      {kind === 'whatsapp' ? <WhatsAppTemplates /> : <EmailTemplates />}
    </section>
  );
}

function WhatsAppTemplates() {
  const qc = useQueryClient();
  const channels = useChannels();
  const wa = (channels.data ?? []).filter((c) => c.type === 'whatsapp');
  const [channelId, setChannelId] = useState('');
  useEffect(() => {
    if (!wa.some((c) => c.documentId === channelId) && wa[0]) setChannelId(wa[0].documentId);
  }, [wa.map((c) => c.documentId).join()]);
  const list = useWaTemplates(channelId || undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [creating, setCreating] = useState(false);
  const admin = isAdmin();
  if (channels.data && wa.length === 0)
    return (
      <EmptyState text={tw('noWhatsappChannel')} action={<Link href="/channels">{tw('goChannels')}</Link>} />
    );
  const remove = async (t: WaTemplate) => {
    const ok = await confirmAction({
      title: tw('removeTitle', { name: t.name }),
      text: tw('removeWaText'),
      confirmLabel: tw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(
        client.DELETE('/api/chat-channels/{channelId}/templates/{id}', {
          params: { path: { channelId, id: t.documentId } },
        }),
      );
      toast(tw('removed'));
      await qc.invalidateQueries({ queryKey: ['wa-templates', channelId] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const sync = async () => {
    setBusy(true);
    setError('');
    try {
      const r = await unwrap(
        client.POST('/api/chat-channels/{channelId}/templates/sync', { params: { path: { channelId } } }),
      );
      toast(tw('synced', r.meta));
      await qc.invalidateQueries({ queryKey: ['wa-templates', channelId] });
    } catch (err) {
      setError(reason(err));
    } finally {
      setBusy(false);
    }
  };
  const columns: Column<WaTemplate>[] = [
    { key: 'name', label: tw('name'), render: (t) => <code>{t.name}</code> },
    { key: 'language', label: tw('language'), render: (t) => tcode('lang', t.language) },
    { key: 'category', label: tw('category'), render: (t) => tcode('cat', t.category) },
    { key: 'status', label: tw('status'), render: (t) => waStatus(t.status) },
    { key: 'body', label: tw('body'), render: (t) => <span class="mkt-clip">{bodyOf(t)}</span> },
    { key: 'syncedAt', label: tw('syncedAt'), render: (t) => dateTime(t.syncedAt) || '—' },
  ];
  if (admin)
    columns.push({
      key: 'actions',
      label: tw('actions'),
      render: (t) => (
        <Button variant="ghost" onClick={() => remove(t)} aria-label={tw('removeOf', { name: t.name })}>
          {tw('remove')}
        </Button>
      ),
    });
  return (
    <div>
      <div class="mkt-toolbar">
        <Field label={tw('channel')}>
          <select
            name="wa-channel"
            value={channelId}
            onChange={(e) => setChannelId((e.target as HTMLSelectElement).value)}
          >
            {wa.map((c) => (
              <option key={c.documentId} value={c.documentId}>
                {c.name}
              </option>
            ))}
          </select>
        </Field>
        {admin && (
          <div class="ds-actions">
            <Button variant="secondary" busy={busy} onClick={sync} disabled={!channelId}>
              {tw('sync')}
            </Button>
            <Button onClick={() => setCreating(true)} disabled={!channelId}>
              {tw('newWa')}
            </Button>
          </div>
        )}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <DataTable
        caption={tw('tabWhatsapp')}
        columns={columns}
        rows={channelId ? list.data : undefined}
        loading={list.isLoading || channels.isLoading}
        rowKey={(t) => t.documentId}
        empty={tw('waEmpty')}
      />
      <NewWaTemplate channelId={channelId} open={creating} onClose={() => setCreating(false)} />
    </div>
  );
}

const LANGUAGES = ['pt_BR', 'en_US', 'es_ES'];
const CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'];

function NewWaTemplate({
  channelId,
  open,
  onClose,
}: {
  channelId: string;
  open: boolean;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const [v, setV] = useState({
    name: '',
    language: 'pt_BR',
    category: 'MARKETING',
    header: '',
    body: '',
    footer: '',
  });
  const [examples, setExamples] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const params = [...new Set([...v.body.matchAll(/\{\{(\d+)\}\}/g)].map((m) => m[1]))].sort(
    (a, b) => Number(a) - Number(b),
  );
  const set = (k: keyof typeof v) => (e: Event) => setV({ ...v, [k]: (e.target as HTMLInputElement).value });
  const close = () => {
    setErrors({});
    setGeneral('');
    onClose();
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setGeneral('');
    const components = [
      ...(v.header.trim() ? [{ type: 'HEADER' as const, format: 'TEXT', text: v.header.trim() }] : []),
      {
        type: 'BODY' as const,
        text: v.body,
        ...(params.length ? { example: { body_text: [params.map((p) => examples[p] ?? '')] } } : {}),
      },
      ...(v.footer.trim() ? [{ type: 'FOOTER' as const, text: v.footer.trim() }] : []),
    ];
    try {
      await unwrap(
        client.POST('/api/chat-channels/{channelId}/templates', {
          params: { path: { channelId } },
          body: {
            data: { name: v.name, language: v.language, category: v.category as 'MARKETING', components },
          },
        }),
      );
      toast(tw('submitted'));
      await qc.invalidateQueries({ queryKey: ['wa-templates', channelId] });
      setV({ ...v, name: '', header: '', body: '', footer: '' });
      close();
    } catch (err) {
      const r = refusalOf(err, ['name', 'language', 'category', 'components']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title={tw('newWa')}
      onClose={close}
      wide
      footer={
        <>
          <Button variant="secondary" onClick={close}>
            {tw('cancel')}
          </Button>
          <Button submit busy={busy} form="wa-template-form">
            {tw('submit')}
          </Button>
        </>
      }
    >
      <form id="wa-template-form" class="mkt-form" onSubmit={submit}>
        <p class="muted small">{tw('newWaHint')}</p>
        <Field label={tw('waName')} required hint={tw('waNameHint')} error={errors.name}>
          <input name="wa-name" pattern="[a-z0-9_]+" value={v.name} onInput={set('name')} />
        </Field>
        <div class="mkt-row">
          <Field label={tw('language')} error={errors.language}>
            <select name="wa-language" value={v.language} onChange={set('language')}>
              {LANGUAGES.map((l) => (
                <option key={l} value={l}>
                  {tcode('lang', l)}
                </option>
              ))}
            </select>
          </Field>
          <Field label={tw('category')} error={errors.category}>
            <select name="wa-category" value={v.category} onChange={set('category')}>
              {CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {tcode('cat', c)}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <Field label={tw('header')}>
          <input name="wa-header" maxLength={60} value={v.header} onInput={set('header')} />
        </Field>
        <Field
          label={tw('body')}
          required
          hint={tw('bodyHint', { one: '{{1}}', two: '{{2}}' })}
          error={errors.components}
        >
          <textarea name="wa-body" rows={4} maxLength={1024} value={v.body} onInput={set('body')} />
        </Field>
        {params.map((p) => (
          <Field key={p} label={tw('example', { n: p })} required>
            <input
              name={`wa-example-${p}`}
              value={examples[p] ?? ''}
              onInput={(e) => setExamples({ ...examples, [p]: (e.target as HTMLInputElement).value })}
            />
          </Field>
        ))}
        <Field label={tw('footer')}>
          <input name="wa-footer" maxLength={60} value={v.footer} onInput={set('footer')} />
        </Field>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}
