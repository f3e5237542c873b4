import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, idParams } from '../../platform/http/schemas.js';
import * as meetings from './meetings.js';
import { beta, read, tags, write } from './route-docs.js';
import {
  availability,
  availabilityInput,
  cardParams,
  meeting,
  meetingInput,
  meetingUpdate,
} from './schema.js';

/** The meetings of a card: free slots, list, schedule. */
export function registerCardMeetingRoutes(app: RouteApp, deps: AppDeps) {
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
}

/** One meeting, by its own id: read, edit, cancel. */
export function registerMeetingRoutes(app: RouteApp, deps: AppDeps) {
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
}
