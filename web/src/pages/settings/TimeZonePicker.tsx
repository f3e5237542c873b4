import { useMemo, useState } from 'preact/hooks';
import { getLang } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import { Field } from '../../ui';
import * as catalogue from '../../words/settings';

const sw = wordsOf(catalogue);

/** A zone's offset from UTC today (`GMT-03:00`), as Intl writes it; empty for a zone this browser does not know. */
function offsetOf(zone: string) {
  try {
    return (
      new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
        .formatToParts(new Date())
        .find((p) => p.type === 'timeZoneName')?.value ?? ''
    );
  } catch {
    return '';
  }
}

/** The time now in `zone` (the browser's own zone when it does not know that one). */
function timeIn(zone: string) {
  try {
    return new Intl.DateTimeFormat(getLang(), { timeStyle: 'short', timeZone: zone }).format(new Date());
  } catch {
    return new Intl.DateTimeFormat(getLang(), { timeStyle: 'short' }).format(new Date());
  }
}

/** An IANA zone as a person reads it: `America/Sao Paulo (GMT-03:00)`. */
export const zoneLabel = (zone: string) => `${zone.replace(/_/g, ' ')} (${offsetOf(zone)})`;

/** Lower case without accents or underscores, for the search. */
const folded = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').replace(/_/g, ' ').toLowerCase();

/**
 * The IANA zones the browser knows (`Intl.supportedValuesOf`), the current one always among them (the service may
 * spell a zone the browser lists under another name), as a native select (a phone shows its own picker) narrowed by
 * a search on the name or the offset.
 */
export function TimeZonePicker(props: { value: string; onChange: (zone: string) => void; error?: string }) {
  const [q, setQ] = useState('');
  const zones = useMemo(() => {
    const all = Intl.supportedValuesOf('timeZone');
    return (all.includes(props.value) ? all : [props.value, ...all]).map((z) => ({
      zone: z,
      label: zoneLabel(z),
    }));
  }, [props.value]);
  const shown = q.trim()
    ? zones.filter((z) => z.zone === props.value || folded(z.label).includes(folded(q.trim())))
    : zones;
  const now = timeIn(props.value);
  return (
    <div>
      <Field label={sw('timeZoneSearch')}>
        <input
          type="search"
          name="org-time-zone-search"
          autoComplete="off"
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
        />
      </Field>
      <Field
        label={sw('timeZone')}
        error={props.error}
        hint={`${sw('timeZoneHint')} ${sw('timeZoneNow', { time: now })}`}
      >
        <select
          name="org-time-zone"
          translate={false}
          value={props.value}
          onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
        >
          {shown.map((z) => (
            <option key={z.zone} value={z.zone}>
              {z.label}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
}
