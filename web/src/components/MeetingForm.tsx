import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'preact/hooks';
import { type Card, client, reason, unwrap } from '../api';
import { t } from '../i18n';
import { findCards, useBoardList } from '../lib/board-queries';
import { addDays, localInput } from '../lib/dates';
import { w } from '../lib/words';
import { Button } from '../ui';
import { DateTimeInput } from './DateTimeInput';

/** A meeting on a card: board, card (title search), title, start, end, attendee (the card's contact by default). */
export function MeetingForm(props: { boardId?: string; card?: Card; onDone?: () => void }) {
  const qc = useQueryClient();
  const [boardId, setBoardId] = useState(props.boardId ?? '');
  const search = useCardSearch(boardId, !props.card);
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
  const boards = useBoardList(!props.boardId);
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
        <CardPicker
          card={card}
          search={search}
          onPick={(c) => {
            setCard(c);
            if (c?.contact?.email && !form.attendee) setForm({ ...form, attendee: c.contact.email });
          }}
        />
      )}
      <label>
        {t('title')}
        <input name="meeting-title" required value={form.title} onInput={set('title')} />
      </label>
      <MeetingTimes start={form.start} end={form.end} onChange={(times) => setForm({ ...form, ...times })} />
      <label>
        {t('attendeeEmail')}
        <input name="meeting-attendee" type="email" value={form.attendee} onInput={set('attendee')} />
      </label>
      {status && (
        <p role={status.kind === 'error' ? 'alert' : 'status'} class={status.kind}>
          {status.text}
        </p>
      )}
      <Button submit disabled={!card} busy={busy}>
        {t('schedule')}
      </Button>
    </form>
  );
}

/** The card search of the form: the typed text and the board's cards whose title holds it (asked 300 ms after typing stops). */
function useCardSearch(boardId: string, enabled: boolean) {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const id = setTimeout(() => setQ(text.trim()), 300);
    return () => clearTimeout(id);
  }, [text]);
  const cards = useQuery({
    queryKey: ['card-pick', boardId, q],
    enabled: enabled && !!boardId,
    queryFn: () => findCards<Card>(boardId, q, 8),
  });
  return { text, setText, cards: cards.data };
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

/** Start and end; the end follows the start, keeping the duration. */
function MeetingTimes(props: {
  start: string;
  end: string;
  onChange: (times: { start: string; end: string }) => void;
}) {
  const id = useId();
  return (
    <div class="row">
      <div class="field">
        <label for={`${id}-start`}>{t('start')}</label>
        <DateTimeInput
          id={`${id}-start`}
          timeLabel={`${t('start')}: ${w('timeOfDay')}`}
          name="meeting-start"
          required
          value={props.start}
          onChange={(start) => {
            const length = new Date(props.end).getTime() - new Date(props.start).getTime();
            const end = new Date(new Date(start).getTime() + (length > 0 ? length : 30 * 60_000));
            props.onChange({ start, end: Number.isNaN(end.getTime()) ? props.end : localInput(end) });
          }}
        />
      </div>
      <div class="field">
        <label for={`${id}-end`}>{t('end')}</label>
        <DateTimeInput
          id={`${id}-end`}
          timeLabel={`${t('end')}: ${w('timeOfDay')}`}
          name="meeting-end"
          required
          value={props.end}
          onChange={(end) => props.onChange({ start: props.start, end })}
        />
      </div>
    </div>
  );
}
