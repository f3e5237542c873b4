import ICAL from 'ical.js';

/**
 * iCalendar (RFC 5545) with ical.js: reading calendar objects into event occurrences (recurrences expanded
 * within a window, overridden instances honoured, EXDATEs skipped, VTIMEZONEs applied) and writing the meeting
 * VEVENT, either as the stored calendar object (no METHOD, RFC 4791 §4.1) or as an iTIP message (RFC 5546).
 */

export interface Occurrence {
  uid: string;
  /** ISO start of this instance when it belongs to a recurring series. */
  recurrenceId: string | null;
  title: string;
  start: Date;
  end: Date;
  allDay: boolean;
  /** STATUS:CANCELLED instances and TRANSP:TRANSPARENT ones do not make the person busy. */
  busy: boolean;
  cancelled: boolean;
}

/** Never expand more instances than this from one series (an every-minute RRULE must not stall a request). */
const MAX_INSTANCES = 1000;

function registerTimezones(root: ICAL.Component) {
  for (const tz of root.getAllSubcomponents('vtimezone')) {
    const id = tz.getFirstPropertyValue('tzid');
    if (typeof id === 'string' && !ICAL.TimezoneService.has(id)) ICAL.TimezoneService.register(tz);
  }
}

function occurrenceOf(
  event: ICAL.Event,
  start: ICAL.Time,
  end: ICAL.Time,
  recurrenceId: string | null,
): Occurrence {
  const status = String(event.component.getFirstPropertyValue('status') ?? '').toUpperCase();
  const transp = String(event.component.getFirstPropertyValue('transp') ?? '').toUpperCase();
  const allDay = start.isDate;
  return {
    uid: event.uid,
    recurrenceId,
    title: event.summary || '(no title)',
    start: start.toJSDate(),
    end: end.toJSDate(),
    allDay,
    cancelled: status === 'CANCELLED',
    busy: status !== 'CANCELLED' && transp !== 'TRANSPARENT',
  };
}

/** End of an instance: DTEND/DURATION, or one day for an all-day event without either (RFC 5545 §3.6.1). */
function endOf(start: ICAL.Time, end: ICAL.Time | null) {
  if (end && end.compare(start) > 0) return end;
  const e = start.clone();
  if (start.isDate) e.day += 1;
  return e;
}

/** The instances of every VEVENT of one calendar object that overlap [from, to). */
export function occurrencesIn(ics: string, from: Date, to: Date): Occurrence[] {
  const root = new ICAL.Component(ICAL.parse(ics));
  registerTimezones(root);
  const vevents = root.getAllSubcomponents('vevent');
  const overrides = vevents.filter((v) => v.hasProperty('recurrence-id'));
  const masters = vevents.filter((v) => !v.hasProperty('recurrence-id'));
  const out: Occurrence[] = [];
  const overlaps = (o: Occurrence) => o.start < to && o.end > from;
  const covered = new Set<string>();

  for (const master of masters) {
    const event = new ICAL.Event(master, {
      strictExceptions: true,
      exceptions: overrides.filter(
        (o) => o.getFirstPropertyValue('uid') === master.getFirstPropertyValue('uid'),
      ),
    });
    if (!event.isRecurring()) {
      const o = occurrenceOf(event, event.startDate, endOf(event.startDate, event.endDate), null);
      if (overlaps(o)) out.push(o);
      continue;
    }
    const iterator = event.iterator();
    const limit = ICAL.Time.fromJSDate(to, true);
    for (let i = 0, next = iterator.next(); next && i < MAX_INSTANCES; i++, next = iterator.next()) {
      if (next.compare(limit) >= 0) break;
      const details = event.getOccurrenceDetails(next);
      const recurrenceId = details.recurrenceId.toJSDate().toISOString();
      covered.add(`${event.uid}|${recurrenceId}`);
      const o = occurrenceOf(
        details.item,
        details.startDate,
        endOf(details.startDate, details.endDate),
        recurrenceId,
      );
      if (overlaps(o)) out.push(o);
    }
  }
  // An override moved from outside the window into it, or sent without its master (an invitation to one instance).
  for (const override of overrides) {
    const event = new ICAL.Event(override);
    const recurrenceId = event.recurrenceId?.toJSDate().toISOString() ?? null;
    if (covered.has(`${event.uid}|${recurrenceId}`)) continue;
    const o = occurrenceOf(event, event.startDate, endOf(event.startDate, event.endDate), recurrenceId);
    if (overlaps(o)) out.push(o);
  }
  return out;
}

