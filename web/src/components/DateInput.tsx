import { useLayoutEffect, useState } from 'preact/hooks';
import { getLang, useLang } from '../i18n';
import { w } from '../lib/words';

/** `2026-12-25` as the chosen language writes it: 25/12/2026 (pt-BR), 12/25/2026 (English). */
function show(iso: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) return '';
  return new Intl.DateTimeFormat(getLang(), {
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(`${iso}T00:00:00Z`));
}

/** A typed date in the chosen language's order, as `YYYY-MM-DD`; '' when empty, null when not a date. */
function parse(text: string): string | null {
  if (!text.trim()) return '';
  // The ISO form is taken as well (pasted, or typed by a script that fills a date input).
  const iso = /^\s*(\d{4})-(\d{2})-(\d{2})\s*$/.exec(text);
  if (iso) return check(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const m = /^\s*(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\s*$/.exec(text);
  if (!m) return null;
  const [a, b, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [d, mo] = getLang() === 'en' ? [b, a] : [a, b];
  return check(y, mo, d);
}

/** `YYYY-MM-DD` of a real calendar day, else null (31/02 is not one). */
function check(y: number, mo: number, d: number): string | null {
  const at = new Date(Date.UTC(y, mo - 1, d));
  if (y < 1000 || at.getUTCMonth() !== mo - 1 || at.getUTCDate() !== d) return null;
  return at.toISOString().slice(0, 10);
}

/**
 * A date field that follows the app's language, not the browser's (Chromium's `type=date` shows the browser
 * locale's order, mm/dd/yyyy on an English system for a pt-BR page). Its value is `YYYY-MM-DD`, like a date
 * input's; a text that is not a date marks the field invalid (the form does not submit) and changes nothing.
 */
export function DateInput(props: {
  value: string;
  onChange: (iso: string) => void;
  id?: string;
  name?: string;
  disabled?: boolean;
  required?: boolean;
  'aria-describedby'?: string;
}) {
  const lang = useLang();
  const { value, onChange, ...rest } = props;
  const [text, setText] = useState(() => show(value));
  // In the same task as the value changes (a layout effect): a text synced a frame later would land inside what
  // the person has started typing meanwhile.
  useLayoutEffect(() => {
    if (parse(text) !== value) setText(show(value));
  }, [value, lang]);
  return (
    <input
      {...rest}
      type="text"
      inputMode="numeric"
      autoComplete="off"
      placeholder={w('datePattern')}
      value={text}
      onInput={(e) => {
        const input = e.target as HTMLInputElement;
        setText(input.value);
        const iso = parse(input.value);
        input.setCustomValidity(iso === null ? w('invalidDate') : '');
        if (iso !== null && iso !== value) onChange(iso);
      }}
    />
  );
}
