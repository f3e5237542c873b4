import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { setOrganizationPlan } from '../../../src/modules/organizations/repo.js';
import { addMember, apiClient, newTenant } from '../../helpers/app.js';
import { radicaleMissing } from '../../helpers/peers/radicale.js';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.js';
import {
  boardAndCard,
  calendarPart,
  connectCalendar,
  deliverMailTo,
  inDays,
  prop,
  startAgendaWorld,
} from './fixture.js';

const missing = radicaleMissing();
let world: Awaited<ReturnType<typeof startAgendaWorld>>;
let smtp: TestSmtp;

beforeAll(async () => {
  if (missing) return;
  world = await startAgendaWorld();
  smtp = await startSmtp();
});
afterAll(async () => {
  await world?.close();
  await smtp?.close();
});

const basic = (u: { username: string; password: string }) =>
  `Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}`;

/** Delivers the queued mail for `email` over SMTP and returns the calendar parts received, oldest first. */
async function invitationsTo(email: string) {
  await deliverMailTo(email, smtp);
  return smtp.received
    .filter((m) => m.to.includes(email))
    .map((m) => ({ mail: m, ics: calendarPart(m.raw) }));
}

const unique = () => `${Math.random().toString(36).slice(2, 10)}@guest.example`;

describe.skipIf(!!missing)(`meetings on a card${missing ? ` (${missing})` : ''}`, () => {
  test('schedule → VEVENT in the calendar + iTIP REQUEST; edit → SEQUENCE 1 re-invite; cancel → CANCEL, still readable', async () => {
    const t = await newTenant(world.app);
    const { user } = await connectCalendar(t.api, world.radicale);
    const { boardId, cardId } = await boardAndCard(t.api);
    const maria = unique();
    const joao = unique();
    const start = inDays(3, 14);
    const end = new Date(start.getTime() + 30 * 60_000);
    const created = await t.api.post(`/boards/${boardId}/cards/${cardId}/calendar-meetings`, {
      data: {
        title: 'Proposal review',
        start: start.toISOString(),
        end: end.toISOString(),
        attendees: [
          { email: maria, name: 'Maria' },
          { email: joao, name: 'João' },
        ],
        location: 'https://meet.example.com/abc',
        description: 'Numbers for Q1',
      },
    });
    expect(created.status).toBe(201);
    const m = created.body;
    expect(m).toMatchObject({
      card: { documentId: cardId, title: 'Acme deal' },
      board: { documentId: boardId },
      title: 'Proposal review',
      start: start.toISOString(),
      end: end.toISOString(),
      status: 'scheduled',
      sequence: 0,
      organizer: { documentId: t.membershipId },
      attendees: [
        { email: maria, name: 'Maria' },
        { email: joao, name: 'João' },
      ],
    });

    // The event is in the organizer's CalDAV calendar (no METHOD in a stored object).
    const objectUrl = `${world.radicale.url}/${user.username}/calendar/${encodeURIComponent(m.uid)}.ics`;
    const stored = await fetch(objectUrl, { headers: { authorization: basic(user) } });
    expect(stored.status).toBe(200);
    const storedIcs = (await stored.text()).replace(/\r?\n[ \t]/g, '');
    expect(prop(storedIcs, 'UID')).toBe(m.uid);
    expect(prop(storedIcs, 'METHOD')).toBeUndefined();
    expect(storedIcs).toMatch(/SCHEDULE-AGENT=CLIENT/);

    // Each attendee receives an iTIP REQUEST over SMTP.
    const [invite] = await invitationsTo(maria);
    expect(invite.mail.subject).toMatch(/^Invitation: Proposal review/);
    expect(prop(invite.ics, 'METHOD')).toBe('REQUEST');
    expect(prop(invite.ics, 'UID')).toBe(m.uid);
    expect(prop(invite.ics, 'SEQUENCE')).toBe('0');
    expect(invite.ics).toMatch(new RegExp(`ATTENDEE;[^\\r\\n]*:mailto:${maria}`, 'i'));
    expect(invite.ics).toMatch(new RegExp(`ATTENDEE;[^\\r\\n]*:mailto:${joao}`, 'i'));
    expect(invite.ics).toMatch(new RegExp(`ORGANIZER;CN=${t.user.username}:mailto:${t.user.email}`, 'i'));
    expect(invite.mail.raw).toMatch(/filename="?invite\.ics"?/);

    // The agenda links the calendar instance back to the meeting.
    const agenda = await t.api.get('/agenda/events', {
      start: inDays(2).toISOString(),
      end: inDays(5).toISOString(),
    });
    expect(agenda.body.data.find((e: any) => e.source === 'calendar')).toMatchObject({
      title: 'Proposal review',
      link: { type: 'meeting', documentId: m.documentId },
    });

    // Edit: SEQUENCE 1, updated REQUEST to who stays, CANCEL to who was removed.
    const later = new Date(start.getTime() + 3_600_000);
    const edited = await t.api.patch(`/calendar-meetings/${m.documentId}`, {
      data: {
        start: later.toISOString(),
        end: new Date(later.getTime() + 30 * 60_000).toISOString(),
        attendees: [{ email: maria, name: 'Maria' }],
      },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      sequence: 1,
      start: later.toISOString(),
      attendees: [{ email: maria }],
    });
    const mariaMail = await invitationsTo(maria);
    expect(mariaMail).toHaveLength(2);
    expect(mariaMail[1].mail.subject).toMatch(/^Updated invitation/);
    expect(prop(mariaMail[1].ics, 'METHOD')).toBe('REQUEST');
    expect(prop(mariaMail[1].ics, 'SEQUENCE')).toBe('1');
    expect(prop(mariaMail[1].ics, 'UID')).toBe(m.uid);
    const joaoMail = await invitationsTo(joao);
    expect(joaoMail.map((x) => prop(x.ics, 'METHOD'))).toEqual(['REQUEST', 'CANCEL']);
    const storedAfter = (
      await (await fetch(objectUrl, { headers: { authorization: basic(user) } })).text()
    ).replace(/\r?\n[ \t]/g, '');
    expect(prop(storedAfter, 'SEQUENCE')).toBe('1');

    // Cancel: iTIP CANCEL, the event leaves the calendar, the meeting stays readable as cancelled.
    const cancelled = await t.api.delete(`/calendar-meetings/${m.documentId}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      status: 'cancelled',
      sequence: 2,
      cancelledAt: expect.any(String),
    });
    const cancelMail = (await invitationsTo(maria))[2];
    expect(cancelMail.mail.subject).toMatch(/^Cancelled/);
    expect(prop(cancelMail.ics, 'METHOD')).toBe('CANCEL');
    expect(prop(cancelMail.ics, 'SEQUENCE')).toBe('2');
    expect(prop(cancelMail.ics, 'STATUS')).toBe('CANCELLED');
    expect((await fetch(objectUrl, { headers: { authorization: basic(user) } })).status).toBe(404);
    expect((await t.api.get(`/calendar-meetings/${m.documentId}`)).body.status).toBe('cancelled');
    expect((await t.api.delete(`/calendar-meetings/${m.documentId}`)).body.sequence).toBe(2);
    const noEdit = await t.api.patch(`/calendar-meetings/${m.documentId}`, { data: { title: 'Again' } });
    expect(noEdit.status).toBe(422);

    // The card's list and its history: a system comment for each step.
    const list = await t.api.get(`/boards/${boardId}/cards/${cardId}/calendar-meetings`);
    expect(list.body.data.map((x: any) => [x.documentId, x.status])).toEqual([[m.documentId, 'cancelled']]);
    const comments = await t.api.get(`/boards/${boardId}/cards/${cardId}/comments`);
    const history = comments.body.data
      .filter((c: any) => c.type === 'system')
      .map((c: any) => c.activityType);
    expect(history).toEqual(
      expect.arrayContaining(['meeting_scheduled', 'meeting_updated', 'meeting_cancelled']),
    );
  });

  test('no connected calendar is a 422; bad times are 400s', async () => {
    const t = await newTenant(world.app);
    const { boardId, cardId } = await boardAndCard(t.api);
    const url = `/boards/${boardId}/cards/${cardId}/calendar-meetings`;
    const body = { title: 'x', start: inDays(2, 10).toISOString(), end: inDays(2, 11).toISOString() };
    const none = await t.api.post(url, { data: body });
    expect(none.status).toBe(422);
    expect(none.body.error.message).toMatch(/no connected calendar/);
    await connectCalendar(t.api, world.radicale);
    expect((await t.api.post(url, { data: { ...body, end: body.start } })).status).toBe(400);
    expect((await t.api.post(url, { data: { ...body, attendees: [{ email: 'nope' }] } })).status).toBe(400);

    // A retried create with the same Idempotency-Key replays the first answer: one meeting, one event.
    const key = { 'idempotency-key': `meeting-${Math.random()}` };
    const first = await t.api.post(url, { data: body }, key);
    const again = await t.api.post(url, { data: body }, key);
    expect(first.status).toBe(201);
    expect(again.body.documentId).toBe(first.body.documentId);
    expect((await t.api.get(url)).body.data).toHaveLength(1);
  });

  test('other organizations see nothing; only the organizer changes a meeting; card visibility applies', async () => {
    const t = await newTenant(world.app);
    await connectCalendar(t.api, world.radicale);
    const { boardId, cardId } = await boardAndCard(t.api);
    const created = await t.api.post(`/boards/${boardId}/cards/${cardId}/calendar-meetings`, {
      data: { title: 'Secret', start: inDays(2, 10).toISOString(), end: inDays(2, 11).toISOString() },
    });
    expect(created.status).toBe(201);
    const id = created.body.documentId;

    const other = await newTenant(world.app);
    await connectCalendar(other.api, world.radicale);
    expect((await other.api.get(`/calendar-meetings/${id}`)).status).toBe(404);
    expect((await other.api.patch(`/calendar-meetings/${id}`, { data: { title: 'x' } })).status).toBe(404);
    expect((await other.api.delete(`/calendar-meetings/${id}`)).status).toBe(404);
    expect((await other.api.get(`/boards/${boardId}/cards/${cardId}/calendar-meetings`)).status).toBe(404);
    const agenda = await other.api.get('/agenda/events', {
      start: inDays(1).toISOString(),
      end: inDays(4).toISOString(),
    });
    expect(agenda.body.data).toEqual([]);

    // A colleague who can see the card reads the meeting but cannot change it (it is in the organizer's calendar).
    const admin = await addMember(t, 'admin');
    const adminApi = apiClient(world.app, {
      authorization: `Bearer ${admin.user.jwt}`,
      'x-tenant-id': t.slug,
    });
    expect((await adminApi.get(`/calendar-meetings/${id}`)).status).toBe(200);
    expect((await adminApi.patch(`/calendar-meetings/${id}`, { data: { title: 'x' } })).status).toBe(403);
    expect((await adminApi.delete(`/calendar-meetings/${id}`)).status).toBe(403);
    // A member who is not on the board does not see the card's meetings.
    const member = await addMember(t, 'member');
    const memberApi = apiClient(world.app, {
      authorization: `Bearer ${member.user.jwt}`,
      'x-tenant-id': t.slug,
    });
    expect((await memberApi.get(`/calendar-meetings/${id}`)).status).toBe(404);
    expect((await memberApi.get(`/boards/${boardId}/cards/${cardId}/calendar-meetings`)).status).toBe(404);
  });

  test("the agenda's meeting link names the organizer and status to who may read the meeting, nothing more to others", async () => {
    const t = await newTenant(world.app);
    const { user: calendar } = await connectCalendar(t.api, world.radicale);
    const admin = await addMember(t, 'admin');
    const member = await addMember(t, 'member');
    // A team calendar all three connect: each agenda holds the meetings the owner writes to it.
    for (const m of [admin, member]) {
      const shared = await m.api.post('/calendar-connections', {
        data: { url: world.radicale.url, username: calendar.username, password: calendar.password },
      });
      expect(shared.status).toBe(201);
    }
    const { boardId, cardId } = await boardAndCard(t.api);
    const created = await t.api.post(`/boards/${boardId}/cards/${cardId}/calendar-meetings`, {
      data: { title: 'Pricing call', start: inDays(2, 10).toISOString(), end: inDays(2, 11).toISOString() },
    });
    expect(created.status).toBe(201);
    const id = created.body.documentId;
    const linkIn = async (api: typeof t.api) => {
      const res = await api.get('/agenda/events', {
        start: inDays(1).toISOString(),
        end: inDays(4).toISOString(),
        sources: 'calendar',
      });
      expect(res.status).toBe(200);
      return res.body.data.find((e: any) => e.title === 'Pricing call')?.link;
    };
    const organizer = created.body.organizer;
    expect(organizer).toMatchObject({ documentId: t.membershipId, user: { email: t.user.email } });
    const readable = { type: 'meeting', documentId: id, organizer, status: 'scheduled' };
    expect(await linkIn(t.api)).toEqual(readable);
    expect(await linkIn(admin.api)).toEqual(readable);

    // Not on the board: the meeting's own read is a 404, and the agenda links it by documentId only (as before).
    expect((await member.api.get(`/calendar-meetings/${id}`)).status).toBe(404);
    expect(await linkIn(member.api)).toEqual({ type: 'meeting', documentId: id });
    // On the board, which shows each member only the cards assigned to them: still not readable, still nothing.
    const narrowed = await t.api.put(`/boards/${boardId}`, {
      data: { members: [member.membershipId], boardSettings: { restrictViewToAssignees: true } },
    });
    expect(narrowed.status).toBe(200);
    expect((await member.api.get(`/calendar-meetings/${id}`)).status).toBe(404);
    expect(await linkIn(member.api)).toEqual({ type: 'meeting', documentId: id });
    // The card visible to them: the organizer and status, as the meeting's read gives them.
    const opened = await t.api.put(`/boards/${boardId}`, {
      data: { boardSettings: { restrictViewToAssignees: false } },
    });
    expect(opened.status).toBe(200);
    expect((await member.api.get(`/calendar-meetings/${id}`)).body).toMatchObject({
      organizer,
      status: 'scheduled',
    });
    expect(await linkIn(member.api)).toEqual(readable);

    // Cancelled, while a copy of its event is still in a calendar (an attendee's client kept it): the status says so.
    expect((await t.api.delete(`/calendar-meetings/${id}`)).status).toBe(200);
    const stamp = (d: Date) => `${d.toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;
    await world.radicale.putObject(
      calendar,
      'kept.ics',
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//test//EN',
        'BEGIN:VEVENT',
        `UID:${created.body.uid}`,
        `DTSTAMP:${stamp(new Date())}`,
        `DTSTART:${stamp(inDays(2, 10))}`,
        `DTEND:${stamp(inDays(2, 11))}`,
        'SUMMARY:Pricing call',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n'),
    );
    expect(await linkIn(member.api)).toEqual({ ...readable, status: 'cancelled' });
  });

  test('a viewer cannot schedule; a plan without the agenda feature gets 403 naming it', async () => {
    const t = await newTenant(world.app);
    const { boardId, cardId } = await boardAndCard(t.api);
    const viewer = await addMember(t, 'viewer');
    const viewerApi = apiClient(world.app, {
      authorization: `Bearer ${viewer.user.jwt}`,
      'x-tenant-id': t.slug,
    });
    await connectCalendar(viewerApi, world.radicale);
    const body = { title: 'x', start: inDays(2, 10).toISOString(), end: inDays(2, 11).toISOString() };
    const refused = await viewerApi.post(`/boards/${boardId}/cards/${cardId}/calendar-meetings`, {
      data: body,
    });
    expect(refused.status).toBe(403);

    await setOrganizationPlan(world.db.system, t.slug, 'free');
    for (const res of [
      await t.api.get('/agenda/events'),
      await t.api.get('/calendar-connections'),
      await t.api.get(`/boards/${boardId}/cards/${cardId}/calendar-meetings`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.details).toMatchObject({ feature: 'agenda', plan: 'free' });
    }
  });
});
