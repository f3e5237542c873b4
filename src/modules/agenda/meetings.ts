import { randomUUID } from 'node:crypto';
import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { AppError, notFound, validationError } from '../../platform/http/errors.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import {
  type CalDavTarget,
  deleteObject,
  objectUrlFor,
  putObject,
} from '../../platform/providers/caldav/client.js';
import { type MeetingEvent, meetingIcs } from '../../platform/providers/caldav/icalendar.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { loadBoardForRead } from '../boards/index.js';
import * as cardsRepo from '../cards/index.js';
import { cardVisibility, insertComments } from '../cards/index.js';
import { findSlots } from './agenda.js';
import { calDavFailure, type Deps, noCalendar, outboundFetch, targetOf } from './connections.js';
import { historyComment, sendItip, when } from './notices.js';
import * as repo from './repo.js';
import type { AvailabilityInput, Meeting, MeetingInput, MeetingUpdate } from './schema.js';
import type { Attendee } from './table.js';

/** The card (visible to the caller, else 404) a meeting belongs to or is created on. */
async function openCard(tx: Tx, ctx: TenantContext, boardDocumentId: string, cardDocumentId: string) {
  const access = await loadBoardForRead(tx, ctx, boardDocumentId);
  const card = await cardsRepo.findCard(
    tx,
    ctx.orgId,
    access.board.id,
    cardDocumentId,
    cardVisibility(ctx, access),
  );
  if (!card) throw notFound('Card');
  return { card, board: access.board };
}

/** A meeting the caller may see: its card must be visible to them. */
async function visibleMeeting(tx: Tx, ctx: TenantContext, documentId: string, lock = false) {
  const row = await repo.findMeeting(tx, ctx.orgId, documentId, lock);
  if (!row) throw notFound('Meeting');
  const card = (await repo.cardsWithBoards(tx, ctx.orgId, [row.cardId])).get(row.cardId);
  if (!card) throw notFound('Meeting');
  await openCard(tx, ctx, card.boardDocumentId, card.documentId).catch((err) => {
    throw err instanceof AppError && err.status === 404 ? notFound('Meeting') : err;
  });
  return row;
}

async function present(tx: Tx, orgId: number, rows: repo.MeetingRow[]): Promise<Meeting[]> {
  const cards = await repo.cardsWithBoards(tx, orgId, [...new Set(rows.map((r) => r.cardId))]);
  const refs = await membershipRefsByIds(tx, orgId, [
    ...new Set(rows.flatMap((r) => (r.organizerMembershipId == null ? [] : [r.organizerMembershipId]))),
  ]);
  return rows.map((r) => {
    const card = cards.get(r.cardId);
    return {
      documentId: r.documentId,
      card: { documentId: card?.documentId ?? '', title: card?.title ?? '' },
      board: { documentId: card?.boardDocumentId ?? '' },
      title: r.title,
      start: isoRequired(r.startsAt),
      end: isoRequired(r.endsAt),
      attendees: r.attendees,
      status: r.status as Meeting['status'],
      description: r.description,
      location: r.location,
      organizer: r.organizerMembershipId == null ? null : (refs.get(r.organizerMembershipId) ?? null),
      uid: r.uid,
      sequence: r.sequence,
      cancelledAt: iso(r.cancelledAt),
      createdAt: isoRequired(r.createdAt),
      updatedAt: isoRequired(r.updatedAt),
    };
  });
}

function checkTimes(start: Date, end: Date) {
  if (end.getTime() <= start.getTime())
    throw validationError('end must be after start', [{ path: ['end'], message: 'must be after start' }]);
  if (end.getTime() - start.getTime() > 14 * 86_400_000)
    throw validationError('A meeting lasts at most 14 days', [
      { path: ['end'], message: 'at most 14 days after start' },
    ]);
}

/** Attendees once each (by lower-cased address), names kept. */
function uniqueAttendees(list: { email: string; name?: string | null }[]): Attendee[] {
  const seen = new Map<string, Attendee>();
  for (const a of list) {
    const key = a.email.toLowerCase();
    if (!seen.has(key)) seen.set(key, { email: a.email, name: a.name?.trim() || null });
  }
  return [...seen.values()];
}

/** The caller's connection and organizer identity; 422 without a connected calendar. */
async function organizerOf(tx: Tx, ctx: TenantContext) {
  const conn = await repo.findConnectionOf(tx, ctx.orgId, ctx.membershipId);
  if (!conn) throw noCalendar();
  const me = (await membershipRefsByIds(tx, ctx.orgId, [ctx.membershipId])).get(ctx.membershipId);
  if (!me) throw new AppError('ForbiddenError', 'Your membership is gone');
  return { conn, organizer: { email: me.user.email, name: me.user.name ?? me.user.username } };
}

