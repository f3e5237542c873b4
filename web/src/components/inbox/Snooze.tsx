import { useId, useState } from 'preact/hooks';
import { type Conversation, client } from '../../api';
import { dateTime } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import { addDays, localInput } from '../../lib/dates';
import { w } from '../../lib/words';
import { Button, Dialog } from '../../ui';
import * as catalogue from '../../words/snooze';
import { DateTimeInput } from '../DateTimeInput';

const sw = wordsOf(catalogue);

/** A change of the conversation through the view (its answer replaces the conversation; a refusal shown there). */
type Act = (call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>) => Promise<void>;

/** 9:00 local time `days` days after `now`'s day. */
const at9 = (now: Date, days: number) => {
  const d = addDays(now, days);
  d.setHours(9, 0, 0, 0);
  return d;
};

/**
 * The quick choices, in the browser's local time: in an hour, tomorrow 9:00, next Monday 9:00 (a week on a Monday;
 * on a Sunday it is tomorrow, offered once).
 */
function quickChoices(now: Date) {
  return [
    ['inOneHour', new Date(now.getTime() + 3_600_000)],
    ['tomorrow9', at9(now, 1)],
    ...(now.getDay() === 0 ? [] : [['nextMonday9', at9(now, 8 - now.getDay())] as const]),
  ] as const;
}

/**
 * A conversation's snooze (members and up): "Adiada até <date>" and "Reabrir" on a snoozed one; "Adiar" opens the
 * quick choices and a date of one's own (`PATCH { status: 'snoozed', snoozedUntil }`). The service reopens it within a
 * minute of its date (earlier when the contact writes); in that minute the page says it reopens shortly.
 */
export function Snooze({ c, writable, act }: { c: Conversation; writable: boolean; act: Act }) {
  const [open, setOpen] = useState(false);
  const snooze = (until: Date) =>
    act(() =>
      client.PATCH('/api/conversations/{id}', {
        params: { path: { id: c.id } },
        body: { data: { status: 'snoozed', snoozedUntil: until.toISOString() } },
      }),
    ).then(() => setOpen(false));
  const passed = !!c.snoozedUntil && new Date(c.snoozedUntil).getTime() <= Date.now();
  return (
    <>
      {c.status === 'snoozed' && c.snoozedUntil && (
        <span class="muted small" data-testid="snoozed-until">
          {sw('snoozedUntil', { date: dateTime(c.snoozedUntil) })}
          {passed ? ` · ${sw('snoozePassed')}` : ''}
        </span>
      )}
      {writable && c.status === 'snoozed' && (
        <Button
          variant="secondary"
          onClick={() =>
            act(() =>
              client.PATCH('/api/conversations/{id}', {
                params: { path: { id: c.id } },
                body: { data: { status: 'open' } },
              }),
            )
          }
        >
          {sw('reopen')}
        </Button>
      )}
      {writable && (
        <Button variant="secondary" aria-haspopup="dialog" onClick={() => setOpen(true)}>
          {sw('snooze')}
        </Button>
      )}
      {open && <SnoozeDialog onSnooze={snooze} onClose={() => setOpen(false)} />}
    </>
  );
}

/** The snooze's choices: the quick ones (each with its date) and a date and time of one's own. */
function SnoozeDialog(props: { onSnooze: (until: Date) => Promise<void>; onClose: () => void }) {
  const id = useId();
  const [now] = useState(() => new Date());
  const [until, setUntil] = useState(() => localInput(at9(now, 1)));
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const choose = async (at: Date) => {
    if (busy) return;
    setBusy(true);
    try {
      await props.onSnooze(at);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open title={sw('snoozeTitle')} onClose={props.onClose}>
      <p class="muted small">{sw('snoozeHint')}</p>
      <ul class="plain row snooze-choices" data-testid="snooze-choices">
        {quickChoices(now).map(([key, at]) => (
          <li key={key}>
            <Button variant="secondary" busy={busy} onClick={() => choose(at)}>
              {sw(key)}
            </Button>
            <span class="muted small">{dateTime(at.toISOString())}</span>
          </li>
        ))}
      </ul>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const at = new Date(until);
          if (Number.isNaN(at.getTime()) || at.getTime() <= Date.now()) return setError(sw('mustBeFuture'));
          setError('');
          void choose(at);
        }}
      >
        <div class={`field ds-field${error ? ' has-error' : ''}`}>
          <label for={id}>{sw('otherDate')}</label>
          <DateTimeInput
            id={id}
            name="snooze-until"
            timeLabel={`${sw('otherDate')}: ${w('timeOfDay')}`}
            required
            value={until}
            aria-describedby={error ? `${id}-error` : undefined}
            onChange={setUntil}
          />
          {error && (
            <span id={`${id}-error`} class="ds-error" role="alert">
              {error}
            </span>
          )}
        </div>
        <Button submit busy={busy}>
          {sw('snoozeUntilThis')}
        </Button>
      </form>
    </Dialog>
  );
}
