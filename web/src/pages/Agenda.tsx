import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'preact/hooks';
import { Link } from '../App';
import { type Board, type Card, client, featureOff, type Page, reason, unwrap } from '../api';
import { getLang, t } from '../i18n';
import { canWrite } from '../session';
import { FeatureOff } from './Inbox';

type Schemas = import('../api').Schemas;
type Item = Schemas['AgendaItem'];
type Connection = Schemas['CalendarConnection'];

/** Monday 00:00 (local) of the week holding `d`. */
const mondayOf = (d: Date) => {
  const x = new Date(d.getFullYear(), d.getMonth(), d.getDate());
  x.setDate(x.getDate() - ((x.getDay() + 6) % 7));
  return x;
};
const addDays = (d: Date, n: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + n);
const dayKey = (d: Date) => `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
const time = (iso: string) =>
  new Intl.DateTimeFormat(getLang(), { timeStyle: 'short' }).format(new Date(iso));
const dayLabel = (d: Date) =>
  new Intl.DateTimeFormat(getLang(), { weekday: 'short', day: '2-digit', month: '2-digit' }).format(d);
/** `<input type=datetime-local>` value of a date (local time). */
const localInput = (d: Date) =>
  new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** The merged agenda (calendar events with the meetings, tasks, card due dates, campaigns) by week or as a list. */
export function AgendaPage() {
  const qc = useQueryClient();
  const [view, setView] = useState<'week' | 'list'>('week');
  const [from, setFrom] = useState(() => mondayOf(new Date()));
  const [error, setError] = useState('');
  const start = view === 'week' ? from : new Date(new Date().setHours(0, 0, 0, 0));
  const end = addDays(start, view === 'week' ? 7 : 30);
  const agenda = useQuery({
    queryKey: ['agenda', start.toISOString(), end.toISOString()],
    queryFn: async () =>
      await unwrap(
        client.GET('/api/agenda/events', {
          params: { query: { start: start.toISOString(), end: end.toISOString() } },
        }),
      ),
  });
  const connections = useQuery({
    queryKey: ['calendar-connections'],
    queryFn: async () => (await unwrap(client.GET('/api/calendar-connections'))).data as Connection[],
  });
  const off = featureOff(agenda.error) ?? featureOff(connections.error);
  if (off) return <FeatureOff feature={off} />;

  const cancel = async (id: string) => {
    if (!confirm(t('cancelMeetingConfirm'))) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/calendar-meetings/{id}', { params: { path: { id } } }));
      await qc.invalidateQueries({ queryKey: ['agenda'] });
      await qc.invalidateQueries({ queryKey: ['meetings'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const items = [...(agenda.data?.data ?? [])].sort((a, b) => a.start.localeCompare(b.start));
  const days = Array.from({ length: view === 'week' ? 7 : 30 }, (_, i) => addDays(start, i));
  const byDay = new Map<string, Item[]>();
  for (const it of items) {
    const k = dayKey(new Date(it.allDay ? `${it.start.slice(0, 10)}T12:00:00` : it.start));
    byDay.set(k, [...(byDay.get(k) ?? []), it]);
  }
  const connection = connections.data?.[0];
  const renderItem = (it: Item) => (
    <li key={it.id} class={`agenda-item src-${it.source}`} data-agenda-id={it.id}>
      <span class="muted small">
        {it.allDay ? t('allDay') : it.start === it.end ? time(it.start) : `${time(it.start)}–${time(it.end)}`}
      </span>{' '}
      <span class="badge">{t(`src_${it.source}`)}</span> <strong>{it.title}</strong>
      {it.link?.type === 'task' && (
        <>
          {' '}
          <Link href="/tasks">{t('tasks')}</Link>
        </>
      )}
      {it.link?.type === 'meeting' && canWrite() && (
        <>
          {' '}
          <button
            type="button"
            class="link"
            data-cancel-meeting={it.link.documentId}
            onClick={() => cancel(it.link!.documentId)}
            aria-label={`${t('cancelMeeting')}: ${it.title}`}
          >
            {t('cancelMeeting')}
          </button>
        </>
      )}
    </li>
  );
  return (
    <section class="page" data-testid="agenda">
      <div class="board-head agenda-head">
        <h1>{t('agenda')}</h1>
        <fieldset class="segmented">
          <legend class="sr-only">{t('view')}</legend>
          <label class="inline">
            <input type="radio" name="view" checked={view === 'week'} onChange={() => setView('week')} />
            {t('week')}
          </label>
          <label class="inline">
            <input type="radio" name="view" checked={view === 'list'} onChange={() => setView('list')} />
            {t('next30')}
          </label>
        </fieldset>
        {view === 'week' && (
          <div class="row">
            <button type="button" class="secondary" onClick={() => setFrom(addDays(from, -7))}>
              ‹ {t('previousWeek')}
            </button>
            <button type="button" class="secondary" onClick={() => setFrom(mondayOf(new Date()))}>
              {t('today')}
            </button>
            <button type="button" class="secondary" onClick={() => setFrom(addDays(from, 7))}>
              {t('nextWeek')} ›
            </button>
          </div>
        )}
      </div>
      {agenda.data?.meta.partial && (
        <p role="status" class="error">
          {t('agendaPartial')}:{' '}
          {agenda.data.meta.sourceErrors.map((e) => `${e.source}: ${e.message}`).join('; ')}
        </p>
      )}
      {(agenda.error || error) && (
        <p role="alert" class="error">
          {error || reason(agenda.error)}
        </p>
      )}
      {view === 'week' ? (
        <div class="week" data-testid="agenda-week">
          {days.map((d) => (
            <section key={dayKey(d)} class={`day${dayKey(d) === dayKey(new Date()) ? ' today' : ''}`}>
              <h2>{dayLabel(d)}</h2>
              <ul class="plain">{(byDay.get(dayKey(d)) ?? []).map(renderItem)}</ul>
            </section>
          ))}
        </div>
      ) : (
        <div class="agenda-list" data-testid="agenda-list">
          {days
            .filter((d) => byDay.has(dayKey(d)))
            .map((d) => (
              <section key={dayKey(d)}>
                <h2>{dayLabel(d)}</h2>
                <ul class="plain">{byDay.get(dayKey(d))!.map(renderItem)}</ul>
              </section>
            ))}
          {agenda.data && items.length === 0 && <p class="muted">{t('noItems')}</p>}
        </div>
      )}
      <div class="split agenda-forms">
        {canWrite() && connection && <MeetingForm />}
        <CalendarConnection connection={connection} loaded={!!connections.data} />
      </div>
    </section>
  );
}

function CalendarConnection({ connection, loaded }: { connection?: Connection; loaded: boolean }) {
  const qc = useQueryClient();
  const [form, setForm] = useState({ url: '', username: '', password: '' });
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  if (!loaded) return null;
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['calendar-connections'] }),
      qc.invalidateQueries({ queryKey: ['agenda'] }),
    ]);
  const connect = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      await unwrap(
        client.POST('/api/calendar-connections', { body: { data: { provider: 'caldav', ...form } } }),
      );
      setForm({ url: '', username: '', password: '' });
      await refresh();
    } catch (err) {
      setError(reason(err));
    } finally {
      setBusy(false);
    }
  };
  const disconnect = async () => {
    if (!connection || !confirm(t('disconnectConfirm'))) return;
    try {
      await unwrap(
        client.DELETE('/api/calendar-connections/{id}', { params: { path: { id: connection.documentId } } }),
      );
      await refresh();
    } catch (err) {
      setError(reason(err));
    }
  };
  const set = (k: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  if (connection)
    return (
      <section class="card-form" aria-labelledby="calendar-title" data-testid="calendar-connected">
        <h2 id="calendar-title">{t('yourCalendar')}</h2>
        <p>
          {connection.displayName ?? connection.calendarUrl}{' '}
          <span class="muted small">({connection.username})</span>
        </p>
        <button type="button" class="secondary" onClick={disconnect}>
          {t('disconnect')}
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </section>
    );
  // Connecting one's own calendar needs no more than the viewer role (the service allows it).
  return (
    <form
      class="card-form"
      onSubmit={connect}
      aria-labelledby="calendar-title"
      data-testid="calendar-connect"
    >
      <h2 id="calendar-title">{t('connectCalendar')}</h2>
      <p class="muted small">{t('connectCalendarText')}</p>
      <label>
        {t('caldavUrl')}
        <input name="caldav-url" type="url" required value={form.url} onInput={set('url')} />
      </label>
      <label>
        {t('username')}
        <input
          name="caldav-username"
          required
          autoComplete="off"
          value={form.username}
          onInput={set('username')}
        />
      </label>
      <label>
        {t('password')}
        <input
          name="caldav-password"
          type="password"
          required
          autoComplete="new-password"
          value={form.password}
          onInput={set('password')}
        />
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {t('connect')}
      </button>
    </form>
  );
}

/** A meeting on a card: board, card (title search), title, start, end, attendee (the card's contact by default). */
export function MeetingForm(props: { boardId?: string; card?: Card; onDone?: () => void }) {
  const qc = useQueryClient();
  const [boardId, setBoardId] = useState(props.boardId ?? '');
  const [cardQ, setCardQ] = useState('');
  const [card, setCard] = useState<Card | null>(props.card ?? null);
  // Tomorrow at 10:00 (local), 30 minutes.
  const next = addDays(new Date(), 1);
  next.setHours(10, 0, 0, 0);
  const [form, setForm] = useState({
    title: '',
    start: localInput(next),
    end: localInput(new Date(next.getTime() + 30 * 60_000)),
    attendee: props.card?.contact?.email ?? '',
  });
  const [status, setStatus] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const boards = useQuery({
    queryKey: ['boards'],
    enabled: !props.boardId,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/boards', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as unknown as Board[],
  });
  const [q, setQ] = useState('');
  useEffect(() => {
    const id = setTimeout(() => setQ(cardQ.trim()), 300);
    return () => clearTimeout(id);
  }, [cardQ]);
  const cards = useQuery({
    queryKey: ['card-pick', boardId, q],
    enabled: !props.card && !!boardId,
    queryFn: async () =>
      (
        (await unwrap(
          client.GET('/api/boards/{boardId}/cards', {
            params: {
              path: { boardId },
              query: {
                ...(q ? { filters: { title: { $containsi: q } } } : {}),
                pagination: { pageSize: 8 },
              } as never,
            },
          }),
        )) as unknown as Page<Card>
      ).data,
  });
  const set = (k: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!card) return;
    setStatus(null);
    setBusy(true);
    try {
      await unwrap(
        client.POST('/api/boards/{boardId}/cards/{cardId}/calendar-meetings', {
          params: { path: { boardId, cardId: card.documentId } },
          body: {
            data: {
              title: form.title,
              start: new Date(form.start).toISOString(),
              end: new Date(form.end).toISOString(),
              attendees: form.attendee.trim()
                ? [{ email: form.attendee.trim(), name: card.contact?.name ?? null }]
                : [],
            },
          },
        }),
      );
      setStatus({ kind: 'ok', text: t('meetingCreated') });
      setForm({ ...form, title: '' });
      await qc.invalidateQueries({ queryKey: ['agenda'] });
      await qc.invalidateQueries({ queryKey: ['meetings'] });
      props.onDone?.();
    } catch (err) {
      setStatus({ kind: 'error', text: reason(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card-form" onSubmit={submit} aria-labelledby="meeting-title" data-testid="meeting-form">
      <h2 id="meeting-title">{t('newMeeting')}</h2>
      {!props.boardId && (
        <label>
          {t('board')}
          <select
            name="meeting-board"
            required
            value={boardId}
            onChange={(e) => {
              setBoardId((e.target as HTMLSelectElement).value);
              setCard(null);
            }}
          >
            <option value="">—</option>
            {boards.data?.map((b) => (
              <option key={b.documentId} value={b.documentId}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {!props.card && boardId && (
        <fieldset>
          <legend>{t('card')}</legend>
          {card ? (
            <p>
              <strong data-testid="meeting-card">{card.title}</strong>{' '}
              <button type="button" class="link" onClick={() => setCard(null)}>
                {t('change')}
              </button>
            </p>
          ) : (
            <>
              <label>
                <span class="sr-only">{t('searchCards')}</span>
                <input
                  type="search"
                  name="meeting-card-search"
                  placeholder={t('searchCards')}
                  value={cardQ}
                  onInput={(e) => setCardQ((e.target as HTMLInputElement).value)}
                />
              </label>
              <ul class="plain">
                {cards.data?.map((c) => (
                  <li key={c.documentId}>
                    <button
                      type="button"
                      class="link"
                      data-pick-card={c.documentId}
                      onClick={() => {
                        setCard(c);
                        if (c.contact?.email && !form.attendee)
                          setForm({ ...form, attendee: c.contact.email });
                      }}
                    >
                      {c.title}
                      {c.contact ? ` · ${c.contact.name}` : ''}
                    </button>
                  </li>
                ))}
              </ul>
            </>
          )}
        </fieldset>
      )}
      <label>
        {t('title')}
        <input name="meeting-title" required value={form.title} onInput={set('title')} />
      </label>
      <div class="row">
        <label>
          {t('start')}
          <input
            name="meeting-start"
            type="datetime-local"
            required
            value={form.start}
            onInput={(e) => {
              // The end follows the start, keeping the duration.
              const start = (e.target as HTMLInputElement).value;
              const length = new Date(form.end).getTime() - new Date(form.start).getTime();
              const end = new Date(new Date(start).getTime() + (length > 0 ? length : 30 * 60_000));
              setForm({ ...form, start, end: Number.isNaN(end.getTime()) ? form.end : localInput(end) });
            }}
          />
        </label>
        <label>
          {t('end')}
          <input name="meeting-end" type="datetime-local" required value={form.end} onInput={set('end')} />
        </label>
      </div>
      <label>
        {t('attendeeEmail')}
        <input name="meeting-attendee" type="email" value={form.attendee} onInput={set('attendee')} />
      </label>
      {status && (
        <p role={status.kind === 'error' ? 'alert' : 'status'} class={status.kind}>
          {status.text}
        </p>
      )}
      <button type="submit" disabled={busy || !card}>
        {t('schedule')}
      </button>
    </form>
  );
}
