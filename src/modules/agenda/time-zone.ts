/**
 * Wall-clock time in an IANA time zone ↔ instants, with the platform's Intl data (no extra dependency).
 * Enough for working hours: a local time that does not exist (spring-forward gap) lands just after the gap.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string) {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Is this a time zone the platform knows? */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

function parts(ts: number, timeZone: string) {
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ts)))
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** Offset of the zone from UTC at an instant, in ms. */
function offsetAt(ts: number, timeZone: string) {
  const p = parts(ts, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ts / 1000) * 1000;
}

export function localDateOf(ts: number, timeZone: string): LocalDate {
  const p = parts(ts, timeZone);
  return { year: p.year, month: p.month, day: p.day };
}

/** The instant of a local date and time of day (minutes since midnight) in the zone. */
export function zonedInstant(date: LocalDate, minutes: number, timeZone: string): number {
  const guess = Date.UTC(date.year, date.month - 1, date.day, 0, minutes);
  const first = guess - offsetAt(guess, timeZone);
  const second = guess - offsetAt(first, timeZone);
  return first === second ? first : Math.max(first, second);
}

export function nextDay(d: LocalDate): LocalDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + 1));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

/** ISO weekday, 1 = Monday … 7 = Sunday. */
export function isoWeekday(d: LocalDate): number {
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay() || 7;
}
