import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMember, newTenant, type Tenant, type TestUser } from '../helpers/app.js';
import { radicaleMissing } from '../helpers/peers/radicale.js';
import { boardAndCard, connectCalendar, startAgendaWorld } from '../modules/agenda/fixture.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * Editing a meeting from the agenda in pt-BR, end to end against a loopback Radicale (CalDAV): an end before the
 * start refused at the field as the API says; a new title, day, time and attendee saved, the meeting moved to its
 * new day in the agenda; a free slot of the day picked (the meeting's own time is busy); each read back through the
 * API. The agenda with the editor open audited on a desktop and a 390 px phone. In the card drawer the meeting names
 * its organizer, who edits it there; another member of the board sees the name and neither "Editar" nor "Cancelar
 * reunião" (the API lets only the organizer change it), both audited on a desktop and a phone. The agenda follows
 * the same rule: with a calendar both share, each sees the other's meeting with its organizer's name and no action,
 * and "Editar" and "Cancelar reunião" on their own, from the agenda's items (no meeting read by its id).
 */
const noCalDav = radicaleMissing();
if (noCalDav) console.warn(`test/web/agenda-edit: skipped: ${noCalDav}`);

/** The day `n` days from today in São Paulo (the browser's zone here), `YYYY-MM-DD`; the next weekday from there. */
const spDay = (n: number) => new Date(Date.now() - 3 * 3_600_000 + n * 86_400_000).toISOString().slice(0, 10);
const weekday = (n: number) => {
  while ([0, 6].includes(new Date(`${spDay(n)}T12:00:00Z`).getUTCDay())) n++;
  return n;
};
/** The agenda's key of a day section (`2026-12-3`) and the pt-BR date typed in the form (`03/12/2026`). */
const dayKey = (ymd: string) => ymd.split('-').map(Number).join('-');
const typed = (ymd: string) => ymd.split('-').reverse().join('/');
const at = (ymd: string, hhmm: string) => new Date(`${ymd}T${hhmm}:00-03:00`).toISOString();

describe.skipIf(!hasChromium || !!noCalDav)('web app: editing a meeting (Chromium, CalDAV)', () => {
  let world: Awaited<ReturnType<typeof startAgendaWorld>>;
  let base: string;
  let t: Tenant;
  let meetingId: string;
  let deal: { boardId: string; cardId: string };
  let colleague: TestUser;
  let colleagueApi: Awaited<ReturnType<typeof addMember>>['api'];
  let calendar: Awaited<ReturnType<typeof connectCalendar>>['user'];
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const dayA = spDay(weekday(1));
  const dayB = spDay(weekday(weekday(1) + 1));
  const title = 'Apresentação da proposta';
  const dialog = () => page.locator('dialog[open]');
  const stored = async () => (await t.api.get(`/calendar-meetings/${meetingId}`)).body;

  beforeAll(async () => {
    await ensureWebBuild();
    world = await startAgendaWorld();
    base = await world.app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(world.app);
    calendar = (await connectCalendar(t.api, world.radicale)).user;
    const contact = await t.api.post('/contacts', {
      data: { name: 'Compras Acme', email: 'compras@acme.example' },
    });
    const { boardId, cardId } = await boardAndCard(t.api, {
      title: 'Acme — renovação',
      contact: contact.body.documentId,
    });
    const made = await t.api.post(`/boards/${boardId}/cards/${cardId}/calendar-meetings`, {
      data: {
        title,
        start: at(dayA, '10:00'),
        end: at(dayA, '10:30'),
        attendees: [{ email: 'compras@acme.example', name: 'Compras Acme' }],
      },
    });
    expect(made.status).toBe(201);
    meetingId = made.body.documentId;
    deal = { boardId, cardId };
    // A member who sees the board (and its card's meetings) but organizes none of them.
    const m = await addMember(t, 'member');
    colleague = m.user;
    colleagueApi = m.api;
    expect((await t.api.put(`/boards/${boardId}`, { data: { members: [m.membershipId] } })).status).toBe(200);
    browser = await launchBrowser();
    page = await signedIn();
    errors = watchConsole(page, [400]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  const signedIn = (phone = false) => signedInPage(browser, base, t.user, t.slug, { phone });

  /** The agenda's next 30 days, the meeting's editor opened from its item on `day`. */
  async function openEditor(p: Page, day: string, name: string) {
    await p.goto(`${base}/app/agenda`);
    await p.getByLabel('Próximos 30 dias').check();
    const item = p.locator(`[data-day="${dayKey(day)}"] .agenda-item`, { hasText: name });
    await item.getByRole('button', { name: `Editar reunião: ${name}` }).click();
    await p.locator('dialog[open] [data-testid=meeting-card]').getByText('Acme — renovação').waitFor();
  }

  test('an end before the start is refused at the field; title, day, time and attendees are saved and the meeting moves', async () => {
    await openEditor(page, dayA, title);
    const form = dialog().locator('[data-testid=meeting-form]');
    expect(await form.locator('input[name=meeting-title]').inputValue()).toBe(title);
    expect(await form.locator('input[name=meeting-start]').inputValue()).toBe(typed(dayA));
    expect(await form.locator('input[name=meeting-start-time]').inputValue()).toBe('10:00');
    expect(await form.locator('input[name=meeting-attendees]').inputValue()).toBe('compras@acme.example');

    await form.locator('input[name=meeting-end-time]').fill('09:30');
    await form.getByRole('button', { name: 'Salvar alterações' }).click();
    await form.locator('.has-error', { hasText: 'Fim' }).getByText('deve ser depois do início').waitFor();
    expect(await form.locator('input[name=meeting-end]').getAttribute('aria-describedby')).toBeTruthy();
    expect((await stored()).end).toBe(at(dayA, '10:30'));

    await form.locator('input[name=meeting-end-time]').fill('10:45');
    await form.locator('input[name=meeting-title]').fill(`${title} (revisada)`);
    await form.locator('input[name=meeting-start]').fill(typed(dayB));
    await form.locator('input[name=meeting-start-time]').fill('15:00');
    // The end follows the start, keeping the length (45 minutes).
    // (The fields show a new value after the render's effects: polled.)
    await expect.poll(() => form.locator('input[name=meeting-end]').inputValue()).toBe(typed(dayB));
    await expect.poll(() => form.locator('input[name=meeting-end-time]').inputValue()).toBe('15:45');
    await form.locator('input[name=meeting-attendees]').fill('compras@acme.example, financeiro@acme.example');
    await form.locator('input[name=meeting-location]').fill('https://meet.example.com/acme');
    await form.getByRole('button', { name: 'Salvar alterações' }).click();
    await page.locator('.ds-toast', { hasText: 'Reunião alterada' }).waitFor({ timeout: 20_000 });
    await dialog().waitFor({ state: 'detached' });

    const moved = page.locator(`[data-day="${dayKey(dayB)}"] .agenda-item`, {
      hasText: `${title} (revisada)`,
    });
    await moved.getByText('15:00–15:45').waitFor();
    expect(await page.locator(`[data-day="${dayKey(dayA)}"] .agenda-item`, { hasText: title }).count()).toBe(
      0,
    );
    expect(await stored()).toMatchObject({
      title: `${title} (revisada)`,
      start: at(dayB, '15:00'),
      end: at(dayB, '15:45'),
      location: 'https://meet.example.com/acme',
      attendees: [
        { email: 'compras@acme.example', name: 'Compras Acme' },
        { email: 'financeiro@acme.example', name: null },
      ],
      sequence: 1,
      status: 'scheduled',
    });
    await shot(page, 'agenda-edit-moved');
  });

  test("a free slot of the day is picked (the meeting's own time is busy) and saved", async () => {
    const name = `${title} (revisada)`;
    await openEditor(page, dayB, name);
    const slots = dialog().locator('[data-testid=free-slots]');
    await slots.getByRole('button', { name: 'Ver horários livres do dia' }).click();
    await slots.getByRole('button', { name: 'Marcar às 09:00' }).waitFor();
    // Busy 15:00–15:45: no 45-minute slot starts from 14:30 to 15:30.
    const times = await slots.locator('li button').allTextContents();
    expect(times).toContain('14:00');
    expect(times).not.toContain('14:30');
    expect(times).not.toContain('15:30');
    expect(times).toContain('16:00');
    await slots.getByRole('button', { name: 'Marcar às 11:00' }).click();
    const form = dialog().locator('[data-testid=meeting-form]');
    await expect.poll(() => form.locator('input[name=meeting-start-time]').inputValue()).toBe('11:00');
    await expect.poll(() => form.locator('input[name=meeting-end-time]').inputValue()).toBe('11:45');
    await form.getByRole('button', { name: 'Salvar alterações' }).click();
    await dialog().waitFor({ state: 'detached', timeout: 20_000 });
    await page
      .locator(`[data-day="${dayKey(dayB)}"] .agenda-item`, { hasText: name })
      .getByText('11:00–11:45')
      .waitFor();
    expect(await stored()).toMatchObject({ start: at(dayB, '11:00'), end: at(dayB, '11:45'), sequence: 2 });
  });

  test('the agenda with the editor open, audited on a desktop and a phone', async () => {
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    for (const phone of [false, true]) {
      const p = await signedIn(phone);
      const consoleErrors = watchConsole(p);
      const name = `agenda-edit-${phone ? 'phone' : 'desktop'}`;
      await openEditor(p, dayB, `${title} (revisada)`);
      await p.locator('dialog[open] [data-testid=free-slots] button').first().click();
      await p.locator('dialog[open] [data-testid=free-slots] li').first().waitFor();
      const found = await auditPage(p, { english, allowed: [t.user.username, t.slug], phone });
      if (found.length) problems[name] = found;
      await shot(p, name);
      expect(consoleErrors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 90_000);

  test('the card drawer: the organizer edits the meeting there; another member sees who organizes it, and no action', async () => {
    const name = `${title} (revisada)`;
    const drawerItem = (p: Page) => p.locator('[data-testid=card-meetings] li', { hasText: name });
    await page.goto(`${base}/app/boards/${deal.boardId}/cards/${deal.cardId}`);
    const item = drawerItem(page);
    await item
      .locator('[data-testid=meeting-organizer]')
      .getByText(`organizada por ${t.user.username}`)
      .waitFor();
    await item.getByRole('button', { name: 'Cancelar reunião' }).waitFor();
    // The agenda's edit already wrote one such line in the card's history; the drawer's edit adds one more, shown
    // without a reload.
    const changed = page
      .locator('[data-testid=card-drawer]')
      .getByText(`Reunião alterada: “${name}” (${typed(dayB)}, 11:00)`);
    await changed.first().waitFor();
    const linesBefore = await changed.count();
    await item.getByRole('button', { name: `Editar reunião: ${name}` }).click();
    const form = dialog().locator('[data-testid=meeting-form]');
    await form.locator('[data-testid=meeting-card]').getByText('Acme — renovação').waitFor();
    await form.locator('input[name=meeting-location]').fill('Sala 2, Rua das Flores 100');
    await form.getByRole('button', { name: 'Salvar alterações' }).click();
    await page.locator('.ds-toast', { hasText: 'Reunião alterada' }).waitFor({ timeout: 20_000 });
    await dialog().waitFor({ state: 'detached' });
    expect(await stored()).toMatchObject({
      title: name,
      location: 'Sala 2, Rua das Flores 100',
      start: at(dayB, '11:00'),
      sequence: 3,
      status: 'scheduled',
    });
    // The card's history says it in pt-BR (the service's system comment is English).
    await expect.poll(() => changed.count(), { timeout: 10_000 }).toBe(linesBefore + 1);
    await shot(page, 'web-140-meetings-organizer');

    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    for (const [who, user, phone] of [
      ['organizer', t.user, true],
      ['member', colleague, false],
      ['member', colleague, true],
    ] as const) {
      const p = await signedInPage(browser, base, user, t.slug, { phone });
      const consoleErrors = watchConsole(p);
      await p.goto(`${base}/app/boards/${deal.boardId}/cards/${deal.cardId}`);
      const it = drawerItem(p);
      await it
        .locator('[data-testid=meeting-organizer]')
        .getByText(`organizada por ${t.user.username}`)
        .waitFor();
      if (who === 'member') {
        expect(await it.getByRole('button').count()).toBe(0);
      } else await it.getByRole('button', { name: 'Cancelar reunião' }).waitFor();
      const label = `web-140-meetings-${who}${phone ? '-phone' : ''}`;
      await it.scrollIntoViewIfNeeded();
      const found = await auditPage(p, {
        english,
        allowed: [t.user.username, colleague.username, t.slug],
        phone,
      });
      if (found.length) problems[label] = found;
      if (who === 'member' || phone) await shot(p, label);
      expect(consoleErrors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 120_000);

  test("the agenda offers a meeting's actions to its organizer only (a calendar both share)", async () => {
    const mine = `${title} (revisada)`;
    const theirs = 'Alinhamento interno';
    // The colleague connects the same calendar (a shared team calendar) and organizes a meeting on the same card.
    const shared = await colleagueApi.post('/calendar-connections', {
      data: {
        provider: 'caldav',
        url: world.radicale.url,
        username: calendar.username,
        password: calendar.password,
      },
    });
    expect(shared.status).toBe(201);
    const made = await colleagueApi.post(`/boards/${deal.boardId}/cards/${deal.cardId}/calendar-meetings`, {
      data: { title: theirs, start: at(dayB, '16:00'), end: at(dayB, '16:30'), attendees: [] },
    });
    expect(made.status).toBe(201);
    // The API refuses the owner a change of the colleague's meeting (and the colleague one of the owner's).
    expect(
      (await t.api.patch(`/calendar-meetings/${made.body.documentId}`, { data: { title: 'x' } })).status,
    ).toBe(403);
    expect(
      (await colleagueApi.request({ method: 'DELETE', url: `/api/calendar-meetings/${meetingId}` })).status,
    ).toBe(403);

    for (const [who, user, own, other, organizer] of [
      ['organizer', t.user, mine, theirs, colleague.username],
      ['colleague', colleague, theirs, mine, t.user.username],
    ] as const) {
      const p = await signedInPage(browser, base, user, t.slug);
      const consoleErrors = watchConsole(p);
      // The agenda's items carry their meetings' organizer and status: no meeting is read by its id.
      const meetingReads: string[] = [];
      p.on('request', (r) => {
        if (r.method() === 'GET' && /^\/api\/calendar-meetings\/[^/]+$/.test(new URL(r.url()).pathname))
          meetingReads.push(r.url());
      });
      await p.goto(`${base}/app/agenda`);
      await p.getByLabel('Próximos 30 dias').check();
      const item = (name: string) =>
        p.locator(`[data-day="${dayKey(dayB)}"] .agenda-item`, { hasText: name });
      await item(own)
        .getByRole('button', { name: `Editar reunião: ${own}` })
        .waitFor();
      await item(own)
        .getByRole('button', { name: `Cancelar reunião: ${own}` })
        .waitFor();
      // The other's meeting names its organizer and has no action.
      await item(other)
        .locator('[data-testid=meeting-organizer]')
        .getByText(`organizada por ${organizer}`)
        .waitFor();
      expect(await item(other).getByRole('button').count()).toBe(0);
      expect(meetingReads).toEqual([]);
      if (who === 'colleague') await shot(p, 'agenda-meeting-of-another');
      expect(consoleErrors).toEqual([]);
      await p.context().close();
    }
  }, 90_000);

  test('no console errors on the way', () => {
    expect(errors).toEqual([]);
  });
});
