import { z } from 'zod';
import { membershipRef } from '../../platform/http/schemas.js';
import { MEETING_STATUSES } from './table.js';

const dateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with offset' });

// ---- connections

export const connectionInput = z.strictObject({
  provider: z.literal('caldav').default('caldav').describe('only caldav for now'),
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2000)
    .describe(
      'CalDAV server or calendar URL (e.g. https://caldav.fastmail.com/, https://cloud.example.com/remote.php/dav)',
    ),
  username: z.string().trim().min(1).max(320),
  password: z
    .string()
    .min(1)
    .max(1000)
    .describe('write-only: an app password; stored encrypted, never returned'),
});
export type ConnectionInput = z.infer<typeof connectionInput>;

export const connection = z
  .object({
    documentId: z.string(),
    provider: z.literal('caldav'),
    url: z.string(),
    username: z.string(),
    calendarUrl: z.string().describe('the calendar collection found by discovery'),
    displayName: z.string().nullable(),
    hasPassword: z.literal(true),
    membership: membershipRef,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'CalendarConnection' });
export type Connection = z.infer<typeof connection>;

// ---- agenda

export const AGENDA_SOURCES = ['calendar', 'campaigns', 'tasks', 'cards'] as const;
export type AgendaSource = (typeof AGENDA_SOURCES)[number];

export const agendaQuery = z.strictObject({
  start: dateTime.optional().describe('window start (ISO 8601); default now'),
  end: dateTime
    .optional()
    .describe('window end (ISO 8601), after start, at most 62 days later; default start + 7 days'),
  sources: z
    .string()
    .max(100)
    .optional()
    .describe('comma list of calendar, campaigns, tasks, cards (default: all; calendar only when connected)'),
});

export const agendaItem = z
  .object({
    id: z.string().describe('stable per item: `<source>:<id>` (calendar instances add their start)'),
    source: z.enum(AGENDA_SOURCES),
    title: z.string(),
    start: z.string(),
    end: z.string(),
    allDay: z.boolean(),
    link: z
      .object({
        type: z.enum(['task', 'card', 'campaign', 'meeting']),
        documentId: z.string(),
        organizer: membershipRef
          .nullable()
          .optional()
          .describe(
            'a meeting you may read (its card is visible to you): who organizes it, the only one who may change or cancel it; null when no longer a member. Absent for other links and for a meeting on a card you cannot see',
          ),
        status: z
          .enum(MEETING_STATUSES)
          .optional()
          .describe('a meeting you may read, as organizer: a cancelled one cannot be changed'),
      })
      .nullable(),
  })
  .meta({ id: 'AgendaItem' });
export type AgendaItem = z.infer<typeof agendaItem>;

export const agendaResponse = z.object({
  data: z.array(agendaItem),
  meta: z.object({
    partial: z.boolean().describe('true when a source failed: read sourceErrors before trusting the list'),
    sourceErrors: z.array(z.object({ source: z.enum(AGENDA_SOURCES), message: z.string() })),
    start: z.string(),
    end: z.string(),
    sources: z.array(z.enum(AGENDA_SOURCES)).describe('the sources asked'),
  }),
});

// ---- availability

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (24h)');

export const availabilityInput = z.strictObject({
  start: dateTime,
  end: dateTime,
  durationMinutes: z
    .number()
    .int()
    .min(5)
    .max(24 * 60),
  timeZone: z
    .string()
    .max(64)
    .optional()
    .describe(
      "IANA time zone of the working hours, e.g. Europe/Lisbon (default: the organization's timeZone)",
    ),
  workingHours: z
    .strictObject({
      start: clock.default('09:00'),
      end: clock.default('18:00'),
      days: z
        .array(z.number().int().min(1).max(7))
        .min(1)
        .max(7)
        .default([1, 2, 3, 4, 5])
        .describe('ISO weekdays: 1 = Monday … 7 = Sunday'),
    })
    .optional()
    .describe('default 09:00–18:00, Monday to Friday, in timeZone'),
  stepMinutes: z.number().int().min(5).max(240).optional().describe('spacing of slot starts (default 30)'),
  limit: z.number().int().min(1).max(200).optional().describe('most slots returned (default 50)'),
});
export type AvailabilityInput = z.infer<typeof availabilityInput>;

export const availability = z.object({
  slots: z.array(z.object({ start: z.string(), end: z.string() })),
  timeZone: z.string(),
  busy: z.array(z.object({ start: z.string(), end: z.string() })).describe('busy times found in the window'),
});

// ---- meetings

const attendee = z.strictObject({
  email: z.email().max(320),
  name: z.string().trim().max(200).nullable().optional(),
});

const meetingFields = {
  title: z.string().trim().min(1).max(255),
  start: dateTime,
  end: dateTime,
  attendees: z.array(attendee).max(50).describe('each gets an iTIP REQUEST invitation (.ics) by e-mail'),
  description: z.string().max(10_000).nullable(),
  location: z.string().max(1000).nullable(),
};

export const meetingInput = z.strictObject({
  ...meetingFields,
  attendees: meetingFields.attendees.default([]),
  description: meetingFields.description.optional(),
  location: meetingFields.location.optional(),
});
export type MeetingInput = z.infer<typeof meetingInput>;

export const meetingUpdate = z.strictObject({
  title: meetingFields.title.optional(),
  start: meetingFields.start.optional(),
  end: meetingFields.end.optional(),
  attendees: meetingFields.attendees.optional(),
  description: meetingFields.description.optional(),
  location: meetingFields.location.optional(),
});
export type MeetingUpdate = z.infer<typeof meetingUpdate>;

export const meeting = z
  .object({
    documentId: z.string(),
    card: z.object({ documentId: z.string(), title: z.string() }),
    board: z.object({ documentId: z.string() }),
    title: z.string(),
    start: z.string(),
    end: z.string(),
    attendees: z.array(z.object({ email: z.string(), name: z.string().nullable() })),
    status: z.enum(MEETING_STATUSES),
    description: z.string().nullable(),
    location: z.string().nullable(),
    organizer: membershipRef.nullable(),
    uid: z.string().describe('iCalendar UID'),
    sequence: z.number().int().describe('iCalendar SEQUENCE: raised by each change'),
    cancelledAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'CalendarMeeting' });
export type Meeting = z.infer<typeof meeting>;

export const cardParams = z.object({
  boardId: z.string().min(1).max(64).describe('board documentId'),
  cardId: z.string().min(1).max(64).describe('card documentId'),
});
