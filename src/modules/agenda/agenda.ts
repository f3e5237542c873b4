import { DateTime } from 'luxon';
import type { Tx } from '../../platform/db/client.js';
import { AppError, validationError } from '../../platform/http/errors.js';
import { isoRequired, type MembershipRef } from '../../platform/http/schemas.js';
import { queryObjects } from '../../platform/providers/caldav/client.js';
import { type Occurrence, occurrencesIn } from '../../platform/providers/caldav/icalendar.js';
import { requireFeature, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { scheduledCampaignsIn } from '../campaigns/index.js';
import { visibleCardsAcrossBoards } from '../cards/index.js';
import { canonicalTimeZone, organizationTimeZone } from '../organizations/index.js';
import { DEFAULT_TIME_ZONE } from '../organizations/table.js';
import { calDavFailure, type Deps, noCalendar, outboundFetch, targetOf } from './connections.js';
import * as repo from './repo.js';
import {
  AGENDA_SOURCES,
  type AgendaItem,
  type AgendaSource,
  type AvailabilityInput,
  type Meeting,
} from './schema.js';

/** The agenda window: at most 62 days (spec, Limits), end after start. */
export const MAX_WINDOW_DAYS = 62;

export function checkWindow(startIso: string, endIso: string) {
  const start = new Date(startIso);
  const end = new Date(endIso);
  if (end.getTime() <= start.getTime())
    throw validationError('end must be after start', [{ path: ['end'], message: 'must be after start' }]);
  if (end.getTime() - start.getTime() > MAX_WINDOW_DAYS * 86_400_000)
    throw validationError(`The window is at most ${MAX_WINDOW_DAYS} days: narrow start and end`, [
      { path: ['end'], message: `must be at most ${MAX_WINDOW_DAYS} days after start` },
    ]);
  return { start, end };
}

function parseSources(value: string | undefined): { sources: AgendaSource[]; explicit: boolean } {
  if (value === undefined || value.trim() === '') return { sources: [...AGENDA_SOURCES], explicit: false };
  const asked = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = asked.filter((s) => !(AGENDA_SOURCES as readonly string[]).includes(s));
  if (unknown.length)
    throw validationError(`Unknown sources: ${unknown.join(', ')} (allowed: ${AGENDA_SOURCES.join(', ')})`, [
      { path: ['sources'], message: `allowed: ${AGENDA_SOURCES.join(', ')}` },
    ]);
  return { sources: [...new Set(asked)] as AgendaSource[], explicit: true };
}

/** How long the agenda waits for the calendar server in total (discovery of several requests included). */
export const CALENDAR_DEADLINE_MS = 8_000;

/** The caller's calendar instances overlapping the window, read with a time-range REPORT and expanded. */
async function calendarOccurrences(deps: Deps, ctx: TenantContext, start: Date, end: Date) {
  const row = await ctx.transaction((tx) => repo.findConnectionOf(tx, ctx.orgId, ctx.membershipId));
  if (!row) return null;
  // One deadline for the whole source: a calendar server that hangs makes the agenda partial, not slow.
  const signal = AbortSignal.timeout(CALENDAR_DEADLINE_MS);
  const fetch = outboundFetch(deps);
  const withDeadline = ((input: string | URL, init?: RequestInit) =>
    fetch(input, { ...init, signal })) as typeof fetch;
  const objects = await queryObjects(withDeadline, await targetOf(deps, row), start, end);
  return readOccurrences(objects, start, end);
}

/** Objects that do not parse are skipped and counted: one broken event must not hide the calendar. */
function readOccurrences(objects: { data: string }[], start: Date, end: Date) {
  let unreadable = 0;
  const occurrences = objects.flatMap((o) => {
    try {
      return occurrencesIn(o.data, start, end);
    } catch {
      unreadable++;
      return [];
    }
  });
  return { occurrences, unreadable };
}

const day = (d: Date) => isoRequired(d);

/** The organizers of the meetings the caller may see, read at once (one query for the whole agenda). */
function organizersOf(tx: Tx, orgId: number, meetings: repo.MeetingLinkRow[]) {
  return membershipRefsByIds(tx, orgId, [
    ...new Set(
      meetings.flatMap((m) =>
        m.visible && m.organizerMembershipId != null ? [m.organizerMembershipId] : [],
      ),
    ),
  ]);
}

/**
 * A calendar item's meeting: its organizer and status too when the caller may see the meeting (its card is visible
 * to them, as GET /calendar-meetings/:id requires), so the agenda needs no read per meeting; else only its
 * documentId, as before (nothing the meeting's own read would refuse).
 */
function meetingLink(meeting: repo.MeetingLinkRow, organizers: Map<number, MembershipRef>) {
  const link = { type: 'meeting' as const, documentId: meeting.documentId };
  if (!meeting.visible) return link;
  const id = meeting.organizerMembershipId;
  return {
    ...link,
    organizer: id == null ? null : (organizers.get(id) ?? null),
    status: meeting.status as Meeting['status'],
  };
}

export async function listAgenda(
  deps: Deps,
  ctx: TenantContext,
  query: { start?: string; end?: string; sources?: string },
) {
  requireFeature(ctx, 'agenda');
  const startIso = query.start ?? new Date().toISOString();
  const endIso = query.end ?? new Date(new Date(startIso).getTime() + 7 * 86_400_000).toISOString();
  const { start, end } = checkWindow(startIso, endIso);
  const { sources, explicit } = parseSources(query.sources);
  const items: AgendaItem[] = [];
  const sourceErrors: { source: AgendaSource; message: string }[] = [];
  // The cards the caller may see: the tasks and cards sources, and the meetings a calendar item names.
  const cardVisible = visibleCardsAcrossBoards(ctx);

  // Each source answers on its own: one that fails is reported and the others still count.
  const run = async (source: AgendaSource, fn: () => Promise<AgendaItem[]>) => {
    if (!sources.includes(source)) return;
    try {
      items.push(...(await fn()));
    } catch (err) {
      if (err instanceof AppError && err.status < 500) throw err;
      const message =
        err instanceof AppError ? err.message : err instanceof Error ? err.message : String(err);
      sourceErrors.push({ source, message });
    }
  };

  await run('calendar', async () => {
    const read = await calendarOccurrences(deps, ctx, start, end).catch((err) => {
      const mapped = calDavFailure(err);
      // Even refused credentials are a failing source here: the rest of the agenda still answers.
      throw new Error(mapped.message);
    });
    if (read === null) {
      if (explicit) throw noCalendar();
      return [];
    }
    const { occurrences, unreadable } = read;
    if (unreadable)
      sourceErrors.push({
        source: 'calendar',
        message: `${unreadable} calendar object(s) are not valid iCalendar and were left out`,
      });
    const { meetings, organizers } = await ctx.transaction(async (tx) => {
      const found = await repo.meetingsByUid(
        tx,
        ctx.orgId,
        [...new Set(occurrences.map((o) => o.uid))],
        cardVisible,
      );
      return { meetings: found, organizers: await organizersOf(tx, ctx.orgId, [...found.values()]) };
    });
    return occurrences
      .filter((o) => !o.cancelled)
      .map((o) => {
        const meeting = meetings.get(o.uid);
        return {
          id: `calendar:${o.uid}${o.recurrenceId ? `:${o.recurrenceId}` : ''}`,
          source: 'calendar' as const,
          title: o.title,
          start: day(o.start),
          end: day(o.end),
          allDay: o.allDay,
          link: meeting ? meetingLink(meeting, organizers) : null,
        };
      });
  });
  await run('tasks', async () => {
    const rows = await ctx.transaction((tx) => repo.tasksDueIn(tx, ctx.orgId, start, end, cardVisible));
    return rows.map((r) => ({
      id: `task:${r.documentId}`,
      source: 'tasks' as const,
      title: r.name,
      start: day(r.dueDate as Date),
      end: day(r.dueDate as Date),
      allDay: false,
      link: { type: 'task' as const, documentId: r.documentId },
    }));
  });
  await run('cards', async () => {
    const rows = await ctx.transaction((tx) => repo.cardsDueIn(tx, ctx.orgId, start, end, cardVisible));
    return rows.map((r) => ({
      id: `card:${r.documentId}`,
      source: 'cards' as const,
      title: r.title,
      start: day(r.dueDate as Date),
      end: day(r.dueDate as Date),
      allDay: false,
      link: { type: 'card' as const, documentId: r.documentId },
    }));
  });
  await run('campaigns', async () => {
    const rows = await ctx.transaction((tx) =>
      scheduledCampaignsIn(tx, ctx.orgId, start, end, repo.SOURCE_LIMIT),
    );
    return rows.map((r) => ({
      id: `campaign:${r.documentId}`,
      source: 'campaigns' as const,
      title: r.name,
      start: day(r.scheduledAt as Date),
      end: day(r.scheduledAt as Date),
      allDay: false,
      link: { type: 'campaign' as const, documentId: r.documentId },
    }));
  });

  items.sort(
    (a, b) => a.start.localeCompare(b.start) || a.end.localeCompare(b.end) || a.id.localeCompare(b.id),
  );
  return {
    data: items,
    meta: { partial: sourceErrors.length > 0, sourceErrors, start: day(start), end: day(end), sources },
  };
}

// ---- availability

interface Interval {
  start: number;
  end: number;
}

function mergeBusy(occurrences: Occurrence[]): Interval[] {
  const sorted = occurrences
    .filter((o) => o.busy)
    .map((o) => ({ start: o.start.getTime(), end: o.end.getTime() }))
    .sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out.at(-1);
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}

const clockOf = (hhmm: string) => ({ hour: Number(hhmm.slice(0, 2)), minute: Number(hhmm.slice(3, 5)) });
const minutesOf = (hhmm: string) => clockOf(hhmm).hour * 60 + clockOf(hhmm).minute;

/**
 * Free slots of `durationMinutes` in the caller's calendar: inside the window, inside working hours in the
 * time zone, not in the past, not overlapping a busy instance (cancelled and transparent ones do not count).
 */
export async function findSlots(deps: Deps, ctx: TenantContext, input: AvailabilityInput) {
  const { start, end } = checkWindow(input.start, input.end);
  // Default: the organization's time zone (the setting task recurrence also follows).
  const asked =
    input.timeZone ??
    (await ctx.transaction((tx) => organizationTimeZone(tx, ctx.orgId))) ??
    DEFAULT_TIME_ZONE;
  const timeZone = canonicalTimeZone(asked);
  if (!timeZone)
    throw validationError(`Unknown time zone ${asked}: use an IANA name such as Europe/Lisbon`, [
      { path: ['timeZone'], message: 'unknown IANA time zone' },
    ]);
  const hours = {
    start: input.workingHours?.start ?? '09:00',
    end: input.workingHours?.end ?? '18:00',
    days: input.workingHours?.days ?? [1, 2, 3, 4, 5],
  };
  if (minutesOf(hours.end) <= minutesOf(hours.start))
    throw validationError('workingHours.end must be after workingHours.start', [
      { path: ['workingHours', 'end'], message: 'must be after start' },
    ]);
  const row = await ctx.transaction((tx) => repo.findConnectionOf(tx, ctx.orgId, ctx.membershipId));
  if (!row) throw noCalendar();
  const objects = await queryObjects(outboundFetch(deps), await targetOf(deps, row), start, end).catch(
    (err) => {
      throw calDavFailure(err);
    },
  );
  const busy = mergeBusy(readOccurrences(objects, start, end).occurrences);

  const duration = input.durationMinutes * 60_000;
  const step = (input.stepMinutes ?? 30) * 60_000;
  const limit = input.limit ?? 50;
  const from = Math.max(start.getTime(), Date.now());
  const slots: { start: string; end: string }[] = [];
  // Local days with luxon: working hours keep their wall-clock time across DST changes.
  for (
    let date = DateTime.fromJSDate(start, { zone: timeZone }).startOf('day');
    date.toMillis() < end.getTime() && slots.length < limit;
    date = date.plus({ days: 1 })
  ) {
    if (!hours.days.includes(date.weekday)) continue;
    const dayStart = date.set(clockOf(hours.start)).toMillis();
    const dayEnd = date.set(clockOf(hours.end)).toMillis();
    for (let s = dayStart; s + duration <= dayEnd && slots.length < limit; s += step) {
      const e = s + duration;
      if (s < from || e > end.getTime()) continue;
      if (busy.some((b) => b.start < e && b.end > s)) continue;
      slots.push({ start: new Date(s).toISOString(), end: new Date(e).toISOString() });
    }
  }
  return {
    slots,
    timeZone,
    busy: busy.map((b) => ({ start: new Date(b.start).toISOString(), end: new Date(b.end).toISOString() })),
  };
}
