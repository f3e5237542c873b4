import { getLang } from '../i18n';

// Date helpers of the agenda and the meeting form (local time).

export const addDays = (d: Date, n: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + n);
/** `<input type=datetime-local>` value of a date (local time). */
export const localInput = (d: Date) =>
  new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
/** The time of day of an instant as the chosen language writes it (14:30, 2:30 PM). */
export const time = (iso: string) =>
  new Intl.DateTimeFormat(getLang(), { timeStyle: 'short' }).format(new Date(iso));
