import { DateTime } from 'luxon';
import rrule from 'rrule';

// rrule ships CommonJS for Node (its ESM build is not declared in `exports`): named imports come off the default.
const { Frequency, RRule } = rrule;

/**
 * Occurrences of a recurring task (docs/tasks.md, Recurrence). The series is an RFC 5545 rule (rrule) over the
 * organization's wall clock: the first due date is read in the organization's time zone (luxon), the rule is
 * expanded on that local date and time, and each local occurrence is turned back into an instant in the same
 * zone, so 22:00 in São Paulo stays 22:00 there and 09:00 in Lisbon stays 09:00 across a DST change.
 *
 * Monthly series keep the first occurrence's day of month and clamp it to the month's last day: 31 Jan → 28/29
 * Feb → 31 Mar → 30 Apr. RFC 5545's plain BYMONTHDAY=31 skips the months without a 31st (Jan → Mar → May),
 * which is not what a "monthly" task means to its users; `BYMONTHDAY=28,29,30,31;BYSETPOS=-1` (the last of
 * those days that exists in the month) is the standard way to say "the 31st, or the month's last day".
 *
 * Occurrence n is computed from the series' first due date and n, never from the previous (clamped) date,
 * so a series cannot drift.
 */

export type Recurrence = 'daily' | 'weekly' | 'monthly';

const FREQ: Record<Recurrence, rrule.Frequency> = {
  daily: Frequency.DAILY,
  weekly: Frequency.WEEKLY,
  monthly: Frequency.MONTHLY,
};

/** The rule of a series starting at `start` (a floating date: its UTC fields are the local wall clock). */
function ruleOf(start: Date, recurrence: Recurrence, interval: number, count: number) {
  const day = start.getUTCDate();
  const monthEnd =
    recurrence === 'monthly' && day > 28
      ? { bymonthday: Array.from({ length: day - 27 }, (_, i) => 28 + i), bysetpos: -1 }
      : {};
  return new RRule({ freq: FREQ[recurrence], interval, dtstart: start, count, ...monthEnd });
}

/**
 * The due date of occurrence `n` (1 = the first) of a series whose first occurrence is due at `first`,
 * in the IANA time zone `timeZone`.
 */
export function occurrenceDue(
  first: Date,
  recurrence: Recurrence,
  interval: number,
  n: number,
  timeZone: string,
): Date {
  if (n <= 1) return first;
  const local = DateTime.fromJSDate(first, { zone: timeZone });
  const floating = new Date(
    Date.UTC(
      local.year,
      local.month - 1,
      local.day,
      local.hour,
      local.minute,
      local.second,
      local.millisecond,
    ),
  );
  const all = ruleOf(floating, recurrence, interval, n).all();
  const at = all[all.length - 1];
  // Back to an instant: the same wall clock in the zone (a time skipped by a DST jump moves forward by the gap).
  return DateTime.fromObject(
    {
      year: at.getUTCFullYear(),
      month: at.getUTCMonth() + 1,
      day: at.getUTCDate(),
      hour: at.getUTCHours(),
      minute: at.getUTCMinutes(),
      second: at.getUTCSeconds(),
      millisecond: at.getUTCMilliseconds(),
    },
    { zone: timeZone },
  ).toJSDate();
}
