import type { FastifyInstance } from 'fastify';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { startJobs } from '../../src/workers.js';
import { addMember, apiClient, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * The notifications bell, in pt-BR, end to end: Ana (the owner) mentions Bruno (a member of the board) in a comment
 * on "Proposta Globex" through the API; Bruno signs in and the header's bell says "1" (its name "Notificações, 1
 * não lida"); the panel words the notification from its type ("Ana Souza mencionou você em «Proposta Globex»", the
 * comment's excerpt, marked "Não lida"); a click marks it read (read back through the API) and opens the card's
 * drawer on its board's Kanban, and the badge is gone; two more are read at once with "Marcar todas como lidas";
 * past 9 the badge says "9+", 20 a page with "Ver mais" for the rest, and the English words in English; the panel
 * audited open on a desktop and a 390 px phone; a task reminder (made by the service's own reminder job) reads
 * "Lembrete da tarefa «…»" and leads to the tasks page; one arriving between two pages is listed once, and the focus
 * stays in the panel when "Ver mais" and "Marcar todas como lidas" go.
 */
describe.skipIf(!hasChromium)('web app: the notifications bell (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let browser: Browser;
  let bruno: Awaited<ReturnType<typeof addMember>>;
  let boardId: string;
  let boardName: string;
  let cardId: string;

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    expect((await t.userApi.put('/users/me', { name: 'Ana Souza' })).status).toBe(200);
    bruno = await addMember(t, 'member');
    expect((await bruno.api.put('/users/me', { name: 'Bruno Lima' })).status).toBe(200);
    const pipeline = await createPipeline(t.api);
    boardId = pipeline.boardId;
    boardName = pipeline.board.name;
    // Bruno sees the board (a mention of someone who cannot open the card notifies nobody).
    expect((await t.api.put(`/boards/${boardId}`, { data: { members: [bruno.membershipId] } })).status).toBe(
      200,
    );
    cardId = (await createCard(t.api, boardId, { title: 'Proposta Globex' })).documentId;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** Ana's comment on the card mentioning Bruno, through the API. */
  async function mention(content: string) {
    const res = await t.api.post(`/boards/${boardId}/cards/${cardId}/comments`, {
      data: { content, mentions: [bruno.membershipId] },
    });
    expect(res.status).toBe(201);
  }
  const unreadTotal = async () => {
    const res = await bruno.api.get('/notifications?unread=true&pagination[pageSize]=1');
    expect(res.status).toBe(200);
    return res.body.meta.pagination.total as number;
  };
  const signedIn = (phone = false) => signedInPage(browser, base, bruno.user, t.slug, { phone });
  const text = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\u00a0/g, ' ');
  const bell = (p: Page) => p.getByTestId('notification-bell');
  const bellName = (p: Page) => bell(p).getAttribute('aria-label');
  async function openPanel(p: Page) {
    await bell(p).click();
    const panel = p.getByRole('dialog', { name: 'Notificações' });
    await panel.locator('[data-testid=notifications] li').first().waitFor();
    return panel;
  }

  test('a mention shows on the bell; opening it marks it read and opens the card’s drawer', async () => {
    await mention('@Bruno Lima veja a proposta, por favor.');
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.getByRole('button', { name: 'Notificações, 1 não lida' }).waitFor();
    expect(await text(bell(p).locator('.bell-count'))).toBe('1');

    const panel = await openPanel(p);
    const items = panel.locator('[data-testid=notifications] li');
    expect(await items.count()).toBe(1);
    const item = items.first();
    const link = item.getByRole('link', { name: /Ana Souza mencionou você em «Proposta Globex»/ });
    expect(await text(link.locator('.notification-sentence'))).toBe(
      'Ana Souza mencionou você em «Proposta Globex»',
    );
    expect(await text(link.locator('.notification-body'))).toBe('@Bruno Lima veja a proposta, por favor.');
    // Unread: said in words, not only by its colour; the time as pt-BR writes it.
    expect(await text(link.locator('.ds-badge'))).toBe('Não lida');
    expect(await item.getAttribute('class')).toBe('unread');
    expect(await text(link.locator('time'))).toMatch(/^\d{2}\/\d{2}\/\d{4},? \d{2}:\d{2}$/);
    expect(await link.getAttribute('href')).toBe(`/app/boards/${boardId}/cards/${cardId}`);
    expect(await text(panel)).not.toContain('mentioned you');
    expect(await panel.getByRole('button', { name: 'Marcar todas como lidas' }).count()).toBe(1);

    await link.click();
    await p.waitForURL(`**/app/boards/${boardId}/cards/${cardId}`);
    const drawer = p.getByTestId('card-drawer');
    await drawer.getByRole('heading', { name: 'Proposta Globex' }).waitFor();
    await panel.waitFor({ state: 'hidden' });
    await expect.poll(() => bellName(p)).toBe('Notificações');
    expect(await bell(p).locator('.bell-count').count()).toBe(0);
    expect(await unreadTotal()).toBe(0);
    const [read] = (await bruno.api.get('/notifications')).body.data;
    expect(read).toMatchObject({
      type: 'comment_mention',
      read: true,
      subject: { kind: 'card', documentId: cardId, boardDocumentId: boardId, label: 'Proposta Globex' },
    });
    // The drawer's title has the focus, not the bell the panel was opened from.
    await expect.poll(() => p.evaluate(() => document.activeElement?.id)).toBe('drawer-title');
    expect(errors).toEqual([]);
    await p.context().close();
  }, 120_000);

  test('two more are read at once with “Marcar todas como lidas”; Escape gives the focus back to the bell', async () => {
    await mention('@Bruno Lima o contrato chegou.');
    await mention('@Bruno Lima podemos fechar hoje?');
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.getByRole('button', { name: 'Notificações, 2 não lidas' }).waitFor();
    expect(await text(bell(p).locator('.bell-count'))).toBe('2');
    const panel = await openPanel(p);
    const items = panel.locator('[data-testid=notifications] li');
    expect(await items.count()).toBe(3);
    // Newest first.
    expect(await items.locator('.notification-body').allTextContents()).toEqual([
      '@Bruno Lima podemos fechar hoje?',
      '@Bruno Lima o contrato chegou.',
      '@Bruno Lima veja a proposta, por favor.',
    ]);
    expect(await panel.locator('li.unread').count()).toBe(2);
    expect(await panel.getByText('Não lida', { exact: true }).count()).toBe(2);

    await panel.getByRole('button', { name: 'Marcar todas como lidas' }).click();
    await p.locator('.ds-toast', { hasText: 'Todas as notificações foram marcadas como lidas.' }).waitFor();
    await expect.poll(() => panel.locator('li.unread').count()).toBe(0);
    await expect.poll(() => bellName(p)).toBe('Notificações');
    expect(await bell(p).locator('.bell-count').count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Marcar todas como lidas' }).count()).toBe(0);
    expect(await unreadTotal()).toBe(0);

    await p.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
    await expect
      .poll(() => p.evaluate(() => document.activeElement?.getAttribute('data-testid')))
      .toBe('notification-bell');
    expect(errors).toEqual([]);
    await p.context().close();
  }, 120_000);

  test('audited with the panel open on a desktop and a phone', async () => {
    await mention('@Bruno Lima a Globex pediu um desconto de 5%, o que acha?');
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    for (const phone of [false, true]) {
      const p = await signedIn(phone);
      const errors = watchConsole(p);
      await p.getByRole('button', { name: 'Notificações, 1 não lida' }).waitFor();
      const box = (await bell(p).boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(phone ? 390 : 1400);
      if (phone) await shot(p, 'web-170-phone-bell');
      const panel = await openPanel(p);
      expect(await panel.locator('li.unread').count()).toBe(1);
      await p.waitForTimeout(200);
      const found = await auditPage(p, { english, allowed: [boardName], phone });
      if (found.length) problems[phone ? 'phone' : 'desktop'] = found;
      await shot(p, phone ? 'web-170-notifications-phone' : 'web-170-notifications');
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 120_000);

  test('past 9 the badge says 9+; 20 a page and “Ver mais”; in English, English words', async () => {
    for (let i = 1; i <= 20; i++) await mention(`@Bruno Lima item ${i} da proposta.`);
    // 21 unread (one left by the audit), 24 in all.
    expect(await unreadTotal()).toBe(21);
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.getByRole('button', { name: 'Notificações, 21 não lidas' }).waitFor();
    expect(await text(bell(p).locator('.bell-count'))).toBe('9+');
    const panel = await openPanel(p);
    const items = panel.locator('[data-testid=notifications] li');
    expect(await items.count()).toBe(20);
    expect(await text(items.first().locator('.notification-body'))).toBe('@Bruno Lima item 20 da proposta.');
    await panel.getByRole('button', { name: 'Ver mais' }).click();
    await expect.poll(() => items.count()).toBe(24);
    expect(await text(items.last().locator('.notification-body'))).toBe(
      '@Bruno Lima veja a proposta, por favor.',
    );
    expect(await panel.getByRole('button', { name: 'Ver mais' }).count()).toBe(0);
    await p.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });

    await p.getByLabel('Idioma').selectOption('en');
    await p.getByRole('button', { name: 'Notifications, 21 unread' }).waitFor();
    const en = p.getByRole('dialog', { name: 'Notifications' });
    await bell(p).click();
    await en.locator('[data-testid=notifications] li').first().waitFor();
    expect(await text(en.locator('.notification-sentence').first())).toBe(
      'Ana Souza mentioned you in “Proposta Globex”',
    );
    expect(await text(en.locator('.ds-badge').first())).toBe('Unread');
    await en.getByRole('button', { name: 'Mark all as read' }).click();
    await expect.poll(() => bellName(p)).toBe('Notifications');
    expect(await unreadTotal()).toBe(0);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 120_000);

  test('a task reminder reads “Lembrete da tarefa «…»” and leads to the tasks page', async () => {
    // The service's reminder job, run by workers of this test (due in 30 minutes, reminded 60 minutes ahead).
    const { db } = await getApp();
    const config = testConfig({ CRM_TASK_REMINDER_LEAD_MINUTES: 60, CRM_JOBS_POLL_SECONDS: 0.5 });
    const background = await startJobs(config, db, true);
    const withJobs = await buildApp({ config, db, background });
    try {
      await withJobs.ready();
      const api = apiClient(withJobs, { authorization: `Bearer ${t.user.jwt}`, 'x-tenant-id': t.slug });
      const task = await api.post('/tasks', {
        data: {
          name: 'Ligar para a Globex',
          dueDate: new Date(Date.now() + 30 * 60_000).toISOString(),
          assignees: [bruno.membershipId],
        },
      });
      expect(task.status).toBe(201);
      await expect.poll(unreadTotal, { timeout: 30_000 }).toBe(1);
    } finally {
      await withJobs.close();
      await background.jobs.stop();
    }
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.getByRole('button', { name: 'Notificações, 1 não lida' }).waitFor();
    const panel = await openPanel(p);
    const link = panel.getByRole('link', { name: /Lembrete da tarefa «Ligar para a Globex»/ });
    expect(await text(link.locator('.notification-sentence'))).toBe(
      'Lembrete da tarefa «Ligar para a Globex»',
    );
    // The reminder's body is the service's English: not shown.
    expect(await link.locator('.notification-body').count()).toBe(0);
    expect(await text(panel)).not.toContain('Reminder');
    await link.click();
    await p.waitForURL('**/app/tasks');
    await p.getByRole('heading', { name: 'Tarefas' }).first().waitFor();
    await expect.poll(() => bellName(p)).toBe('Notificações');
    expect(await unreadTotal()).toBe(0);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 120_000);

  test('one arriving between pages is listed once; the focus stays in the panel when “Ver mais” and “Marcar todas” go', async () => {
    // One unread when the panel opens ("Marcar todas como lidas" is there).
    await mention('@Bruno Lima antes de abrir o painel.');
    const total = (await bruno.api.get('/notifications?pagination[pageSize]=1')).body.meta.pagination
      .total as number;
    // More than one page, less than two: "Ver mais" brings the last page.
    expect(total).toBeGreaterThan(20);
    expect(total).toBeLessThanOrEqual(40);
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.getByRole('button', { name: 'Notificações, 1 não lida' }).waitFor();
    const panel = await openPanel(p);
    const items = panel.locator('[data-testid=notifications] li');
    expect(await items.count()).toBe(20);
    const last = await items.last().getAttribute('data-notification-id');
    // A new one moves the 20th onto the second page, which "Ver mais" reads by its offset.
    await mention('@Bruno Lima chegou entre as páginas.');
    await panel.getByRole('button', { name: 'Ver mais' }).click();
    await expect.poll(() => panel.getByRole('button', { name: 'Ver mais' }).count()).toBe(0);
    const ids = await items.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-notification-id')));
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id === last)).toHaveLength(1);
    // "Ver mais" is gone with the last page: the first notification it brought has the focus.
    const focused = () =>
      p.evaluate(() => {
        const el = document.activeElement;
        return el?.closest('dialog') ? `${el.tagName}:${el.getAttribute('data-notification-id')}` : 'outside';
      });
    await expect.poll(focused).toBe(`LI:${ids[20]}`);

    // "Marcar todas como lidas" goes with the last unread ones: the focus goes to the first notification.
    await panel.getByRole('button', { name: 'Marcar todas como lidas' }).click();
    await expect.poll(() => panel.getByRole('button', { name: 'Marcar todas como lidas' }).count()).toBe(0);
    await expect.poll(focused).toMatch(/^LI:/);
    expect(await unreadTotal()).toBe(0);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 120_000);
});
