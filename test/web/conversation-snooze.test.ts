import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMember, newTenant, type Tenant, type TestUser } from '../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from '../modules/inbox/helpers.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * Snoozing a WhatsApp conversation until a date in pt-BR, in a real Chromium against the real, listening service:
 * "Adiar" with a quick choice (tomorrow 9:00 in the browser's zone) and with a date and time of one's own (a past one
 * refused at the field, nothing sent), each read back through the API (`status`, `snoozedUntil`); the header says
 * "Adiada até <date>", the list's status filter finds the conversation under "Adiada", "Reabrir" opens it again. A
 * viewer sees the date but no action. The dialog audited on a desktop and a 390 px phone.
 */

/** The day `n` days from today in São Paulo (the browser's zone here), `YYYY-MM-DD`, and as pt-BR types it. */
const spDay = (n: number) => new Date(Date.now() - 3 * 3_600_000 + n * 86_400_000).toISOString().slice(0, 10);
const typed = (ymd: string) => ymd.split('-').reverse().join('/');
const at = (ymd: string, hhmm: string) => new Date(`${ymd}T${hhmm}:00-03:00`).getTime();

describe.skipIf(!hasChromium)('web app: snoozing a conversation (Chromium)', () => {
  let env: MessagingEnv;
  let base: string;
  let t: Tenant;
  let viewer: TestUser;
  let conv: { id: number };
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const stored = async () => (await t.api.get(`/conversations/${conv.id}`)).body;
  const header = () => page.locator('[data-testid=conversation] .thread-head');
  const dialog = () => page.locator('dialog[open]');
  const signedIn = (user: TestUser, phone = false) => signedInPage(browser, base, user, t.slug, { phone });

  beforeAll(async () => {
    await ensureWebBuild();
    env = await startMessaging();
    base = await env.app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const from = waNumber();
    await inbound(env, channel, [{ from, name: 'Carla Souza', text: 'Me chama semana que vem' }]);
    conv = await conversationOf(t.api, from);
    viewer = (await addMember(t, 'viewer')).user;
    browser = await launchBrowser();
    page = await signedIn(t.user);
    errors = watchConsole(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await env?.close();
  });

  test('a quick choice snoozes until tomorrow 9:00 local; the list finds it under "Adiada"; "Reabrir" opens it', async () => {
    await page.goto(`${base}/app/inbox/${conv.id}`);
    await header().getByRole('button', { name: 'Adiar' }).click();
    await dialog().getByRole('heading', { name: 'Adiar conversa' }).waitFor();
    const tomorrow = spDay(1);
    const choice = dialog().locator('[data-testid=snooze-choices] li', { hasText: 'Amanhã às 9h' });
    expect(await choice.textContent()).toContain(`${typed(tomorrow)}`);
    await choice.getByRole('button', { name: 'Amanhã às 9h' }).click();
    await dialog().waitFor({ state: 'detached' });
    const until = header().locator('[data-testid=snoozed-until]');
    await until.waitFor();
    expect(await until.textContent()).toMatch(new RegExp(`^Adiada até ${typed(tomorrow)},? 09:00$`));
    expect(await header().locator('select[name=conversation-status]').inputValue()).toBe('snoozed');
    const s = await stored();
    expect(s.status).toBe('snoozed');
    expect(new Date(s.snoozedUntil).getTime()).toBe(at(tomorrow, '09:00'));
    await shot(page, 'web-140-snoozed');

    // The list's status filter (GET /api/conversations?status=snoozed).
    const item = page.locator(`[data-conversation-id="${conv.id}"]`);
    await page.locator('select[name=status]').selectOption('open');
    await item.waitFor({ state: 'detached' });
    await page.locator('select[name=status]').selectOption('snoozed');
    await item.waitFor();
    expect(await item.textContent()).toContain('Adiada');

    await header().getByRole('button', { name: 'Reabrir' }).click();
    await until.waitFor({ state: 'detached' });
    await expect.poll(async () => (await stored()).status).toBe('open');
    expect((await stored()).snoozedUntil).toBeNull();
    expect(await header().getByRole('button', { name: 'Reabrir' }).count()).toBe(0);
  });

  test("a date of one's own: a past one is refused at the field, a future one is saved", async () => {
    await page.goto(`${base}/app/inbox/${conv.id}`);
    await header().getByRole('button', { name: 'Adiar' }).click();
    const date = dialog().locator('input[name=snooze-until]');
    const time = dialog().locator('input[name=snooze-until-time]');
    // The field starts at tomorrow 9:00.
    expect(await date.inputValue()).toBe(typed(spDay(1)));
    expect(await time.inputValue()).toMatch(/^0?9:00$/);
    await date.fill(typed(spDay(-1)));
    await dialog().getByRole('button', { name: 'Adiar até esta data' }).click();
    await dialog().locator('.has-error', { hasText: 'Outra data' }).getByText('deve ser no futuro').waitFor();
    expect(await date.getAttribute('aria-describedby')).toBeTruthy();
    expect((await stored()).status).toBe('open');

    const day = spDay(3);
    await date.fill(typed(day));
    await time.fill('14:30');
    await dialog().getByRole('button', { name: 'Adiar até esta data' }).click();
    await dialog().waitFor({ state: 'detached' });
    await header().locator('[data-testid=snoozed-until]').getByText(typed(day)).waitFor();
    const s = await stored();
    expect(s.status).toBe('snoozed');
    expect(new Date(s.snoozedUntil).getTime()).toBe(at(day, '14:30'));
  });

  test('a viewer sees the date, and neither "Adiar" nor "Reabrir"', async () => {
    const p = await signedIn(viewer);
    await p.goto(`${base}/app/inbox/${conv.id}`);
    const head = p.locator('[data-testid=conversation] .thread-head');
    await head
      .locator('[data-testid=snoozed-until]')
      .getByText(typed(spDay(3)))
      .waitFor();
    expect(await head.getByRole('button', { name: 'Adiar' }).count()).toBe(0);
    expect(await head.getByRole('button', { name: 'Reabrir' }).count()).toBe(0);
    await p.context().close();
  });

  test('the snooze dialog, audited on a desktop and a phone', async () => {
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    for (const phone of [false, true]) {
      const p = await signedIn(t.user, phone);
      const consoleErrors = watchConsole(p);
      const name = `web-140-snooze-${phone ? 'phone' : 'desktop'}`;
      await p.goto(`${base}/app/inbox/${conv.id}`);
      const head = p.locator('[data-testid=conversation] .thread-head');
      await head.locator('[data-testid=snoozed-until]').waitFor();
      await head.getByRole('button', { name: 'Adiar' }).click();
      await p.locator('dialog[open] [data-testid=snooze-choices]').waitFor();
      const found = await auditPage(p, { english, allowed: [t.user.username, t.slug], phone });
      if (found.length) problems[name] = found;
      await shot(p, name);
      expect(consoleErrors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 90_000);

  test('no console errors on the way', () => {
    expect(errors).toEqual([]);
  });
});
