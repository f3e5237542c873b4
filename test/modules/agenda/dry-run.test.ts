import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newTenant } from '../../helpers/app.js';
import { dryRunChangesNothing, sameFailure } from '../../helpers/dry-run.js';
import { radicaleMissing } from '../../helpers/peers/radicale.js';
import { boardAndCard, connectCalendar, inDays, startAgendaWorld } from './fixture.js';

/**
 * Dry runs of meetings (docs/dry-run.md): the card, calendar and times are checked, nothing is written to the
 * database or the organizer's CalDAV calendar, and no invitation is queued.
 */

const missing = radicaleMissing();
let world: Awaited<ReturnType<typeof startAgendaWorld>>;

beforeAll(async () => {
  if (missing) return;
  world = await startAgendaWorld();
});
afterAll(async () => world?.close());

const basic = (u: { username: string; password: string }) =>
  `Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}`;

const guest = () => `${Math.random().toString(36).slice(2, 10)}@guest.example`;

describe.skipIf(!!missing)(`meeting dry runs${missing ? ` (${missing})` : ''}`, () => {
  test('schedule, edit and cancel: the would-be meeting, the calendar untouched, no invitation queued', async () => {
    const t = await newTenant(world.app);
    const { user } = await connectCalendar(t.api, world.radicale);
    const { boardId, cardId } = await boardAndCard(t.api);
    const maria = guest();
    const start = inDays(3, 14);
    const end = new Date(start.getTime() + 30 * 60_000);
    const input = {
      data: {
        title: 'Proposal review',
        start: start.toISOString(),
        end: end.toISOString(),
        attendees: [{ email: maria }],
      },
    };
    const url = `/boards/${boardId}/cards/${cardId}/calendar-meetings`;
    const objectOf = (uid: string) =>
      `${world.radicale.url}/${user.username}/calendar/${encodeURIComponent(uid)}.ics`;

    const dry = await dryRunChangesNothing(t, (q) => t.api.post(`${url}${q}`, input), [maria]);
    expect(dry.body).toMatchObject({
      title: 'Proposal review',
      status: 'scheduled',
      sequence: 0,
      card: { documentId: cardId },
    });
    expect((await fetch(objectOf(dry.body.uid), { headers: { authorization: basic(user) } })).status).toBe(
      404,
    );
    expect((await t.api.get(url)).body.data).toEqual([]);

    const backwards = await sameFailure(
      t,
      (q) =>
        t.api.post(`${url}${q}`, {
          data: { ...input.data, end: start.toISOString(), start: end.toISOString() },
        }),
      [maria],
    );
    expect(backwards.dry.status).toBe(400);
    const badDate = await sameFailure(t, (q) =>
      t.api.post(`${url}${q}`, { data: { ...input.data, start: 'next week' } }),
    );
    expect(badDate.dry.status).toBe(400);

    const real = await t.api.post(url, input);
    expect(real.status).toBe(201);
    const stored = async () =>
      (await fetch(objectOf(real.body.uid), { headers: { authorization: basic(user) } })).text();
    const ics = await stored();
    const later = new Date(start.getTime() + 3_600_000);
    const edited = await dryRunChangesNothing(
      t,
      (q) =>
        t.api.patch(`/calendar-meetings/${real.body.documentId}${q}`, {
          data: {
            title: 'Moved review',
            start: later.toISOString(),
            end: new Date(later.getTime() + 1_800_000).toISOString(),
          },
        }),
      [maria],
    );
    expect(edited.body).toMatchObject({ title: 'Moved review', sequence: 1, start: later.toISOString() });
    const cancelled = await dryRunChangesNothing(
      t,
      (q) => t.api.delete(`/calendar-meetings/${real.body.documentId}${q}`),
      [maria],
    );
    expect(cancelled.body).toMatchObject({ status: 'cancelled', documentId: real.body.documentId });
    expect(await stored()).toBe(ics);
    expect((await t.api.get(`/calendar-meetings/${real.body.documentId}`)).body).toMatchObject({
      status: 'scheduled',
      sequence: 0,
    });
    const gone = await sameFailure(t, (q) => t.api.delete(`/calendar-meetings/zzzzzzzzzzzzzzzzzzzzzzzz${q}`));
    expect(gone.dry.status).toBe(404);

    // Another organization: 404, as for real.
    const other = await newTenant(world.app);
    expect((await other.api.delete(`/calendar-meetings/${real.body.documentId}?dryRun=true`)).status).toBe(
      404,
    );
    // The real cancel afterwards.
    expect((await t.api.delete(`/calendar-meetings/${real.body.documentId}`)).body.status).toBe('cancelled');
  });

  test('connecting a calendar and finding slots reach the CalDAV server: no dry run there', async () => {
    const t = await newTenant(world.app);
    const { boardId, cardId } = await boardAndCard(t.api);
    const res = await t.api.post('/calendar-connections?dryRun=true', {
      data: { provider: 'caldav', url: world.radicale.url, username: 'x', password: 'y' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('dryRun is not supported on this route');
    const slots = await t.api.post(
      `/boards/${boardId}/cards/${cardId}/calendar-meetings/availability?dryRun=true`,
      {
        data: {},
      },
    );
    expect(slots.status).toBe(400);
  });
});
