import { ApiError } from '../../api';
import { num } from '../../lib/words';
import { Button, Field } from '../../ui';
import { DateInput } from '../DateInput';
import { cw, day } from './shared';

/**
 * A contact's custom fields are a free key → value record (the service takes any JSON value under a key of
 * `[A-Za-z0-9_.-]{1,64}`): each value is edited by its JSON type, and goes back with that type.
 */
export type CustomKind = 'text' | 'number' | 'boolean' | 'date' | 'json';

/** One row of the editor: `text` holds a text, a number as typed, an ISO day or a structured value's JSON. */
export interface CustomRow {
  key: string;
  kind: CustomKind;
  text: string;
  flag: boolean;
  /** Loaded with an object, a list or null: only such a row offers JSON (the service stores it as it is). */
  structured?: boolean;
}

/** A `YYYY-MM-DD` that is a day of the calendar (not "0000-00-00" nor "2024-02-30", which stay texts). */
const isDay = (v: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
};

/** A stored value's kind: a string that is a calendar day is a date, any other string a text. */
export const kindOf = (v: unknown): CustomKind =>
  typeof v === 'number'
    ? 'number'
    : typeof v === 'boolean'
      ? 'boolean'
      : typeof v === 'string'
        ? isDay(v)
          ? 'date'
          : 'text'
        : 'json';

/** A contact's custom fields as editor rows. */
export function customRows(fields: Record<string, unknown> | undefined): CustomRow[] {
  return Object.entries(fields ?? {}).map(([key, v]) => {
    const kind = kindOf(v);
    return {
      key,
      kind,
      text: kind === 'json' ? JSON.stringify(v) : kind === 'boolean' ? '' : String(v),
      flag: v === true,
      structured: kind === 'json',
    };
  });
}

/** A stored value as the chosen language writes it: numbers by Intl, yes/no, a day as a date. */
export function customText(v: unknown): string {
  const kind = kindOf(v);
  if (kind === 'number') return num(v as number);
  if (kind === 'boolean') return v ? cw('customYes') : cw('customNo');
  if (kind === 'date') return day(v as string);
  return kind === 'text' ? (v as string) : JSON.stringify(v);
}

/** Row errors are keyed `key-<i>` and `value-<i>`; `all` is the fieldset's own. */
export type CustomErrors = Record<string, string>;

/**
 * The rows as the body's `customFields` (a removed or renamed key sent as null: on an update only the keys sent
 * change), or what keeps them from going, at the row. The key's form is the service's to judge (its refusal
 * comes back at the key); a repeated key, a number or date not given, or JSON that does not parse is refused here.
 */
export function customBody(
  rows: CustomRow[],
  before: Record<string, unknown> | undefined,
): { fields: Record<string, unknown>; errors: CustomErrors } {
  // No prototype: a key named `constructor` or `toString` is a key like any other.
  const fields: Record<string, unknown> = Object.create(null);
  const errors: CustomErrors = {};
  rows.forEach((r, i) => {
    const key = r.key.trim();
    if (!key) {
      // An untouched new row is left out; a value without a key is not.
      if (r.text.trim() || r.flag) errors[`key-${i}`] = cw('customKeyMissing');
      return;
    }
    if (Object.hasOwn(fields, key)) errors[`key-${i}`] = cw('customKeyTwice');
    const value = typedValue(r);
    if (value === undefined) errors[`value-${i}`] = cw(`customBad_${r.kind}` as 'customBad_number');
    else fields[key] = value;
  });
  for (const k of Object.keys(before ?? {})) if (!Object.hasOwn(fields, k)) fields[k] = null;
  // Only what changed goes (the service counts every key sent against its limit of 100, removals included).
  for (const [k, v] of Object.entries(fields))
    if (before && Object.hasOwn(before, k) && JSON.stringify(before[k]) === JSON.stringify(v))
      delete fields[k];
  return { fields, errors };
}

/** A row's value with its JSON type; undefined when it is not one. */
function typedValue(r: CustomRow): unknown {
  switch (r.kind) {
    case 'number': {
      const n = Number(r.text);
      return r.text.trim() && Number.isFinite(n) ? n : undefined;
    }
    case 'boolean':
      return r.flag;
    case 'date':
      return isDay(r.text) ? r.text : undefined;
    case 'json':
      try {
        return JSON.parse(r.text);
      } catch {
        return undefined;
      }
    default:
      return r.text;
  }
}

