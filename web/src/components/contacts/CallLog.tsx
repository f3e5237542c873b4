import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { client, type Page, type Schemas, unwrap } from '../../api';
import { wordsOf } from '../../lib/area-words';
import { localInput } from '../../lib/dates';
import { CALL_DIRECTIONS, CALL_OUTCOMES, type CallType } from '../../lib/events';
import { onceKey } from '../../lib/idempotency';
import { refusalOf } from '../../lib/marketing';
import { upperFirst, w } from '../../lib/words';
import { Button, Field, toast } from '../../ui';
import * as catalogue from '../../words/calls';
import { DateTimeInput } from '../DateTimeInput';

/** The calls' words (web/src/words/calls.ts). */
const kw = wordsOf(catalogue);

type Activity = Schemas['ContactActivity'];

interface Form {
  type: CallType;
  direction: (typeof CALL_DIRECTIONS)[number];
  duration: string;
  outcome: (typeof CALL_OUTCOMES)[number];
  when: string;
  notes: string;
}

const blank = (): Form => ({
  type: 'call_completed',
  direction: 'outbound',
  duration: '',
  outcome: 'no_answer',
  when: localInput(new Date()),
  notes: '',
});

/** A duration as people write it ("4:05", "4", "0:30") in seconds; null when it is not one; undefined when blank. */
function seconds(text: string): number | null | undefined {
  if (!text.trim()) return undefined;
  const m = /^(\d{1,4})(?::([0-5]\d))?$/.exec(text.trim());
  return m ? Number(m[1]) * 60 + Number(m[2] ?? 0) : null;
}

/** What the service is not asked about: a duration it can store, a moment that has passed. */
function check(f: Form): Record<string, string> {
  const out: Record<string, string> = {};
  if (f.type === 'call_completed' && seconds(f.duration) === null) out.duration = kw('badDuration');
  if (!f.when || Number.isNaN(new Date(f.when).getTime()) || new Date(f.when).getTime() > Date.now())
    out.when = kw('badWhen');
  return out;
}

/** The body's `data`: the call's type and words, when it happened, and its direction, duration or reason. */
function callData(f: Form) {
  const completed = f.type === 'call_completed';
  const durationSeconds = completed ? seconds(f.duration) : undefined;
  return {
    activityType: f.type,
    description: f.notes,
    performedAt: new Date(f.when).toISOString(),
    metadata: {
      direction: f.direction,
      ...(durationSeconds != null ? { durationSeconds } : {}),
      ...(completed ? {} : { outcome: f.outcome }),
    },
  };
}

/** The timeline with `entry` in its place (newest first), before the service's page comes back. */
const placed = (rows: Activity[], entry: Activity) => {
  const at = rows.findIndex((r) => r.performedAt <= entry.performedAt);
  return at < 0 ? [...rows, entry] : [...rows.slice(0, at), entry, ...rows.slice(at)];
};

/**
 * "Registrar ligação" (members and up): a call answered or not, who called, its duration or why no one answered,
 * when, and how it went (POST /contacts/{id}/activities). It is sent with an Idempotency-Key kept until the service
 * answers for good, and a second submit while the first runs is ignored: a double click logs one call.
 */
export function CallLog({ id }: { id: string }) {
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<Form>(blank);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  const once = useMemo(onceKey, []);
  const first = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    if (open) first.current?.focus();
  }, [open]);
  const set =
    <K extends keyof Form>(k: K) =>
    (e: Event) =>
      setForm({ ...form, [k]: (e.target as HTMLInputElement).value as Form[K] });

  const submit = async (e: Event) => {
    e.preventDefault();
    // A state flag is read from the render before the click: a ref stops the second submit of a double click.
    if (sending.current) return;
    setGeneral('');
    const local = check(form);
    setErrors(local);
    if (Object.keys(local).length) return;
    const data = callData(form);
    sending.current = true;
    setBusy(true);
    try {
      const entry = (await unwrap(
        client.POST('/api/contacts/{id}/activities', {
          params: { path: { id } },
          body: { data } as never,
          headers: { 'Idempotency-Key': once.keyFor({ id, data }) },
        }),
      )) as Activity;
      once.settle();
      qc.setQueryData<Page<Activity>>(
        ['contact-activities', id],
        (old) => old && { ...old, data: placed(old.data, entry) },
      );
      toast(kw('logged'));
      setForm(blank());
      setOpen(false);
      void qc.invalidateQueries({ queryKey: ['contact-activities', id] });
    } catch (err) {
      once.settleAfter(err);
      const r = refusalOf(err, ['description', 'performedAt'], (m) =>
        /too small|at least/i.test(m) ? kw('notesEmpty') : null,
      );
      setErrors({ notes: r.fields.description ?? '', when: r.fields.performedAt ?? '' });
      setGeneral(r.general);
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };

  if (!open)
    return (
      <Button
        variant="secondary"
        class="ct-call-open"
        onClick={() => {
          // "Quando" starts at the moment the form opens, not when the page did.
          setForm(blank());
          setErrors({});
          setGeneral('');
          setOpen(true);
        }}
      >
        {kw('open')}
      </Button>
    );
  const completed = form.type === 'call_completed';
  return (
    <form class="ct-call" onSubmit={submit} aria-label={kw('title')} data-testid="call-form" noValidate>
      <Field label={kw('result')}>
        <select name="call-type" ref={first} value={form.type} onChange={set('type')}>
          {(['call_completed', 'call_attempted'] as const).map((t) => (
            <option key={t} value={t}>
              {kw(`result_${t}`)}
            </option>
          ))}
        </select>
      </Field>
      <Field label={kw('direction')}>
        <select name="call-direction" value={form.direction} onChange={set('direction')}>
          {CALL_DIRECTIONS.map((d) => (
            <option key={d} value={d}>
              {kw(`direction_${d}`)}
            </option>
          ))}
        </select>
      </Field>
      {completed ? (
        <Field label={kw('duration')} error={errors.duration}>
          <input name="call-duration" inputMode="numeric" value={form.duration} onInput={set('duration')} />
        </Field>
      ) : (
        <Field label={kw('outcome')}>
          <select name="call-outcome" value={form.outcome} onChange={set('outcome')}>
            {CALL_OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {upperFirst(kw(`outcome_${o}`))}
              </option>
            ))}
          </select>
        </Field>
      )}
      <Field label={kw('when')} error={errors.when}>
        <DateTimeInput
          name="call-when"
          timeLabel={`${kw('when')}: ${w('timeOfDay')}`}
          value={form.when}
          onChange={(when) => setForm({ ...form, when })}
        />
      </Field>
      <Field label={kw('notes')} error={errors.notes} required class="ct-call-notes">
        <textarea name="call-notes" rows={3} maxLength={10_000} value={form.notes} onInput={set('notes')} />
      </Field>
      {general && (
        <p role="alert" class="error">
          {general}
        </p>
      )}
      <div class="ds-actions">
        <Button submit busy={busy}>
          {kw('save')}
        </Button>
        <Button
          variant="ghost"
          onClick={() => {
            setOpen(false);
            setErrors({});
            setGeneral('');
          }}
        >
          {kw('cancel')}
        </Button>
      </div>
    </form>
  );
}