function eventOf(
  row: Omit<repo.MeetingRow, 'id' | 'organizationId' | 'createdAt' | 'updatedAt'>,
  organizer: MeetingEvent['organizer'],
): MeetingEvent {
  return {
    uid: row.uid,
    sequence: row.sequence,
    title: row.title,
    description: row.description ?? null,
    location: row.location ?? null,
    start: row.startsAt,
    end: row.endsAt,
    organizer,
    attendees: row.attendees,
    cancelled: row.status === 'cancelled',
    meetingDocumentId: row.documentId,
  };
}

// ---- reads

export async function listCardMeetings(ctx: TenantContext, boardId: string, cardId: string) {
  requireFeature(ctx, 'agenda');
  return ctx.transaction(async (tx) => {
    const { card } = await openCard(tx, ctx, boardId, cardId);
    return { data: await present(tx, ctx.orgId, await repo.listCardMeetings(tx, ctx.orgId, card.id)) };
  });
}

export async function getMeeting(ctx: TenantContext, documentId: string) {
  requireFeature(ctx, 'agenda');
  return ctx.transaction(
    async (tx) => (await present(tx, ctx.orgId, [await visibleMeeting(tx, ctx, documentId)]))[0],
  );
}

export async function cardAvailability(
  deps: Deps,
  ctx: TenantContext,
  boardId: string,
  cardId: string,
  input: AvailabilityInput,
) {
  requireFeature(ctx, 'agenda');
  await ctx.transaction((tx) => openCard(tx, ctx, boardId, cardId));
  return findSlots(deps, ctx, input);
}

// ---- writes: the calendar call happens between two short transactions, never inside one

export async function createMeeting(
  deps: Deps,
  ctx: TenantContext,
  boardId: string,
  cardId: string,
  input: MeetingInput,
) {
  requireFeature(ctx, 'agenda');
  requireRole(ctx, 'member');
  const start = new Date(input.start);
  const end = new Date(input.end);
  checkTimes(start, end);
  const { card, organizer, conn } = await ctx.transaction(async (tx) => ({
    ...(await openCard(tx, ctx, boardId, cardId)),
    ...(await organizerOf(tx, ctx)),
  }));
  // The password is opened outside any transaction, so no transaction result ever carries it.
  const target = await targetOf(deps, conn);
  const uid = `${randomUUID()}@crm`;
  const values = {
    documentId: newDocumentId(),
    cardId: card.id,
    organizerMembershipId: ctx.membershipId,
    uid,
    objectUrl: objectUrlFor(conn.calendarUrl, uid),
    etag: null as string | null,
    sequence: 0,
    title: input.title,
    description: input.description ?? null,
    location: input.location ?? null,
    startsAt: start,
    endsAt: end,
    attendees: uniqueAttendees(input.attendees),
    status: 'scheduled',
    cancelledAt: null,
  };
  const event = eventOf(values, organizer);
  const fetch = outboundFetch(deps);
  // A dry run writes nothing to the calendar (and its transaction below is rolled back: no mail either).
  if (!ctx.dryRun)
    values.etag =
      (await putObject(fetch, target, values.objectUrl, meetingIcs(event), true).catch((err) => {
        throw calDavFailure(err);
      })) ?? null;
  try {
    return await ctx.transaction(async (tx) => {
      const row = await repo.insertMeeting(tx, ctx.orgId, values);
      await insertComments(tx, ctx.orgId, [
        historyComment(
          card.id,
          ctx,
          'meeting_scheduled',
          `Meeting scheduled: "${row.title}" (${when(event)})`,
          row,
        ),
      ]);
      await sendItip(deps, tx, ctx.orgId, event, 'REQUEST', row.attendees);
      await audit(tx, ctx, 'calendar_meeting.created', row.documentId, { card: card.documentId });
      return (await present(tx, ctx.orgId, [row]))[0];
    });
  } catch (err) {
    // Nothing was recorded: take the event back out of the calendar (best effort).
    if (!ctx.dryRun) await deleteObject(fetch, target, values.objectUrl).catch(() => {});
    throw err;
  }
}

/** The meeting for a change by its organizer (403 for others: it lives in the organizer's calendar). */
async function forChange(tx: Tx, ctx: TenantContext, documentId: string) {
  const row = await visibleMeeting(tx, ctx, documentId);
  if (row.organizerMembershipId !== ctx.membershipId)
    throw new AppError(
      'ForbiddenError',
      "Only the meeting's organizer can change or cancel it: the event lives in their calendar",
    );
  const { organizer, conn } = await organizerOf(tx, ctx);
  return { row, organizer, conn };
}

function sameTarget(row: repo.MeetingRow, target: CalDavTarget) {
  return row.objectUrl.startsWith(target.calendarUrl.replace(/\/?$/, '/'));
}

