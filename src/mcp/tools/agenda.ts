import { z } from 'zod';
import { unwrap } from '../api-client.js';
import { defined, readTool, type Tool, writeTool } from '../tool-kit.js';
import { beta, dateTime, docId, membershipRef } from './common.js';

const SOURCES = ['calendar', 'campaigns', 'tasks', 'cards'] as const;

const agendaItem = z.object({
  id: z.string().describe('Stable id of the item: <source>:<id>'),
  source: z.enum(SOURCES),
  title: z.string(),
  start: z.string().describe('ISO 8601'),
  end: z.string().describe('ISO 8601 (equal to start for tasks, due dates and campaigns)'),
  allDay: z.boolean(),
  link: z
    .object({
      type: z.enum(['task', 'card', 'campaign', 'meeting']),
      documentId: z.string(),
      organizer: membershipRef
        .nullable()
        .optional()
        .describe(
          "A meeting's organizer, when its card is visible to you (only the organizer may change it)",
        ),
      status: z
        .enum(['scheduled', 'cancelled'])
        .optional()
        .describe("A meeting's status, when its card is visible to you"),
    })
    .nullable()
    .describe('The CRM record behind the item, if any'),
});

const attendee = z.object({
  email: z.string().describe('E-mail address of the invitee'),
  name: z.string().nullable().optional().describe('Display name of the invitee'),
});

