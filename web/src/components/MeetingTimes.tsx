import { useEffect, useId, useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { addDays, localInput, time } from '../lib/dates';
import { w } from '../lib/words';
import { Button } from '../ui';
import * as catalogue from '../words/agenda';
import { DateTimeInput } from './DateTimeInput';

const aw = wordsOf(catalogue);
type Times = { start: string; end: string };

/**
 * Start and end (`datetime-local` values), each with the API's error under it; the end follows the start, keeping
 * the duration.
 */
export function MeetingTimes(props: Times & { errors: Partial<Times>; onChange: (times: Times) => void }) {
  const id = useId();
  const part = (key: keyof Times, label: string, onChange: (value: string) => void) => (
    <div class={`field ds-field${props.errors[key] ? ' has-error' : ''}`}>
      <label for={`${id}-${key}`}>{label}</label>
      <DateTimeInput
        id={`${id}-${key}`}
        timeLabel={`${label}: ${w('timeOfDay')}`}
        name={`meeting-${key}`}
        required
        value={props[key]}
        aria-describedby={props.errors[key] ? `${id}-${key}-error` : undefined}
        onChange={onChange}
      />
      {props.errors[key] && (
        <span id={`${id}-${key}-error`} class="ds-error" role="alert">
          {props.errors[key]}
        </span>
      )}
    </div>
  );
  return (
    <div class="row">
      {part('start', t('start'), (start) => {
        const length = new Date(props.end).getTime() - new Date(props.start).getTime();
        const end = new Date(new Date(start).getTime() + (length > 0 ? length : 30 * 60_000));
        props.onChange({ start, end: Number.isNaN(end.getTime()) ? props.end : localInput(end) });
      })}
      {part('end', t('end'), (end) => props.onChange({ start: props.start, end }))}
    </div>
  );
}

/**
 * The free slots of the start's day in the person's calendar for the meeting's length (the card's availability:
 * working hours in the organization's time zone); a slot picked becomes the start and end.
 */
export function FreeSlots(
  props: Times & { boardId: string; cardId: string; onPick: (times: Times) => void },
) {
  const day = props.start.slice(0, 10);
  const minutes = Math.round((new Date(props.end).getTime() - new Date(props.start).getTime()) / 60_000);
  const [slots, setSlots] = useState<Times[] | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // The slots shown belong to one day and one length.
  useEffect(() => setSlots(null), [day, minutes]);
  const find = async () => {
    setError('');
    setBusy(true);
    const from = new Date(`${day}T00:00`);
    try {
      const found = await unwrap(
        client.POST('/api/boards/{boardId}/cards/{cardId}/calendar-meetings/availability', {
          params: { path: { boardId: props.boardId, cardId: props.cardId } },
          body: {
            start: from.toISOString(),
            end: addDays(from, 1).toISOString(),
            durationMinutes: minutes,
          },
        }),
      );
      setSlots(found.slots);
    } catch (err) {
      setError(reason(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset data-testid="free-slots">
      <legend>{aw('freeSlots')}</legend>
      <p class="muted small">{aw('freeSlotsHint')}</p>
      <Button
        variant="secondary"
        busy={busy}
        disabled={!day || !(minutes >= 5 && minutes <= 1440)}
        onClick={find}
      >
        {aw('findSlots')}
      </Button>
      {slots &&
        (slots.length ? (
          <ul class="plain row">
            {slots.map((s) => (
              <li key={s.start}>
                <Button
                  variant="secondary"
                  aria-label={aw('useSlot', { time: time(s.start) })}
                  onClick={() =>
                    props.onPick({ start: localInput(new Date(s.start)), end: localInput(new Date(s.end)) })
                  }
                >
                  {time(s.start)}
                </Button>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">{aw('noFreeSlots')}</p>
        ))}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