export async function updateMeeting(
  deps: Deps,
  ctx: TenantContext,
  documentId: string,
  input: MeetingUpdate,
) {
  requireFeature(ctx, 'agenda');
  requireRole(ctx, 'member');
  const { row, organizer, conn } = await ctx.transaction((tx) => forChange(tx, ctx, documentId));
  const target = await targetOf(deps, conn);
  if (row.status === 'cancelled')
    throw new AppError('UnprocessableEntityError', 'The meeting is cancelled: schedule a new one instead', {
      status: row.status,
    });
  const next = {
    ...row,
    title: input.title ?? row.title,
    description: input.description !== undefined ? input.description : row.description,
    location: input.location !== undefined ? input.location : row.location,
    startsAt: input.start ? new Date(input.start) : row.startsAt,
    endsAt: input.end ? new Date(input.end) : row.endsAt,
    attendees: input.attendees ? uniqueAttendees(input.attendees) : row.attendees,
    sequence: row.sequence + 1,
  };
  checkTimes(next.startsAt, next.endsAt);
  const event = eventOf(next, organizer);
  const fetch = outboundFetch(deps);
  // A calendar reconnected elsewhere: the event is written to the current calendar (the old one is out of reach).
  const objectUrl = sameTarget(row, target) ? row.objectUrl : objectUrlFor(target.calendarUrl, row.uid);
  // A dry run keeps the calendar as it is: the etag would be the server's, so the current one is answered.
  const etag = ctx.dryRun
    ? row.etag
    : await putObject(fetch, target, objectUrl, meetingIcs(event), objectUrl !== row.objectUrl).catch(
        (err) => {
          throw calDavFailure(err);
        },
      );
  return ctx.transaction(async (tx) => {
    const current = await repo.findMeeting(tx, ctx.orgId, documentId, true);
    if (!current || current.sequence !== row.sequence)
      throw new AppError('ConflictError', 'The meeting changed meanwhile: read it again and retry');
    const saved = await repo.updateMeeting(tx, ctx.orgId, row.id, {
      title: next.title,
      description: next.description,
      location: next.location,
      startsAt: next.startsAt,
      endsAt: next.endsAt,
      attendees: next.attendees,
      sequence: next.sequence,
      objectUrl,
      etag: etag ?? null,
    });
    const kept = new Set(next.attendees.map((a) => a.email.toLowerCase()));
    const removed = row.attendees.filter((a) => !kept.has(a.email.toLowerCase()));
    await sendItip(deps, tx, ctx.orgId, event, 'REQUEST', next.attendees, true);
    if (removed.length)
      await sendItip(
        deps,
        tx,
        ctx.orgId,
        { ...event, attendees: removed, cancelled: true },
        'CANCEL',
        removed,
      );
    await insertComments(tx, ctx.orgId, [
      historyComment(
        row.cardId,
        ctx,
        'meeting_updated',
        `Meeting updated: "${saved.title}" (${when(event)})`,
        saved,
      ),
    ]);
    await audit(tx, ctx, 'calendar_meeting.updated', row.documentId, { sequence: next.sequence });
    return (await present(tx, ctx.orgId, [saved]))[0];
  });
}

/** Cancels: iTIP CANCEL to every attendee, the event removed from the calendar, the record kept as cancelled. */
export async function cancelMeeting(deps: Deps, ctx: TenantContext, documentId: string) {
  requireFeature(ctx, 'agenda');
  requireRole(ctx, 'member');
  const { row, organizer, conn } = await ctx.transaction((tx) => forChange(tx, ctx, documentId));
  const target = await targetOf(deps, conn);
  if (row.status === 'cancelled')
    return ctx.transaction(async (tx) => (await present(tx, ctx.orgId, [row]))[0]);
  if (sameTarget(row, target) && !ctx.dryRun)
    await deleteObject(outboundFetch(deps), target, row.objectUrl).catch((err) => {
      throw calDavFailure(err);
    });
  return ctx.transaction(async (tx) => {
    const current = await repo.findMeeting(tx, ctx.orgId, documentId, true);
    if (!current || current.status === 'cancelled')
      return (await present(tx, ctx.orgId, [current ?? row]))[0];
    const saved = await repo.updateMeeting(tx, ctx.orgId, row.id, {
      status: 'cancelled',
      cancelledAt: new Date(),
      sequence: current.sequence + 1,
    });
    const event = eventOf(saved, organizer);
    await sendItip(deps, tx, ctx.orgId, event, 'CANCEL', saved.attendees);
    await insertComments(tx, ctx.orgId, [
      historyComment(
        row.cardId,
        ctx,
        'meeting_cancelled',
        `Meeting cancelled: "${saved.title}" (${when(event)})`,
        saved,
      ),
    ]);
    await audit(tx, ctx, 'calendar_meeting.cancelled', row.documentId, {});
    return (await present(tx, ctx.orgId, [saved]))[0];
  });
}