const meeting = z.object({
  documentId: z.string().describe('documentId of the meeting (not of the card)'),
  card: z.object({ documentId: z.string(), title: z.string() }),
  board: z.object({ documentId: z.string() }),
  title: z.string(),
  start: z.string(),
  end: z.string(),
  attendees: z.array(z.object({ email: z.string(), name: z.string().nullable() })),
  status: z.enum(['scheduled', 'cancelled']),
  description: z.string().nullable(),
  location: z.string().nullable(),
  organizer: membershipRef.nullable(),
  uid: z.string(),
  sequence: z.number(),
  cancelledAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const cardArgs = {
  boardId: docId('board'),
  cardId: docId('card'),
};

const iso = (what: string) => dateTime().describe(`${what}, ISO 8601 with offset, e.g. 2026-12-02T14:00:00Z`);

const meetingFields = {
  title: z.string().min(1).max(255).describe('Meeting title (the invitation subject)'),
  start: iso('Start'),
  end: iso('End, after start'),
  attendees: z
    .array(attendee)
    .max(50)
    .optional()
    .describe('Invitees: each receives an e-mail invitation (.ics) they can accept in their calendar'),
  description: z.string().max(10_000).nullable().optional().describe('Agenda or notes; null clears it'),
  location: z.string().max(1000).nullable().optional().describe('Place or video link; null clears it'),
};

export const agendaTools: Tool[] = beta([
  readTool({
    name: 'list_agenda_events',
    openWorld: true,
    title: 'List agenda events',
    description:
      "Lists the user's agenda between start and end (at most 62 days apart): events of their connected calendar (recurring ones expanded), scheduled campaigns, tasks and card due dates they may see, merged and sorted by start. IMPORTANT: when meta.partial is true, a source failed (for example the calendar server was unreachable); read meta.sourceErrors before treating the list as complete or telling the person they are free.",
    input: {
      start: iso('Window start'),
      end: iso('Window end, after start and at most 62 days later'),
      sources: z
        .array(z.enum(SOURCES))
        .optional()
        .describe('Only these sources (default all; calendar needs a connected calendar)'),
    },
    output: z.object({
      data: z.array(agendaItem),
      meta: z
        .object({
          partial: z.boolean().describe('true when a source failed: read sourceErrors'),
          sourceErrors: z.array(z.object({ source: z.enum(SOURCES), message: z.string() })),
        })
        .loose(),
    }),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/agenda/events', {
          params: {
            query: defined({ start: args.start, end: args.end, sources: args.sources?.join(',') }),
          },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'list_card_meetings',
    title: "List a card's meetings",
    description:
      'Lists the meetings scheduled on a card (cancelled ones included, status cancelled), by start. Use it to find a meeting documentId for crm.update_card_meeting or crm.cancel_card_meeting.',
    input: cardArgs,
    output: z.object({ data: z.array(meeting) }),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/boards/{boardId}/cards/{cardId}/calendar-meetings', {
          params: { path: { boardId: args.boardId, cardId: args.cardId } },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'find_meeting_slots',
    openWorld: true,
    title: 'Find free meeting slots',
    description:
      "Finds free slots of durationMinutes in the user's connected calendar for a meeting about a card, inside working hours (default 09:00-18:00 Monday to Friday) in timeZone (default: the organization's), between start and end (at most 62 days). Needs a connected calendar (422 otherwise). Offer the person a few slots, then crm.schedule_card_meeting.",
    input: {
      ...cardArgs,
      start: iso('Search from'),
      end: iso('Search until (at most 62 days after start)'),
      durationMinutes: z.number().int().min(5).max(1440).describe('Meeting length in minutes'),
      timeZone: z
        .string()
        .optional()
        .describe(
          "IANA time zone of the working hours, e.g. America/Sao_Paulo (default: the organization's time zone)",
        ),
      workingHours: z
        .object({
          start: z.string().optional().describe('HH:MM, default 09:00'),
          end: z.string().optional().describe('HH:MM, default 18:00'),
          days: z
            .array(z.number().int().min(1).max(7))
            .optional()
            .describe('ISO weekdays 1=Monday..7=Sunday'),
        })
        .optional()
        .describe('Working hours in timeZone'),
      limit: z.number().int().min(1).max(200).optional().describe('Most slots returned (default 50)'),
    },
    output: z.object({
      slots: z.array(z.object({ start: z.string(), end: z.string() })),
      timeZone: z.string(),
      busy: z.array(z.object({ start: z.string(), end: z.string() })),
    }),
    run: ({ boardId, cardId, ...body }, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/boards/{boardId}/cards/{cardId}/calendar-meetings/availability', {
          params: { path: { boardId, cardId } },
          body: defined(body) as never,
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'schedule_card_meeting',
    openWorld: true,
    title: 'Schedule a meeting on a card',
    description:
      "Creates a meeting about a card in the user's connected calendar and e-mails each attendee an invitation (.ics). Adds a note to the card's history. Needs a connected calendar (422 otherwise); check free time first with crm.find_meeting_slots.",
    input: { ...cardArgs, ...meetingFields },
    output: meeting,
    destructive: false,
    idempotent: false,
    summary: (a) =>
      `schedule "${a.title}" on ${a.start} and e-mail ${a.attendees?.length ?? 0} invitation(s)${
        a.attendees?.length ? ` (${a.attendees.map((x) => x.email).join(', ')})` : ''
      }`,
    run: ({ boardId, cardId, ...data }, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/boards/{boardId}/cards/{cardId}/calendar-meetings', {
          params: { path: { boardId, cardId } },
          body: { data: defined(data) as never },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'update_card_meeting',
    openWorld: true,
    title: 'Change a meeting',
    description:
      'Changes a scheduled meeting given its documentId (only the fields passed): the calendar event is updated and every attendee receives an updated invitation; attendees left out of a new attendees list receive a cancellation. Only the organizer can change it.',
    input: {
      meetingId: docId('meeting'),
      ...meetingFields,
      title: meetingFields.title.optional(),
      start: meetingFields.start.optional(),
      end: meetingFields.end.optional(),
    },
    output: meeting,
    destructive: true,
    idempotent: false,
    summary: (a) => `change the meeting ${a.meetingId} and re-send its invitations`,
    run: ({ meetingId, ...data }, { api, apiUrl }) =>
      unwrap(
        api.PATCH('/api/calendar-meetings/{id}', {
          params: { path: { id: meetingId } },
          body: { data: defined(data) as never },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'cancel_card_meeting',
    openWorld: true,
    title: 'Cancel a meeting',
    description:
      "Cancels a meeting given its documentId: removes it from the organizer's calendar and e-mails every attendee a cancellation. The meeting stays readable with status cancelled. Only the organizer can cancel it.",
    input: { meetingId: docId('meeting') },
    output: meeting,
    destructive: true,
    idempotent: true,
    summary: (a) => `cancel the meeting ${a.meetingId} and notify its attendees`,
    run: (args, { api, apiUrl }) =>
      unwrap(api.DELETE('/api/calendar-meetings/{id}', { params: { path: { id: args.meetingId } } }), apiUrl),
  }),
]);