export interface MeetingEvent {
  uid: string;
  sequence: number;
  title: string;
  description: string | null;
  location: string | null;
  start: Date;
  end: Date;
  organizer: { email: string; name: string | null };
  attendees: { email: string; name: string | null }[];
  cancelled: boolean;
  /** Identifies the CRM record in the calendar (X-CRM-MEETING) so the agenda can link it back. */
  meetingDocumentId: string;
}

const utc = (d: Date) => ICAL.Time.fromJSDate(d, true);

function mailto(prop: ICAL.Property, person: { email: string; name: string | null }) {
  prop.setValue(`mailto:${person.email}`);
  if (person.name) prop.setParameter('cn', person.name);
}

/**
 * The meeting as iCalendar text. `method` set: an iTIP message (REQUEST or CANCEL) for the invitees;
 * unset: the calendar object stored over CalDAV, whose attendees carry SCHEDULE-AGENT=CLIENT (RFC 6638 §7.1)
 * so a server that schedules on its own (Nextcloud, iCloud) does not send a second invitation.
 */
export function meetingIcs(m: MeetingEvent, method?: 'REQUEST' | 'CANCEL'): string {
  const cal = new ICAL.Component(['vcalendar', [], []]);
  cal.updatePropertyWithValue('prodid', '-//CRM service//Agenda//EN');
  cal.updatePropertyWithValue('version', '2.0');
  cal.updatePropertyWithValue('calscale', 'GREGORIAN');
  if (method) cal.updatePropertyWithValue('method', method);
  const ev = new ICAL.Component('vevent');
  ev.updatePropertyWithValue('uid', m.uid);
  ev.updatePropertyWithValue('dtstamp', utc(new Date()));
  ev.updatePropertyWithValue('dtstart', utc(m.start));
  ev.updatePropertyWithValue('dtend', utc(m.end));
  ev.updatePropertyWithValue('sequence', m.sequence);
  ev.updatePropertyWithValue('summary', m.title);
  if (m.description) ev.updatePropertyWithValue('description', m.description);
  if (m.location) ev.updatePropertyWithValue('location', m.location);
  ev.updatePropertyWithValue('status', m.cancelled ? 'CANCELLED' : 'CONFIRMED');
  ev.updatePropertyWithValue('x-crm-meeting', m.meetingDocumentId);
  const organizer = new ICAL.Property('organizer');
  mailto(organizer, m.organizer);
  ev.addProperty(organizer);
  for (const a of m.attendees) {
    const p = new ICAL.Property('attendee');
    mailto(p, a);
    p.setParameter('role', 'REQ-PARTICIPANT');
    p.setParameter('partstat', 'NEEDS-ACTION');
    p.setParameter('rsvp', 'TRUE');
    if (!method) p.setParameter('schedule-agent', 'CLIENT');
    ev.addProperty(p);
  }
  cal.addSubcomponent(ev);
  return cal.toString();
}

/** The X-CRM-MEETING of a stored object, when the CRM wrote it. */
export function crmMeetingOf(ics: string): string | null {
  try {
    const root = new ICAL.Component(ICAL.parse(ics));
    const value = root.getFirstSubcomponent('vevent')?.getFirstPropertyValue('x-crm-meeting');
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}
