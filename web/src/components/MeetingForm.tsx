import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'preact/hooks';
import { ApiError, type Card, client, reason, unwrap } from '../api';
import { t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { useBoardList, useCardSearch } from '../lib/board-queries';
import { addDays, localInput } from '../lib/dates';
import { onceKey } from '../lib/idempotency';
import { refusalOf } from '../lib/marketing';
import { Button, Dialog, Field, Skeleton, toast } from '../ui';
import * as catalogue from '../words/agenda';
import { FreeSlots, MeetingTimes } from './MeetingTimes';

const aw = wordsOf(catalogue);
type Meeting = import('../api').Schemas['CalendarMeeting'];
const FIELDS = ['title', 'start', 'end', 'attendees', 'location', 'description'];

/** The form's values: a meeting's (editing) or a new one's (tomorrow 10:00 local, 30 minutes, the card's contact). */
function initial(meeting?: Meeting, card?: Card) {
  if (meeting)
    return {
      title: meeting.title,
      start: localInput(new Date(meeting.start)),
      end: localInput(new Date(meeting.end)),
      attendees: meeting.attendees.map((a) => a.email).join(', '),
      location: meeting.location ?? '',
      description: meeting.description ?? '',
    };
  const next = addDays(new Date(), 1);
  next.setHours(10, 0, 0, 0);
  return {
    title: '',
    start: localInput(next),
    end: localInput(new Date(next.getTime() + 30 * 60_000)),
    attendees: card?.contact?.email ?? '',
    location: '',
    description: '',
  };
}

/**
 * The API's refusal: field errors at their fields, else one line (an edit refused as organizer-only, cancelled or
 * changed meanwhile is said as such).
 */
function refusal(err: unknown, editing: boolean) {
  const r = refusalOf(err, FIELDS, (m) =>
    /^must be after start/.test(m) ? aw('endAfterStart') : /14 days/.test(m) ? aw('atMost14Days') : null,
  );
  if (!editing || !(err instanceof ApiError) || Object.keys(r.fields).length) return r;
  if (err.status === 403 && !err.details?.feature) return { fields: {}, general: aw('onlyOrganizer') };
  if (err.status === 409) return { fields: {}, general: aw('meetingChanged') };
  if (err.status === 422 && err.details?.status === 'cancelled')
    return { fields: {}, general: aw('meetingCancelled') };
  return r;
}

/**
 * A meeting on a card: scheduled (board, card by title search, then the fields) or, given `meeting`, edited (its
 * card stays). Title, start and end (or a free slot of the day), attendees' e-mails, place, description.
 */
export function MeetingForm(props: {
  boardId?: string;
  card?: Card;
  meeting?: Meeting;
  onDone?: () => void;
}) {
  const { meeting } = props;
  const qc = useQueryClient();
  const headingId = useId();
  const [boardId, setBoardId] = useState(meeting?.board.documentId ?? props.boardId ?? '');
  const search = useCardSearch(boardId, !props.card && !meeting);
  const [card, setCard] = useState<Card | null>(props.card ?? null);
  const cardId = meeting?.card.documentId ?? card?.documentId;
  const [form, setForm] = useState(() => initial(meeting, props.card));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const boards = useBoardList(!props.boardId && !meeting);
  const set = (k: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  // Names known for an address (the meeting's attendees, the card's contact) go with it.
  const names = new Map(
    [
      ...(card?.contact?.email ? [{ email: card.contact.email, name: card.contact.name }] : []),
      ...(meeting?.attendees ?? []),
    ].map((a) => [a.email.toLowerCase(), a.name ?? null]),
  );
  const once = useMemo(onceKey, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!cardId || busy) return;
    setErrors({});
    setGeneral('');
    setBusy(true);
    const data = {
      title: form.title,
      start: new Date(form.start).toISOString(),
      end: new Date(form.end).toISOString(),
      attendees: form.attendees
        .split(/[\s,;]+/)
        .filter(Boolean)
        .map((email) => ({ email, name: names.get(email.toLowerCase()) ?? null })),
      location: form.location.trim() || null,
      description: form.description.trim() || null,
    };
    try {
      if (meeting)
        await unwrap(
          client.PATCH('/api/calendar-meetings/{id}', {
            params: { path: { id: meeting.documentId } },
            body: { data },
          }),
        );
      else
        await unwrap(
          client.POST('/api/boards/{boardId}/cards/{cardId}/calendar-meetings', {
            params: { path: { boardId, cardId } },
            body: { data },
            // The attendees are e-mailed an invitation: a create sent again after a lost answer keeps its key.
            headers: { 'Idempotency-Key': once.keyFor({ boardId, cardId, data }) },
          }),
        );
      once.settle();
      toast(meeting ? aw('meetingSaved') : t('meetingCreated'));
      if (!meeting) setForm({ ...form, title: '' });
      await Promise.all(
        // The card's history (comments) gains the meeting's step.
        ['agenda', 'meetings', 'meeting', 'comments'].map((k) => qc.invalidateQueries({ queryKey: [k] })),
      );
      props.onDone?.();
    } catch (err) {
      once.settleAfter(err);
      const r = refusal(err, !!meeting);
      setErrors(r.fields);
      setGeneral(r.general || reason(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="card-form"
      onSubmit={submit}
      {...(meeting ? { 'aria-label': aw('editMeeting') } : { 'aria-labelledby': headingId })}
      data-testid="meeting-form"
    >
      {!meeting && <h2 id={headingId}>{t('newMeeting')}</h2>}
      {meeting && (
        <p>
          <span class="muted">{t('card')}:</span>{' '}
          <strong data-testid="meeting-card">{meeting.card.title}</strong>
        </p>
      )}
      {!props.boardId && !meeting && (
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
      {!props.card && !meeting && boardId && (
        <CardPicker
          card={card}
          search={search}
          onPick={(c) => {
            setCard(c);
            if (c?.contact?.email && !form.attendees) setForm({ ...form, attendees: c.contact.email });
          }}
        />
      )}
      <Field label={t('title')} error={errors.title} required>
        <input name="meeting-title" maxLength={255} value={form.title} onInput={set('title')} />
      </Field>
      <MeetingTimes
        start={form.start}
        end={form.end}
        errors={errors}
        onChange={(times) => setForm({ ...form, ...times })}
      />
      {cardId && (
        <FreeSlots
          boardId={boardId}
          cardId={cardId}
          start={form.start}
          end={form.end}
          onPick={(times) => setForm({ ...form, ...times })}
        />
      )}
      <Field label={aw('attendees')} hint={aw('attendeesHint')} error={errors.attendees}>
        <input
          name="meeting-attendees"
          type="email"
          multiple
          value={form.attendees}
          onInput={set('attendees')}
        />
      </Field>
      <Field label={aw('location')} error={errors.location}>
        <input name="meeting-location" maxLength={1000} value={form.location} onInput={set('location')} />
      </Field>
      <Field label={t('description')} error={errors.description}>
        <textarea name="meeting-description" rows={3} value={form.description} onInput={set('description')} />
      </Field>
      {general && (
        <p role="alert" class="error">
          {general}
        </p>
      )}
      <div>
        <Button submit disabled={!cardId} busy={busy}>
          {meeting ? aw('saveMeeting') : t('schedule')}
        </Button>
      </div>
    </form>
  );
}

/**
 * A meeting's editor in a dialog: the meeting read (all its fields; an agenda item carries only its organizer and
 * status), then its form.
 */
export function EditMeetingDialog({ id, onClose }: { id: string; onClose: () => void }) {
  const meeting = useQuery({
    queryKey: ['meeting', id],
    queryFn: () => unwrap(client.GET('/api/calendar-meetings/{id}', { params: { path: { id } } })),
  });
  return (
    <Dialog open wide title={aw('editMeeting')} onClose={onClose}>
      {meeting.error && (
        <p role="alert" class="error">
          {reason(meeting.error)}
        </p>
      )}
      {meeting.data ? (
        <MeetingForm meeting={meeting.data} onDone={onClose} />
      ) : (
        !meeting.error && <Skeleton lines={4} />
      )}
    </Dialog>
  );
}

/** The meeting's card: the one picked (with a "change" button), else the title search and its results. */
function CardPicker(props: {
  card: Card | null;
  search: ReturnType<typeof useCardSearch>;
  onPick: (c: Card | null) => void;
}) {
  const { card, search } = props;
  return (
    <fieldset>
      <legend>{t('card')}</legend>
      {card ? (
        <p>
          <strong data-testid="meeting-card">{card.title}</strong>{' '}
          <button type="button" class="link" onClick={() => props.onPick(null)}>
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
              value={search.text}
              onInput={(e) => search.setText((e.target as HTMLInputElement).value)}
            />
          </label>
          <ul class="plain">
            {search.cards?.map((c) => (
              <li key={c.documentId}>
                <button
                  type="button"
                  class="link"
                  data-pick-card={c.documentId}
                  onClick={() => props.onPick(c)}
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
  );
}
