import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { type Board, client, reason, unwrap } from '../api';
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
import * as catalogue from '../words/pixels';

const pw = wordsOf(catalogue);

interface Pixel {
  documentId: string;
  name: string;
  pixelId: string;
  hasAccessToken: boolean;
  board: { documentId: string; name: string };
  trigger: 'won' | { phase: { documentId: string; slug: string } };
  enabled: boolean;
  updatedAt: string;
}

/** Conversion pixels (BETA, admins): list, connect, change, pause and delete. */
export function PixelsPage() {
  const admin = isAdmin();
  const list = useQuery({
    queryKey: ['conversion-pixels'],
    enabled: admin,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/conversion-pixels', {
            params: { query: { pagination: { pageSize: 100 }, sort: 'name:asc' } as never },
          }),
        )
      ).data as unknown as Pixel[],
  });
  const boards = useQuery({
    queryKey: ['pixel-boards'],
    enabled: admin,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/boards', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as unknown as Board[],
  });
  const [editing, setEditing] = useState<Pixel | 'new' | null>(null);
  const [error, setError] = useState('');
  const qc = useQueryClient();
  const [events, setEvents] = useState<Pixel | null>(null);
  /** Sends a test event to the provider now (a real call); the answer's test code, or the refusal. */
  const verify = async (p: Pixel) => {
    setError('');
    try {
      const r = await unwrap(
        client.POST('/api/conversion-pixels/{id}/verify', { params: { path: { id: p.documentId } } }),
      );
      toast(pw('verified', { code: r.testEventCode }));
      await qc.invalidateQueries({ queryKey: ['pixel-events', p.documentId] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const remove = async (p: Pixel) => {
    const ok = await confirmAction({
      title: pw('removeTitle', { name: p.name }),
      text: pw('removeText'),
      confirmLabel: pw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/conversion-pixels/{id}', { params: { path: { id: p.documentId } } }));
      toast(pw('removed'));
      await qc.invalidateQueries({ queryKey: ['conversion-pixels'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const phaseName = (p: Pixel) => {
    if (p.trigger === 'won') return pw('trigger_won');
    const id = p.trigger.phase.documentId;
    const phase = boards.data?.flatMap((b) => b.phases).find((x) => x.documentId === id);
    return pw('triggerPhase', { phase: phase?.name ?? p.trigger.phase.slug });
  };
  const columns: Column<Pixel>[] = [
    { key: 'name', label: pw('name'), render: (p) => <strong>{p.name}</strong> },
    { key: 'pixelId', label: pw('pixelId'), render: (p) => <code>{p.pixelId}</code> },
    { key: 'board', label: pw('board'), render: (p) => p.board.name },
    { key: 'trigger', label: pw('trigger'), render: phaseName },
    {
      key: 'enabled',
      label: pw('state'),
      render: (p) => (
        <Badge tone={p.enabled ? 'success' : 'neutral'}>{p.enabled ? pw('on') : pw('off')}</Badge>
      ),
    },
    { key: 'updatedAt', label: pw('updated'), render: (p) => dateTime(p.updatedAt) },
    {
      key: 'actions',
      label: pw('actions'),
      render: (p) => (
        <span class="ds-actions">
          <Button
            variant="secondary"
            onClick={() => setEditing(p)}
            aria-label={pw('editOf', { name: p.name })}
          >
            {pw('edit')}
          </Button>
          <Button variant="secondary" onClick={() => verify(p)} aria-label={pw('verifyOf', { name: p.name })}>
            {pw('verify')}
          </Button>
          <Button variant="ghost" onClick={() => setEvents(p)} aria-label={pw('eventsOf', { name: p.name })}>
            {pw('events')}
          </Button>
          <Button variant="ghost" onClick={() => remove(p)} aria-label={pw('removeOf', { name: p.name })}>
            {pw('remove')}
          </Button>
        </span>
      ),
    },
  ];
  return (
    <section class="page mkt" data-testid="pixels">
      <PageHeader
        title={pw('title')}
        beta
        actions={admin && <Button onClick={() => setEditing('new')}>{pw('newPixel')}</Button>}
      >
        <p class="muted">{pw('intro')}</p>
      </PageHeader>
      {!admin ? (
        <p class="muted">{pw('adminsOnly')}</p>
      ) : (
        <DataTable
          caption={pw('title')}
          columns={columns}
          rows={list.data}
          loading={list.isLoading}
          rowKey={(p) => p.documentId}
          empty={pw('empty')}
        />
      )}
      {(error || list.error) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      {events && <Events pixel={events} onClose={() => setEvents(null)} />}
      {editing && (
        <PixelEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          pixel={editing === 'new' ? null : editing}
          boards={boards.data ?? []}
          onClose={() => setEditing(null)}
        />
      )}
    </section>
  );
}

function PixelEditor({
  pixel,
  boards,
  onClose,
}: {
  pixel: Pixel | null;
  boards: Board[];
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const [v, setV] = useState({
    name: pixel?.name ?? '',
    pixelId: pixel?.pixelId ?? '',
    accessToken: '',
    board: pixel?.board.documentId ?? '',
    phase: pixel && pixel.trigger !== 'won' ? pixel.trigger.phase.documentId : '',
    enabled: pixel?.enabled ?? true,
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const phases = boards.find((b) => b.documentId === v.board)?.phases ?? [];
  const set = (k: 'name' | 'pixelId' | 'accessToken') => (e: Event) =>
    setV({ ...v, [k]: (e.target as HTMLInputElement).value });
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setGeneral('');
    const data = {
      name: v.name,
      pixelId: v.pixelId,
      board: v.board,
      trigger: v.phase ? { phase: v.phase } : ('won' as const),
      enabled: v.enabled,
      ...(v.accessToken ? { accessToken: v.accessToken } : {}),
    };
    try {
      await unwrap(
        pixel
          ? client.PUT('/api/conversion-pixels/{id}', {
              params: { path: { id: pixel.documentId } },
              body: { data },
            })
          : client.POST('/api/conversion-pixels', {
              body: { data: { ...data, accessToken: v.accessToken } },
            }),
      );
      toast(pw('saved'));
      await qc.invalidateQueries({ queryKey: ['conversion-pixels'] });
      onClose();
    } catch (err) {
      const r = refusalOf(err, ['name', 'pixelId', 'accessToken', 'board', 'trigger', 'phase']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      title={pixel ? pw('editPixel') : pw('newPixel')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {pw('cancel')}
          </Button>
          <Button submit busy={busy} form="pixel-form">
            {pw('save')}
          </Button>
        </>
      }
    >
      <form id="pixel-form" class="mkt-form" onSubmit={save}>
        <Field label={pw('name')} required error={errors.name}>
          <input name="pixel-name" maxLength={200} value={v.name} onInput={set('name')} />
        </Field>
        <Field label={pw('pixelId')} required hint={pw('pixelIdHint')} error={errors.pixelId}>
          <input name="pixel-id" maxLength={64} value={v.pixelId} onInput={set('pixelId')} />
        </Field>
        <Field
          label={pw('accessToken')}
          required={!pixel}
          hint={pixel ? pw('accessTokenKeep') : pw('accessTokenNew')}
          error={errors.accessToken}
        >
          <input
            name="pixel-token"
            type="password"
            autoComplete="new-password"
            value={v.accessToken}
            onInput={set('accessToken')}
          />
        </Field>
        <Field label={pw('board')} required error={errors.board}>
          <select
            name="pixel-board"
            value={v.board}
            onChange={(e) => setV({ ...v, board: (e.target as HTMLSelectElement).value, phase: '' })}
          >
            <option value="">{pw('pickBoard')}</option>
            {boards.map((b) => (
              <option key={b.documentId} value={b.documentId}>
                {b.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label={pw('trigger')} error={errors.trigger ?? errors.phase}>
          <select
            name="pixel-trigger"
            value={v.phase}
            onChange={(e) => setV({ ...v, phase: (e.target as HTMLSelectElement).value })}
          >
            <option value="">{pw('trigger_won')}</option>
            {phases.map((p) => (
              <option key={p.documentId} value={p.documentId}>
                {pw('triggerPhase', { phase: p.name })}
              </option>
            ))}
          </select>
        </Field>
        <label class="mkt-check">
          <input
            type="checkbox"
            name="pixel-enabled"
            checked={v.enabled}
            onChange={(e) => setV({ ...v, enabled: (e.target as HTMLInputElement).checked })}
          />{' '}
          {pw('enabled')}
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

interface ConversionEvent {
  id: number;
  eventName: string;
  card: string | null;
  status: 'pending' | 'sent' | 'failed' | 'skipped' | 'test';
  attempts: number;
  lastError: string | null;
  sentAt: string | null;
  createdAt: string;
}
const EVENT_TONE: Record<ConversionEvent['status'], Tone> = {
  pending: 'info',
  sent: 'success',
  failed: 'danger',
  skipped: 'neutral',
  test: 'neutral',
};

/** A pixel's event log, newest first (user data is hashed by the service; only the status and errors here). */
function Events({ pixel, onClose }: { pixel: Pixel; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const r = useQuery({
    queryKey: ['pixel-events', pixel.documentId, page],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/conversion-pixels/{id}/events', {
          params: { path: { id: pixel.documentId }, query: { pagination: { page, pageSize: 20 } } as never },
        }),
      )) as unknown as { data: ConversionEvent[]; meta: { pagination: { pageCount: number } } },
  });
  const columns: Column<ConversionEvent>[] = [
    { key: 'eventName', label: pw('event'), render: (e) => <code>{e.eventName}</code> },
    {
      key: 'status',
      label: pw('state'),
      render: (e) => <Badge tone={EVENT_TONE[e.status]}>{pw(`ev_${e.status}`)}</Badge>,
    },
    { key: 'attempts', label: pw('attempts'), numeric: true, render: (e) => num(e.attempts) },
    { key: 'createdAt', label: pw('created'), render: (e) => dateTime(e.createdAt) },
    { key: 'sentAt', label: pw('sentAt'), render: (e) => dateTime(e.sentAt) || '—' },
    { key: 'detail', label: pw('detail'), render: (e) => (e.lastError ? <code>{e.lastError}</code> : '—') },
  ];
  return (
    <Dialog open title={pw('eventsTitle', { name: pixel.name })} onClose={onClose} wide>
      {r.error && (
        <p role="alert" class="error">
          {reason(r.error)}
        </p>
      )}
      <div class="mkt" data-testid="pixel-events">
        <DataTable
          caption={pw('eventsTitle', { name: pixel.name })}
          columns={columns}
          rows={r.data?.data}
          loading={r.isLoading}
          rowKey={(e) => String(e.id)}
          empty={pw('eventsEmpty')}
          footer={
            <Pagination page={page} pageCount={r.data?.meta.pagination.pageCount ?? 1} onPage={setPage} />
          }
        />
      </div>
    </Dialog>
  );
}
