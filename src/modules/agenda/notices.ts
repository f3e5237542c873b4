import type { Tx } from '../../platform/db/client.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { enqueueMail } from '../../platform/mail/mailer.js';
import { type MeetingEvent, meetingIcs } from '../../platform/providers/caldav/icalendar.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import type { Deps } from './connections.js';
import type * as repo from './repo.js';
import type { Attendee } from './table.js';

/** What a meeting change tells people: attendees by iTIP e-mail, the card's readers by its history. */

export const when = (e: MeetingEvent) => `${e.start.toISOString().replace('T', ' ').slice(0, 16)} UTC`;

/** iTIP by e-mail (RFC 6047): one message per attendee, the .ics inline (text/calendar; method=…) and attached. */
export async function sendItip(
  deps: Deps,
  tx: Tx,
  orgId: number,
  event: MeetingEvent,
  method: 'REQUEST' | 'CANCEL',
  to: Attendee[],
  update = false,
) {
  const content = meetingIcs(event, method);
  const verb = method === 'CANCEL' ? 'Cancelled' : update ? 'Updated invitation' : 'Invitation';
  for (const a of to) {
    const lines = [
      method === 'CANCEL'
        ? `${event.organizer.name ?? event.organizer.email} cancelled "${event.title}" (${when(event)}).`
        : `${event.organizer.name ?? event.organizer.email} invites you to "${event.title}".`,
      '',
      `When: ${when(event)} – ${event.end.toISOString().replace('T', ' ').slice(0, 16)} UTC`,
      ...(event.location ? [`Where: ${event.location}`] : []),
      ...(event.description ? ['', event.description] : []),
      '',
      `Organizer: ${event.organizer.email}`,
    ];
    await enqueueMail(
      deps.jobs,
      {
        to: a.email,
        subject: `${verb}: ${event.title} @ ${when(event)}`,
        text: lines.join('\n'),
        replyTo: event.organizer.email,
        icalEvent: { method, filename: method === 'CANCEL' ? 'cancel.ics' : 'invite.ics', content },
      },
      { tx, orgId },
    );
  }
}

/** The system comment on the card for each step of a meeting (its history). */
export function historyComment(
  cardId: number,
  ctx: TenantContext,
  activityType: string,
  content: string,
  meeting: repo.MeetingRow,
) {
  return {
    cardId,
    content,
    contentFormat: 'plain' as const,
    type: 'system' as const,
    activityType,
    mentions: [],
    authorMembershipId: ctx.membershipId,
    metadata: {
      meeting: {
        documentId: meeting.documentId,
        title: meeting.title,
        start: isoRequired(meeting.startsAt),
        end: isoRequired(meeting.endsAt),
        sequence: meeting.sequence,
        status: meeting.status,
      },
    },
  };
}
