import {
  createCalendarObject,
  type DAVAccount,
  type DAVCalendar,
  deleteCalendarObject,
  fetchCalendarObjects,
  fetchCalendars,
  fetchHomeUrl,
  fetchPrincipalUrl,
  getBasicAuthHeaders,
  serviceDiscovery,
  updateCalendarObject,
} from 'tsdav';
import { OutboundBlockedError, type SafeFetch } from '../../outbound/safe-fetch.js';

/**
 * The CalDAV protocol client (RFC 4791 over tsdav): discovery (RFC 6764 well-known, current-user-principal,
 * calendar-home-set), time-range calendar-query REPORTs and object PUT/DELETE. Every request goes through the
 * SSRF-safe fetch, because the server URL is the user's.
 */

export interface CalDavCredentials {
  url: string;
  username: string;
  password: string;
}

export interface CalDavTarget extends CalDavCredentials {
  calendarUrl: string;
}

export class CalDavError extends Error {
  constructor(
    message: string,
    /** HTTP status of the CalDAV server, when it answered. */
    readonly status?: number,
    /** The request never left: the target address is refused by the outbound rules. */
    readonly blocked = false,
  ) {
    super(message);
    this.name = 'CalDavError';
  }
}

function wrap(err: unknown): CalDavError {
  if (err instanceof CalDavError) return err;
  if (err instanceof OutboundBlockedError) return new CalDavError(err.message, undefined, true);
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof OutboundBlockedError) return new CalDavError(cause.message, undefined, true);
  const message = err instanceof Error ? err.message : String(err);
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  return new CalDavError(`${message}${detail}`);
}

const headersOf = (c: CalDavCredentials) =>
  getBasicAuthHeaders({ username: c.username, password: c.password });

/** Fails with the server's status when credentials or the URL are wrong (tsdav itself does not always). */
async function probe(fetch: SafeFetch, c: CalDavCredentials, url: string) {
  const res = await fetch(url, {
    method: 'PROPFIND',
    headers: { ...headersOf(c), depth: '0', 'content-type': 'application/xml; charset=utf-8' },
    body: '<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>',
  });
  await res.body?.cancel();
  if (res.status === 401 || res.status === 403)
    throw new CalDavError(`the CalDAV server refused the username or password (${res.status})`, res.status);
  if (res.status >= 400)
    throw new CalDavError(`the CalDAV server answered ${res.status} at ${url}`, res.status);
}

export interface DiscoveredCalendar {
  calendarUrl: string;
  displayName: string | null;
}

/**
 * Finds the calendar to use: the collection at `url` itself when it is one, else the first calendar of the
 * principal's home that holds events.
 */
export async function discoverCalendar(fetch: SafeFetch, c: CalDavCredentials): Promise<DiscoveredCalendar> {
  try {
    await probe(fetch, c, c.url);
    const headers = headersOf(c);
    const account: DAVAccount = { serverUrl: c.url, accountType: 'caldav', credentials: c };
    account.rootUrl = await serviceDiscovery({ account, headers, fetch });
    account.principalUrl = await fetchPrincipalUrl({ account, headers, fetch });
    account.homeUrl = await fetchHomeUrl({ account, headers, fetch });
    const calendars = await fetchCalendars({ account, headers, fetch });
    const events = calendars.filter((cal) => !cal.components || cal.components.includes('VEVENT'));
    const wanted = new URL(c.url).href.replace(/\/?$/, '/');
    const chosen =
      events.find((cal) => new URL(cal.url, c.url).href.replace(/\/?$/, '/') === wanted) ?? events[0];
    if (!chosen) throw new CalDavError('the CalDAV account has no calendar that holds events');
    const name = chosen.displayName;
    return {
      calendarUrl: new URL(chosen.url, c.url).href,
      displayName: typeof name === 'string' && name ? name : null,
    };
  } catch (err) {
    throw wrap(err);
  }
}

export interface CalendarObject {
  url: string;
  etag?: string;
  data: string;
}

/** The objects with a VEVENT overlapping [start, end): a calendar-query REPORT with a time-range filter. */
export async function queryObjects(
  fetch: SafeFetch,
  t: CalDavTarget,
  start: Date,
  end: Date,
): Promise<CalendarObject[]> {
  try {
    await probe(fetch, t, t.calendarUrl);
    const objects = await fetchCalendarObjects({
      calendar: { url: t.calendarUrl } as DAVCalendar,
      timeRange: { start: start.toISOString(), end: end.toISOString() },
      headers: headersOf(t),
      urlFilter: (u) => !u.endsWith('/'),
      fetch,
    });
    return objects.filter((o): o is CalendarObject => typeof o.data === 'string' && o.data.length > 0);
  } catch (err) {
    throw wrap(err);
  }
}

/** The URL of a new object in the calendar: `<calendar>/<uid>.ics`. */
export const objectUrlFor = (calendarUrl: string, uid: string) =>
  new URL(`${encodeURIComponent(uid)}.ics`, calendarUrl.replace(/\/?$/, '/')).href;

async function checked(res: Response, what: string) {
  if (res.ok) return res.headers.get('etag') ?? undefined;
  const text = (await res.text().catch(() => '')).slice(0, 200);
  throw new CalDavError(
    `${what} failed: the CalDAV server answered ${res.status}${text ? ` (${text})` : ''}`,
    res.status,
  );
}

/** Creates (If-None-Match: *) or replaces the object; returns its new ETag when the server gives one. */
export async function putObject(
  fetch: SafeFetch,
  t: CalDavTarget,
  url: string,
  ics: string,
  create: boolean,
): Promise<string | undefined> {
  try {
    const headers = { ...headersOf(t), 'content-type': 'text/calendar; charset=utf-8' };
    if (create) {
      const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
      const res = await createCalendarObject({
        calendar: { url: t.calendarUrl.replace(/\/?$/, '/') } as DAVCalendar,
        filename: name,
        iCalString: ics,
        headers,
        fetch,
      });
      return await checked(res, 'creating the event');
    }
    const res = await updateCalendarObject({ calendarObject: { url, data: ics }, headers, fetch });
    return await checked(res, 'updating the event');
  } catch (err) {
    throw wrap(err);
  }
}

/** Removes the object; one already gone (404/410) counts as removed. */
export async function deleteObject(fetch: SafeFetch, t: CalDavTarget, url: string): Promise<void> {
  try {
    const res = await deleteCalendarObject({
      calendarObject: { url, data: '' },
      headers: headersOf(t),
      fetch,
    });
    if (res.status === 404 || res.status === 410) return;
    await checked(res, 'removing the event');
  } catch (err) {
    throw wrap(err);
  }
}
