import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, featureOff, reason, unwrap } from '../api';
import { FeatureOff } from '../components/FeatureOff';
import { Link } from '../components/Link';
import { EditMeetingDialog, MeetingForm } from '../components/MeetingForm';
import { getLang, t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { canChangeMeeting } from '../lib/board-access';
import { addDays, time } from '../lib/dates';
import { personName } from '../lib/people';
import { canWrite } from '../session';
import { Button, confirmAction } from '../ui';
import * as catalogue from '../words/agenda';

const aw = wordsOf(catalogue);

type Schemas = import('../api').Schemas;
type Item = Schemas['AgendaItem'];
type MeetingLink = NonNullable<Item['link']>;
type Connection = Schemas['CalendarConnection'];

/** Monday 00:00 (local) of the week holding `d`. */
const mondayOf = (d: Date) => {
  const x = new Date(d.getFullYear(), d.getMonth(), d.getDate());
  x.setDate(x.getDate() - ((x.getDay() + 6) % 7));
  return x;
};
const dayKey = (d: Date) => `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
const dayLabel = (d: Date) =>
  new Intl.DateTimeFormat(getLang(), { weekday: 'short', day: '2-digit', month: '2-digit' }).format(d);

/**
 * The merged agenda (calendar events with the meetings, tasks, card due dates, campaigns) by week or as a list;
 * its meetings edited and cancelled by their organizer.
 */
export function AgendaPage() {
  const qc = useQueryClient();
  const [view, setView] = useState<'week' | 'list'>('week');
  const [from, setFrom] = useState(() => mondayOf(new Date()));
  const [error, setError] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
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
    if (!(await confirmAction({ title: t('cancelMeetingConfirm'), danger: true }))) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/calendar-meetings/{id}', { params: { path: { id } } }));
      await qc.invalidateQueries({ queryKey: ['agenda'] });
      await qc.invalidateQueries({ queryKey: ['meetings'] });
      await qc.invalidateQueries({ queryKey: ['meeting', id] });
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
      {it.link?.type === 'meeting' && (
        <MeetingActions link={it.link} title={it.title} onEdit={setEditing} onCancel={cancel} />
      )}
    </li>
  );
  return (
    <section class="page" data-testid="agenda">
      <AgendaHead view={view} onView={setView} from={from} onFrom={setFrom} />
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
            <section
              key={dayKey(d)}
              data-day={dayKey(d)}
              class={`day${dayKey(d) === dayKey(new Date()) ? ' today' : ''}`}
            >
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
              <section key={dayKey(d)} data-day={dayKey(d)}>
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
      {editing && <EditMeetingDialog id={editing} onClose={() => setEditing(null)} />}
    </section>
  );
}

/**
 * A meeting's organizer and, to the organizer only, "Editar" and "Cancelar reunião" (the card drawer's rule), from
 * the agenda item itself: the agenda shows whatever the person's calendar holds, a shared calendar's meetings
 * organized by others among them (the API lets only the organizer change one). The item carries the organizer and
 * status of a meeting the person may read (no read per meeting); of one on a card they cannot see, nothing is shown.
 */
function MeetingActions(props: {
  link: MeetingLink;
  title: string;
  onEdit: (id: string) => void;
  onCancel: (id: string) => void;
}) {
  const { title } = props;
  const { documentId: id, organizer, status } = props.link;
  if (organizer === undefined || status === undefined) return null;
  return (
    <>
      {organizer && (
        <span class="muted small" data-testid="meeting-organizer">
          {' · '}
          {aw('organizedBy', { name: personName(organizer) })}
        </span>
      )}
      {canChangeMeeting({ organizer, status }) && (
        <>
          {' '}
          <Button
            variant="ghost"
            data-edit-meeting={id}
            onClick={() => props.onEdit(id)}
            aria-label={aw('editMeetingOf', { title })}
          >
            {aw('edit')}
          </Button>{' '}
          <Button
            variant="ghost"
            data-cancel-meeting={id}
            onClick={() => props.onCancel(id)}
            aria-label={`${t('cancelMeeting')}: ${title}`}
          >
            {t('cancelMeeting')}
          </Button>
        </>
      )}
    </>
  );
}

/** The page's title, the week / next-30-days switch and, by week, the week's navigation. */
function AgendaHead({
  view,
  onView,
  from,
  onFrom,
}: {
  view: 'week' | 'list';
  onView: (v: 'week' | 'list') => void;
  from: Date;
  onFrom: (d: Date) => void;
}) {
  return (
    <div class="board-head agenda-head">
      <h1>{t('agenda')}</h1>
      <fieldset class="segmented">
        <legend class="sr-only">{t('view')}</legend>
        <label class="inline">
          <input type="radio" name="view" checked={view === 'week'} onChange={() => onView('week')} />
          {t('week')}
        </label>
        <label class="inline">
          <input type="radio" name="view" checked={view === 'list'} onChange={() => onView('list')} />
          {t('next30')}
        </label>
      </fieldset>
      {view === 'week' && (
        <div class="row">
          <Button variant="secondary" onClick={() => onFrom(addDays(from, -7))}>
            ‹ {t('previousWeek')}
          </Button>
          <Button variant="secondary" onClick={() => onFrom(mondayOf(new Date()))}>
            {t('today')}
          </Button>
          <Button variant="secondary" onClick={() => onFrom(addDays(from, 7))}>
            {t('nextWeek')} ›
          </Button>
        </div>
      )}
    </div>
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
    if (!connection || !(await confirmAction({ title: t('disconnectConfirm'), danger: true }))) return;
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
        <Button variant="secondary" onClick={disconnect}>
          {t('disconnect')}
        </Button>
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
      <Button submit busy={busy}>
        {t('connect')}
      </Button>
    </form>
  );
}
