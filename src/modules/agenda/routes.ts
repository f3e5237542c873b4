import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { listAgenda } from './agenda.js';
import * as connections from './connections.js';
import * as meetings from './meetings.js';
import {
  agendaQuery,
  agendaResponse,
  availability,
  availabilityInput,
  cardParams,
  connection,
  connectionInput,
  meeting,
  meetingInput,
  meetingUpdate,
} from './schema.js';

const tags = ['Agenda'];
const beta = (text: string) => `BETA: ${text}`;
const read = { scope: 'agenda:read' } as const;
const write = { scope: 'agenda:write' } as const;
/** Reaches the CalDAV server to answer (discovery, free/busy): no dry run (docs/dry-run.md). */
const writeLive = { ...write, dryRun: false } as const;

export const agendaRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/calendar-connections',
    {
      config: read,
      schema: {
        tags,
        summary: "The caller's calendar connection (0 or 1)",
        description: beta('Lists your own CalDAV connection; nobody sees another person’s, admins included.'),
        response: { 200: z.object({ data: z.array(connection) }) },
      },
    },
    async (req) => connections.listConnections(req.tenant),
  );

  app.post(
    '/calendar-connections',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Connect your calendar (CalDAV)',
        description: beta(
          'Runs CalDAV discovery (well-known URL, principal, calendar home) with the credentials before saving; the password is stored encrypted and never returned. One per user: 409 when you already have one. Wrong credentials → 422; an unreachable server → 502; a private or loopback address → 400.',
        ),
        body: dataBody(connectionInput, [
          {
            provider: 'caldav',
            url: 'https://caldav.fastmail.com/',
            username: 'ana@example.com',
            password: 'app-password',
          },
        ]),
        response: { 201: connection },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await connections.createConnection(deps, req.tenant, req.body.data)),
  );

  app.delete(
    '/calendar-connections/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Disconnect your calendar',
        description: beta('Removes the connection and its stored password; meetings already made stay.'),
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => connections.deleteConnection(req.tenant, req.params.id),
  );

  app.get(
    '/agenda/events',
    {
      config: read,
      schema: {
        tags,
        summary: 'Your agenda: calendar events, scheduled campaigns, tasks and card due dates, merged',
        description: beta(
          'Window `start`–`end` at most 62 days, end after start (400 otherwise). Calendar events come from your connected calendar (time-range REPORT, recurring events expanded in the window); tasks and cards are those you may see. When a source fails the others still answer: `meta.partial` is true and `meta.sourceErrors` says which and why — examine it before treating the list as complete.',
        ),
        querystring: agendaQuery,
        response: { 200: agendaResponse },
      },
    },
    async (req) => listAgenda(deps, req.tenant, req.query),
  );

  app.post(
    '/boards/:boardId/cards/:cardId/calendar-meetings/availability',
    {
      config: { ...read, dryRun: false },
      schema: {
        tags,
        summary: 'Free slots in your calendar for a meeting on the card',
        description: beta(
          'Slots of `durationMinutes` inside working hours (default 09:00–18:00 Mon–Fri) in `timeZone` (default: the organization’s timeZone), within the window (at most 62 days), not overlapping your busy events. Needs a connected calendar (422 otherwise).',
        ),
        params: cardParams,
        body: availabilityInput.meta({
          examples: [
            {
              start: '2026-12-01T00:00:00Z',
              end: '2026-12-05T00:00:00Z',
              durationMinutes: 30,
              timeZone: 'Europe/Lisbon',
            },
          ],
        }),
        response: { 200: availability },
      },
    },
    async (req) =>
      meetings.cardAvailability(deps, req.tenant, req.params.boardId, req.params.cardId, req.body),
  );

  app.get(
    '/boards/:boardId/cards/:cardId/calendar-meetings',
    {
      config: read,
      schema: {
        tags,
        summary: "The card's meetings, cancelled ones included",
        description: beta('Meetings scheduled on the card, by start.'),
        params: cardParams,
        response: { 200: z.object({ data: z.array(meeting) }) },
      },
    },
    async (req) => meetings.listCardMeetings(req.tenant, req.params.boardId, req.params.cardId),
  );

  app.post(
    '/boards/:boardId/cards/:cardId/calendar-meetings',
    {
      config: write,
      schema: {
        tags,
        summary: 'Schedule a meeting on the card',
        description: beta(
          'Writes the event to your connected calendar (CalDAV PUT) and e-mails each attendee an iTIP REQUEST invitation with an .ics; adds a system comment to the card. Changes your calendar and notifies people. No connected calendar → 422.',
        ),
        params: cardParams,
        body: dataBody(meetingInput, [
          {
            title: 'Proposal review',
            start: '2026-12-02T14:00:00Z',
            end: '2026-12-02T14:30:00Z',
            attendees: [{ email: 'maria@example.com', name: 'Maria' }],
            location: 'https://meet.example.com/abc',
          },
        ]),
        response: { 201: meeting },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          await meetings.createMeeting(
            deps,
            req.tenant,
            req.params.boardId,
            req.params.cardId,
            req.body.data,
          ),
        ),
  );

  app.get(
    '/calendar-meetings/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'One meeting',
        description: beta(
          '`{id}` is the meeting documentId, not the card’s. Cancelled meetings stay readable.',
        ),
        params: idParams,
        response: { 200: meeting },
      },
    },
    async (req) => meetings.getMeeting(req.tenant, req.params.id),
  );

  app.patch(
    '/calendar-meetings/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Edit a meeting (raises SEQUENCE, re-invites)',
        description: beta(
          'Only its organizer. Updates the calendar event with SEQUENCE + 1 and sends every attendee an updated iTIP REQUEST (removed attendees get a CANCEL); adds a system comment to the card.',
        ),
        params: idParams,
        body: dataBody(meetingUpdate, [{ start: '2026-12-02T15:00:00Z', end: '2026-12-02T15:30:00Z' }]),
        response: { 200: meeting },
      },
    },
    async (req) => meetings.updateMeeting(deps, req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/calendar-meetings/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Cancel a meeting',
        description: beta(
          'Only its organizer. Removes the event from the calendar, e-mails every attendee an iTIP CANCEL and keeps the meeting readable with status `cancelled`; adds a system comment to the card.',
        ),
        params: idParams,
        response: { 200: meeting },
      },
    },
    async (req) => meetings.cancelMeeting(deps, req.tenant, req.params.id),
  );
};
