import { useLayoutEffect, useState } from 'preact/hooks';
import { getLang, useLang } from '../i18n';
import { w } from '../lib/words';
import { DateInput } from './DateInput';

/** `14:30` as the chosen language writes it (14:30 in pt-BR, 2:30 PM in English). */
function showTime(hhmm: string): string {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  if (!m) return '';
  return new Intl.DateTimeFormat(getLang(), { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).format(
    new Date(Date.UTC(2000, 0, 1, Number(m[1]), Number(m[2]))),
  );
}

/** A typed time (`14:30`, `14h30`, `2:30 PM`) as `HH:MM`; '' when empty, null when not a time. */
export function parseTime(text: string): string | null {
  const s = text.trim().toLowerCase();
  if (!s) return '';
  const m = /^(\d{1,2})(?:[:h.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?$/.exec(s);
  if (!m) return null;
  let h = Number(m[1]);
  const min = Number(m[2] ?? 0);
  if (m[3]) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (m[3].startsWith('p') ? 12 : 0);
  }
  if (h > 23 || min > 59) return null;
  return `${String(h).padStart(2, '0')}:${String(min).padStart(2, '0')}`;
}

/**
 * A date and a time that follow the app's language, not the browser's (a bare `datetime-local` shows the browser
 * locale's mm/dd/yyyy and AM/PM on a pt-BR page). Its value is a `datetime-local` value, `YYYY-MM-DDTHH:MM` in local
 * time ('' when empty); a text that is not a time marks the field invalid and changes nothing.
 */
export function DateTimeInput(props: {
  value: string;
  onChange: (local: string) => void;
  id?: string;
  name?: string;
  disabled?: boolean;
  required?: boolean;
  'aria-describedby'?: string;
  /** The accessible name of the time part (the date part takes the field's label). */
  timeLabel?: string;
}) {
  const lang = useLang();
  const { value, onChange, name, timeLabel, ...rest } = props;
  const [day, hhmm] = value ? [value.slice(0, 10), value.slice(11, 16)] : ['', ''];
  const [text, setText] = useState(() => showTime(hhmm));
  // In the same task as the value changes (a layout effect): a text synced a frame later would land inside what
  // the person has started typing meanwhile.
  useLayoutEffect(() => {
    if (parseTime(text) !== hhmm) setText(showTime(hhmm));
  }, [hhmm, lang]);
  const join = (d: string, t: string) => (d ? `${d}T${t || '09:00'}` : '');
  return (
    <span class="datetime-input">
      <DateInput {...rest} name={name} value={day} onChange={(d) => onChange(join(d, hhmm))} />
      <input
        type="text"
        name={name ? `${name}-time` : undefined}
        aria-label={timeLabel ?? w('timeOfDay')}
        disabled={rest.disabled}
        required={rest.required}
        inputMode="numeric"
        autoComplete="off"
        placeholder={w('timePattern')}
        value={text}
        size={8}
        onInput={(e) => {
          const input = e.target as HTMLInputElement;
          setText(input.value);
          const parsed = parseTime(input.value);
          input.setCustomValidity(parsed === null ? w('invalidTime') : '');
          if (parsed !== null && parsed !== hhmm && day) onChange(join(day, parsed));
        }}
      />
    </span>
  );
}