/** A row given another kind: what still reads as the new kind is kept. */
function retyped(r: CustomRow, kind: CustomKind): CustomRow {
  const keep =
    kind === 'number'
      ? r.text.trim() !== '' && Number.isFinite(Number(r.text))
      : kind === 'date'
        ? isDay(r.text)
        : r.kind !== 'boolean';
  return { ...r, kind, text: keep ? r.text : '' };
}

/**
 * The service's refusals of custom fields (paths `customFields.<key>` and `customFields`) at their rows, in
 * words: a key it does not take, too many fields. Empty when the refusal is about something else.
 */
export function customRefusals(err: unknown, rows: CustomRow[]): CustomErrors {
  const list = (err instanceof ApiError && Array.isArray(err.details?.errors) ? err.details.errors : []) as {
    path?: (string | number)[];
    message?: string;
  }[];
  const out: CustomErrors = {};
  for (const e of list) {
    const path = (e.path ?? []).map(String);
    if (path[0] !== 'customFields') continue;
    const i = path[1] === undefined ? -1 : rows.findIndex((r) => r.key.trim() === path[1]);
    if (i >= 0) out[`key-${i}`] ??= cw('customKeyRefused');
    else out.all ??= /at most|100/.test(e.message ?? '') ? cw('customTooMany') : cw('customKeyRefused');
  }
  return out;
}

const KINDS: CustomKind[] = ['text', 'number', 'boolean', 'date'];

/** The custom fields of the contact editor: per row its key, its kind, a control for that kind, remove. */
export function CustomFieldsEditor({
  rows,
  errors,
  onChange,
}: {
  rows: CustomRow[];
  errors: CustomErrors;
  onChange: (rows: CustomRow[]) => void;
}) {
  const patch = (i: number, p: Partial<CustomRow>) =>
    onChange(rows.map((x, j) => (j === i ? { ...x, ...p } : x)));
  return (
    <fieldset data-testid="custom-fields">
      <legend>{cw('customFields')}</legend>
      <p class="ds-hint">{cw('customKeyHint')}</p>
      {rows.map((r, i) => (
        <div class="ct-custom" key={i}>
          <Field class="ct-custom-key" label={cw('customKey')} error={errors[`key-${i}`]}>
            <input
              name={`custom-key-${i}`}
              value={r.key}
              maxLength={64}
              autoComplete="off"
              spellcheck={false}
              onInput={(e) => patch(i, { key: (e.target as HTMLInputElement).value })}
            />
          </Field>
          <Field class="ct-custom-kind" label={cw('customKind')}>
            <select
              name={`custom-kind-${i}`}
              value={r.kind}
              onChange={(e) => patch(i, retyped(r, (e.target as HTMLSelectElement).value as CustomKind))}
            >
              {(r.structured ? [...KINDS, 'json' as const] : KINDS).map((k) => (
                <option key={k} value={k}>
                  {cw(`customKind_${k}`)}
                </option>
              ))}
            </select>
          </Field>
          <Field class="ct-custom-value" label={cw('customValue')} error={errors[`value-${i}`]}>
            {valueControl(r, i, patch)}
          </Field>
          <Button variant="ghost" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            <span aria-hidden="true">×</span>
            <span class="sr-only">{cw('removeCustom', { key: r.key })}</span>
          </Button>
        </div>
      ))}
      {errors.all && (
        <p class="ds-error" role="alert">
          {errors.all}
        </p>
      )}
      <Button
        variant="secondary"
        onClick={() => onChange([...rows, { key: '', kind: 'text', text: '', flag: false }])}
      >
        {cw('addCustom')}
      </Button>
    </fieldset>
  );
}

/** The control of a row's value, by its kind (each named `custom-value-<i>`). */
function valueControl(r: CustomRow, i: number, patch: (i: number, p: Partial<CustomRow>) => void) {
  const name = `custom-value-${i}`;
  const onText = (e: Event) => patch(i, { text: (e.target as HTMLInputElement).value });
  switch (r.kind) {
    case 'number':
      return (
        <input name={name} type="number" step="any" inputMode="decimal" value={r.text} onInput={onText} />
      );
    case 'boolean':
      return (
        <input
          name={name}
          type="checkbox"
          checked={r.flag}
          onChange={(e) => patch(i, { flag: (e.target as HTMLInputElement).checked })}
        />
      );
    case 'date':
      return <DateInput name={name} value={r.text} onChange={(text) => patch(i, { text })} />;
    case 'json':
      return <textarea name={name} rows={2} value={r.text} onInput={onText} />;
    default:
      return <input name={name} value={r.text} onInput={onText} />;
  }
}
