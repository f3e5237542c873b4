import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMember, apiClient, newTenant } from '../../helpers/app.js';
import { radicaleMissing, startRadicale } from '../../helpers/peers/radicale.js';
import { boardAndCard, connectCalendar, inDays, startAgendaWorld } from './fixture.js';

const missing = radicaleMissing();
let world: Awaited<ReturnType<typeof startAgendaWorld>>;

beforeAll(async () => {
  if (!missing) world = await startAgendaWorld();
});
afterAll(async () => {
  await world?.close();
});

const stamp = (d: Date) => `${d.toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;

function vevent(uid: string, summary: string, start: Date, end: Date, extra: string[] = []) {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    `DTSTAMP:${stamp(new Date())}`,
    `DTSTART:${stamp(start)}`,
    `DTEND:${stamp(end)}`,
    `SUMMARY:${summary}`,
    ...extra,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

const window = (from: Date, to: Date, extra: Record<string, string> = {}) => ({
  start: from.toISOString(),
  end: to.toISOString(),
  ...extra,
});

describe.skipIf(!!missing)(`GET /agenda/events${missing ? ` (${missing})` : ''}`, () => {
  test('merges calendar events (recurring expanded in the window), tasks and card due dates, sorted', async () => {
    const t = await newTenant(world.app);
    const { user } = await connectCalendar(t.api, world.radicale);
    const base = inDays(2, 9);
    // Daily stand-up, 10 occurrences from base, one excluded (EXDATE), one moved (RECURRENCE-ID override).
    const h = 3_600_000;
    await world.radicale.putObject(
      user,
      'standup.ics',
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//test//EN',
        'BEGIN:VEVENT',
        'UID:standup-1',
        `DTSTAMP:${stamp(new Date())}`,
        `DTSTART:${stamp(base)}`,
        `DTEND:${stamp(new Date(base.getTime() + h / 4))}`,
        'RRULE:FREQ=DAILY;COUNT=10',
        `EXDATE:${stamp(new Date(base.getTime() + 86_400_000))}`,
        'SUMMARY:Stand-up',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:standup-1',
        `DTSTAMP:${stamp(new Date())}`,
        `RECURRENCE-ID:${stamp(new Date(base.getTime() + 2 * 86_400_000))}`,
        `DTSTART:${stamp(new Date(base.getTime() + 2 * 86_400_000 + 2 * h))}`,
        `DTEND:${stamp(new Date(base.getTime() + 2 * 86_400_000 + 2 * h + h / 4))}`,
        'SUMMARY:Stand-up (moved)',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n'),
    );
    await world.radicale.putObject(
      user,
      'lunch.ics',
      vevent('lunch-1', 'Lunch', inDays(3, 12), inDays(3, 13)),
    );
    await world.radicale.putObject(
      user,
      'far.ics',
      vevent('far-1', 'Far away', inDays(40, 12), inDays(40, 13)),
    );
    const task = await t.api.post('/tasks', {
      data: { name: 'Call Ana', dueDate: inDays(2, 15).toISOString() },
    });
    expect(task.status).toBe(201);
    const { cardId } = await boardAndCard(t.api, { dueDate: inDays(4, 11).toISOString() });

    // Window: the first five days from base (stand-ups on days 0, 2 (moved), 3, 4; day 1 excluded).
    const res = await t.api.get(
      '/agenda/events',
      window(new Date(base.getTime() - h), new Date(base.getTime() + 5 * 86_400_000 - h)),
    );
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ partial: false, sourceErrors: [] });
    const titles = res.body.data.map((e: any) => `${e.source}:${e.title}`);
    expect(titles.filter((x: string) => x.startsWith('calendar:Stand-up'))).toHaveLength(4);
    expect(titles).toContain('calendar:Stand-up (moved)');
    expect(titles).toContain('calendar:Lunch');
    expect(titles).not.toContain('calendar:Far away');
    expect(res.body.data.find((e: any) => e.source === 'tasks')).toMatchObject({
      title: 'Call Ana',
      link: { type: 'task', documentId: task.body.documentId },
    });
    expect(res.body.data.find((e: any) => e.source === 'cards')).toMatchObject({
      title: 'Acme deal',
      link: { type: 'card', documentId: cardId },
    });
    const starts = res.body.data.map((e: any) => e.start);
    expect(starts).toEqual([...starts].sort());

    const onlyTasks = await t.api.get('/agenda/events', {
      ...window(new Date(base.getTime() - h), new Date(base.getTime() + 5 * 86_400_000)),
      sources: 'tasks',
    });
    expect(onlyTasks.body.data.map((e: any) => e.source)).toEqual(['tasks']);
  });

  test('the window: end after start, at most 62 days; unknown sources are 400s', async () => {
    const t = await newTenant(world.app);
    const from = inDays(1);
    expect((await t.api.get('/agenda/events', window(from, from))).status).toBe(400);
    expect((await t.api.get('/agenda/events', window(from, inDays(-1)))).status).toBe(400);
    const long = await t.api.get(
      '/agenda/events',
      window(from, new Date(from.getTime() + 62 * 86_400_000 + 1000)),
    );
    expect(long.status).toBe(400);
    expect(long.body.error.message).toMatch(/62 days/);
    expect(
      (await t.api.get('/agenda/events', window(from, new Date(from.getTime() + 62 * 86_400_000)))).status,
    ).toBe(200);
    expect(
      (await t.api.get('/agenda/events', { ...window(from, inDays(3)), sources: 'tasks,mail' })).status,
    ).toBe(400);
    expect(
      (await t.api.get('/agenda/events', { start: 'yesterday', end: inDays(2).toISOString() })).status,
    ).toBe(400);
  });

  test('no connected calendar: the agenda still answers without it; asking for the calendar is a 422', async () => {
    const t = await newTenant(world.app);
    const res = await t.api.get('/agenda/events', window(inDays(0), inDays(5)));
    expect(res.status).toBe(200);
    expect(res.body.meta.partial).toBe(false);
    const asked = await t.api.get('/agenda/events', { ...window(inDays(0), inDays(5)), sources: 'calendar' });
    expect(asked.status).toBe(422);
    expect(asked.body.error.message).toMatch(/calendar-connections/);
  });

  test('an unreachable calendar gives a partial agenda (sourceErrors), not an error', async () => {
    const t = await newTenant(world.app);
    const other = await startRadicale();
    await connectCalendar(t.api, other);
    await other.stop();
    await t.api.post('/tasks', { data: { name: 'Still here', dueDate: inDays(1, 12).toISOString() } });
    const res = await t.api.get('/agenda/events', window(inDays(0), inDays(5)));
    expect(res.status).toBe(200);
    expect(res.body.meta.partial).toBe(true);
    expect(res.body.meta.sourceErrors).toEqual([{ source: 'calendar', message: expect.any(String) }]);
    expect(res.body.data.map((e: any) => e.title)).toEqual(['Still here']);
  });

  test('a calendar server that stops answering makes the agenda partial within the deadline', async () => {
    const t = await newTenant(world.app);
    // A proxy in front of Radicale that answers while connecting, then hangs every request.
    let hang = false;
    const proxy = createServer(async (req, res) => {
      if (hang) return;
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const upstream = await fetch(`${world.radicale.url}${req.url}`, {
        method: req.method,
        headers: Object.fromEntries(
          ['authorization', 'content-type', 'depth', 'if-match', 'if-none-match'].flatMap((h) =>
            typeof req.headers[h] === 'string' ? [[h, req.headers[h] as string]] : [],
          ),
        ),
        body: chunks.length ? Buffer.concat(chunks) : undefined,
        redirect: 'manual',
      });
      const headers = Object.fromEntries(
        [...upstream.headers].filter(
          ([h]) => !['content-length', 'content-encoding', 'transfer-encoding'].includes(h),
        ),
      );
      res.writeHead(upstream.status, headers);
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      await connectCalendar(t.api, { ...world.radicale, url });
      hang = true;
      const began = Date.now();
      const res = await t.api.get('/agenda/events', window(inDays(0), inDays(5)));
      expect(res.status).toBe(200);
      expect(res.body.meta.partial).toBe(true);
      expect(res.body.meta.sourceErrors[0].source).toBe('calendar');
      expect(Date.now() - began).toBeLessThan(15_000);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  test("a user never sees another user's calendar events; another organization sees none of the tasks or cards", async () => {
    const t = await newTenant(world.app);
    const { user } = await connectCalendar(t.api, world.radicale);
    await world.radicale.putObject(
      user,
      'private.ics',
      vevent('private-1', 'Doctor', inDays(1, 10), inDays(1, 11)),
    );
    await t.api.post('/tasks', { data: { name: 'Org task', dueDate: inDays(1, 12).toISOString() } });
    await boardAndCard(t.api, { dueDate: inDays(1, 14).toISOString() });
    const w = window(inDays(0), inDays(3));
    expect((await t.api.get('/agenda/events', w)).body.data.map((e: any) => e.title)).toContain('Doctor');

    const admin = await addMember(t, 'admin');
    const adminApi = apiClient(world.app, {
      authorization: `Bearer ${admin.user.jwt}`,
      'x-tenant-id': t.slug,
    });
    const seen = (await adminApi.get('/agenda/events', w)).body.data.map((e: any) => e.title);
    expect(seen).not.toContain('Doctor');
    expect(seen).toEqual(expect.arrayContaining(['Org task', 'Acme deal']));

    const other = await newTenant(world.app);
    const theirs = await other.api.get('/agenda/events', w);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
  });
});

describe.skipIf(!!missing)(`availability${missing ? ` (${missing})` : ''}`, () => {
  test('free slots skip busy events and stay inside working hours in the time zone', async () => {
    const t = await newTenant(world.app);
    const { user } = await connectCalendar(t.api, world.radicale);
    const { boardId, cardId } = await boardAndCard(t.api);
    // A weekday at least two days ahead (Asia/Tokyo is UTC+9 all year: 09:00–18:00 local = 00:00–09:00 UTC).
    let d = inDays(2, 0);
    while ([0, 6].includes(d.getUTCDay())) d = new Date(d.getTime() + 86_400_000);
    const at = (hourUtc: number, min = 0) => new Date(d.getTime() + hourUtc * 3_600_000 + min * 60_000);
    await world.radicale.putObject(user, 'busy.ics', vevent('busy-1', 'Busy', at(1), at(3)));
    await world.radicale.putObject(
      user,
      'free.ics',
      vevent('free-1', 'Transparent', at(4), at(5), ['TRANSP:TRANSPARENT']),
    );
    const url = `/boards/${boardId}/cards/${cardId}/calendar-meetings/availability`;
    const res = await t.api.post(url, {
      start: at(0).toISOString(),
      end: at(24).toISOString(),
      durationMinutes: 60,
      timeZone: 'Asia/Tokyo',
      stepMinutes: 60,
    });
    expect(res.status).toBe(200);
    expect(res.body.timeZone).toBe('Asia/Tokyo');
    expect(res.body.slots.map((s: any) => s.start)).toEqual(
      [0, 3, 4, 5, 6, 7, 8].map((h) => at(h).toISOString()),
    );
    expect(res.body.busy).toEqual([{ start: at(1).toISOString(), end: at(3).toISOString() }]);

    // Without timeZone: the organization's (its default, America/Sao_Paulo, UTC−3 all year since 2019).
    const orgZone = await t.api.post(url, {
      start: at(0).toISOString(),
      end: at(24).toISOString(),
      durationMinutes: 60,
      stepMinutes: 60,
    });
    expect(orgZone.body.timeZone).toBe('America/Sao_Paulo');
    expect(orgZone.body.slots[0].start).toBe(at(12).toISOString());

    const bad = await t.api.post(url, {
      start: at(0).toISOString(),
      end: at(24).toISOString(),
      durationMinutes: 30,
      timeZone: 'Mars/Olympus',
    });
    expect(bad.status).toBe(400);
    const other = await newTenant(world.app);
    expect(
      (
        await other.api.post(url, {
          start: at(0).toISOString(),
          end: at(24).toISOString(),
          durationMinutes: 30,
        })
      ).status,
    ).toBe(404);
    const noCalendar = await newTenant(world.app);
    const own = await boardAndCard(noCalendar.api);
    const refused = await noCalendar.api.post(
      `/boards/${own.boardId}/cards/${own.cardId}/calendar-meetings/availability`,
      {
        start: at(0).toISOString(),
        end: at(24).toISOString(),
        durationMinutes: 30,
      },
    );
    expect(refused.status).toBe(422);
  });
});
