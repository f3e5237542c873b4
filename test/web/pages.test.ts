import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { setOrganizationPlan } from '../../src/modules/organizations/repo.js';
import { addMember, apiClient, newTenant, type Tenant, type TestUser } from '../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../helpers/messaging.js';
import { type Radicale, radicaleMissing, startRadicale } from '../helpers/peers/radicale.js';
import { conversationOf, inbound, inboxSetup, waNumber } from '../modules/inbox/helpers.js';
import { a11y, englishCatalogue, pageTexts, untranslated } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, newPage, shot, watchConsole } from './helpers.js';

/**
 * The inbox, agenda and settings pages in a real Chromium against the real, listening service: WhatsApp
 * conversations come in through the signed webhook of the local WhatsApp peer (as in test/modules/inbox), the
 * agenda writes meetings to a loopback Radicale (CalDAV).
 */
const noCalDav = radicaleMissing();
if (noCalDav) console.warn(`test/web/pages: agenda steps skipped: ${noCalDav}`);

describe.skipIf(!hasChromium)('web app: inbox, agenda, settings (Chromium)', () => {
  let env: MessagingEnv;
  let radicale: Radicale | undefined;
  let base: string;
  let t: Tenant;
  let viewer: TestUser;
  let free: Tenant;
  let channel: string;
  let chatBoard: string;
  let conv: { id: number; card: { documentId: string } | null };
  let stale: { id: number };
  let from: string;
  let otherConversation: number;
  let deal: { boardId: string; cardId: string };
  let browser: Browser;
  let page: Page;
  let errors: string[];

  const signIn = async (p: Page, user: TestUser, slug: string) => {
    await p.goto(`${base}/app/`);
    await p.fill('input[type=email]', user.email);
    await p.fill('input[type=password]', user.password);
    await p.click('button[type=submit]');
    await p.click(`button[data-org="${slug}"]`);
    await p.getByRole('heading', { name: 'Quadros' }).waitFor();
  };

  beforeAll(async () => {
    await ensureWebBuild();
    env = await startMessaging();
    base = await env.app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(env.app);
    const setup = await inboxSetup(env, t, { board: false });
    channel = setup.channel;
    // New conversations become cards on this board (its entry phase).
    const chats = await t.api.post('/boards', {
      data: {
        name: 'Atendimento WhatsApp',
        phases: [{ name: 'Novo contato' }, { name: 'Em conversa' }, { name: 'Fechado' }],
      },
    });
    chatBoard = chats.body.documentId;
    const linked = await t.api.put(`/boards/${chatBoard}/chat-channels`, { data: { channels: [channel] } });
    expect(linked.status).toBe(200);
    from = waNumber();
    await inbound(env, channel, [{ from, name: 'Carla Souza', text: 'Olá, quero um orçamento' }]);
    conv = await conversationOf(t.api, from);
    // A contact who wrote 25 hours ago: the free-text window is closed.
    const old = waNumber();
    await inbound(env, channel, [
      {
        from: old,
        name: 'Rui Antunes',
        text: 'Ainda tem estoque?',
        timestamp: Math.floor(Date.now() / 1000) - 25 * 3600,
      },
    ]);
    stale = await conversationOf(t.api, old);
    // A deal card with a contact, for meetings.
    const board = await t.api.post('/boards', { data: { name: 'Negócios' } });
    const contact = await t.api.post('/contacts', {
      data: { name: 'Acme Ltda', email: 'compras@acme.example' },
    });
    const card = await t.api.post(`/boards/${board.body.documentId}/cards`, {
      data: { title: 'Acme — renovação', contact: contact.body.documentId },
    });
    expect(card.status).toBe(201);
    deal = { boardId: board.body.documentId, cardId: card.body.documentId };
    const at = (days: number, hour: number) => {
      const d = new Date(Date.now() + days * 86_400_000);
      d.setUTCHours(hour, 0, 0, 0);
      return d.toISOString();
    };
    const task = await t.api.post('/tasks', {
      data: { name: 'Ligar para a Acme', card: deal.cardId, dueDate: at(1, 17) },
    });
    expect(task.status).toBe(201);
    await t.api.put(`/boards/${deal.boardId}/cards/${deal.cardId}`, { data: { dueDate: at(2, 15) } });
    viewer = (await addMember(t, 'viewer')).user;
    // Another organization's conversation.
    const other = await newTenant(env.app);
    const otherSetup = await inboxSetup(env, other, { board: false });
    const otherFrom = waNumber();
    await inbound(env, otherSetup.channel, [{ from: otherFrom, text: 'segredo' }]);
    otherConversation = (await conversationOf(other.api, otherFrom)).id;
    // An organization on the free plan (no inbox, no agenda).
    free = await newTenant(env.app);
    await setOrganizationPlan(env.db.system, free.slug, 'free');
    if (!noCalDav) radicale = await startRadicale();
    browser = await launchBrowser();
    page = await newPage(browser);
    // 404: the other organization's conversation; 422: the closed 24-hour window.
    errors = watchConsole(page, [404, 422]);
    page.on('dialog', (d) => void d.accept());
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await env?.close();
    await radicale?.stop();
  });

  test('the inbox lists the conversation; opening it shows the thread and marks it read', async () => {
    await signIn(page, t.user, t.slug);
    await page.getByRole('link', { name: 'Conversas' }).click();
    const item = page.locator(`[data-conversation-id="${conv.id}"]`);
    await item.waitFor();
    expect(await item.textContent()).toContain('Olá, quero um orçamento');
    expect(await item.locator('[data-unread]').count()).toBe(1);
    await item.click();
    expect(page.url()).toBe(`${base}/app/inbox/${conv.id}`);
    const thread = page.locator('[data-testid=messages]');
    await thread.getByText('Olá, quero um orçamento').waitFor();
    await expect.poll(async () => (await t.api.get(`/conversations/${conv.id}`)).body.unreadCount).toBe(0);
    await item.locator('[data-unread]').waitFor({ state: 'detached' });
  });

  test('a reply is sent and appears in the thread; a live inbound message appears without reload', async () => {
    await page.fill('#reply', 'Oi Carla! Envio o orçamento hoje.');
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page
      .locator('[data-testid=messages] .msg.outgoing')
      .getByText('Oi Carla! Envio o orçamento hoje.')
      .waitFor();
    expect(env.wa.messages.at(-1)).toMatchObject({
      to: from,
      payload: { text: { body: 'Oi Carla! Envio o orçamento hoje.' } },
    });
    await page.locator('[data-testid=live]').waitFor();
    const url = page.url();
    await inbound(env, channel, [{ from, name: 'Carla Souza', text: 'Perfeito, obrigada!' }]);
    await page.locator('[data-testid=messages] .msg.incoming').getByText('Perfeito, obrigada!').waitFor();
    expect(page.url()).toBe(url);
    // The list follows too: its preview is the new message.
    await expect
      .poll(() => page.locator(`[data-conversation-id="${conv.id}"]`).textContent())
      .toContain('Perfeito, obrigada!');
    // Read while open: the new message does not leave the conversation unread.
    await expect.poll(async () => (await t.api.get(`/conversations/${conv.id}`)).body.unreadCount).toBe(0);
    await shot(page, '10-inbox');
    await page.getByRole('button', { name: 'Marcar como não lida' }).click();
    await expect.poll(async () => (await t.api.get(`/conversations/${conv.id}`)).body.unreadCount).toBe(1);
    await page.locator(`[data-conversation-id="${conv.id}"] [data-unread]`).waitFor();
    await page.getByRole('button', { name: 'Marcar como lida' }).click();
    await expect.poll(async () => (await t.api.get(`/conversations/${conv.id}`)).body.unreadCount).toBe(0);
  });

  test('a reply whose answer never reached the page, sent again, reaches the person once', async () => {
    const text = 'Segue o orçamento, Carla.';
    const before = env.wa.messages.length;
    const keys: string[] = [];
    const pattern = '**/api/conversations/*/messages';
    await page.route(pattern, async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      keys.push(route.request().headers()['idempotency-key']);
      if (keys.length > 1) return route.fallback();
      // The service takes the first send and answers; the page never sees the answer (a dropped connection).
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.fill('#reply', text);
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.locator('[data-testid=send-error]').waitFor();
    expect(await page.inputValue('#reply')).toBe(text);
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.locator('[data-testid=messages] .msg.outgoing').getByText(text).waitFor();
    await page.unroute(pattern);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^web-[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(env.wa.messages.slice(before).filter((m) => m.payload?.text?.body === text)).toHaveLength(1);
    const thread = await t.api.get(`/conversations/${conv.id}/messages`, { limit: 100 });
    expect(thread.body.data.filter((m: { content: string }) => m.content === text)).toHaveLength(1);
    // The dropped connection is the test's own doing, not the page's.
    const reset = errors.findIndex((e) => e.includes('ERR_CONNECTION_RESET'));
    expect(reset).toBeGreaterThanOrEqual(0);
    errors.splice(reset, 1);
  });

  test('status and assignment change through the thread header; filters narrow the list', async () => {
    await page.selectOption('select[name=conversation-assignee]', { label: t.user.username });
    await expect
      .poll(async () => (await t.api.get(`/conversations/${conv.id}`)).body.assignee?.documentId)
      .toBe(t.membershipId);
    await page.selectOption('select[name=conversation-status]', 'pending');
    await expect.poll(async () => (await t.api.get(`/conversations/${conv.id}`)).body.status).toBe('pending');
    await page.selectOption('select[name=status]', 'open');
    await page.locator(`[data-conversation-id="${stale.id}"]`).waitFor();
    await page.locator(`[data-conversation-id="${conv.id}"]`).waitFor({ state: 'detached' });
    await page.selectOption('select[name=status]', 'all');
    await page.selectOption('select[name=assignee]', 'me');
    await page.locator(`[data-conversation-id="${stale.id}"]`).waitFor({ state: 'detached' });
    await page.locator(`[data-conversation-id="${conv.id}"]`).waitFor();
    await page.selectOption('select[name=assignee]', '');
    await page.fill('input[name=q]', 'Rui');
    await page.locator(`[data-conversation-id="${conv.id}"]`).waitFor({ state: 'detached' });
    await page.locator(`[data-conversation-id="${stale.id}"]`).waitFor();
    await page.fill('input[name=q]', '');
  });

  test('outside the 24-hour window the page offers a template, and free text is refused with the reason', async () => {
    await page.locator(`[data-conversation-id="${stale.id}"]`).click();
    await page.locator('[data-testid=window-closed]').waitFor();
    await page.locator('select[name=template]').waitFor();
    await page.getByRole('button', { name: 'Texto livre' }).click();
    await page.fill('#reply', 'Temos sim!');
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await expect
      .poll(() => page.locator('[data-testid=send-error]').textContent())
      .toContain('Fora da janela de 24 horas');
    await page.locator('select[name=template]').waitFor();
  });

  test("another organization's conversation is not found", async () => {
    await page.goto(`${base}/app/inbox/${otherConversation}`);
    await page.locator('[data-testid=not-found]').waitFor();
    expect(await page.getByText('segredo').count()).toBe(0);
    await page.goto(`${base}/app/inbox/not-a-number`);
    await page.locator('[data-testid=not-found]').waitFor();
  });

  test.skipIf(!!noCalDav)(
    'agenda: connect the calendar, schedule a meeting on a card, see it, cancel it',
    async () => {
      const user = await radicale!.addUser();
      await page.getByRole('link', { name: 'Agenda' }).click();
      await page.locator('[data-testid=agenda-week]').waitFor();
      await page.fill('input[name=caldav-url]', radicale!.url);
      await page.fill('input[name=caldav-username]', user.username);
      await page.fill('input[name=caldav-password]', user.password);
      await page.getByRole('button', { name: 'Conectar' }).click();
      await page.locator('[data-testid=calendar-connected]').waitFor({ timeout: 20_000 });

      const form = page.locator('[data-testid=meeting-form]');
      await form.locator('select[name=meeting-board]').selectOption(deal.boardId);
      await form.locator('input[name=meeting-card-search]').fill('Acme');
      await form.locator(`[data-pick-card="${deal.cardId}"]`).click();
      await form.locator('[data-testid=meeting-card]').waitFor();
      expect(await form.locator('input[name=meeting-attendees]').inputValue()).toBe('compras@acme.example');
      await form.locator('input[name=meeting-title]').fill('Apresentação da proposta');
      // Date and time as pt-BR writes them (dd/mm/aaaa, 24 h), not the browser's datetime-local.
      expect(await form.locator('input[name=meeting-start]').inputValue()).toMatch(/^\d{2}\/\d{2}\/\d{4}$/);
      expect(await form.locator('input[name=meeting-start-time]').inputValue()).toMatch(/^\d{2}:\d{2}$/);
      await form.getByRole('button', { name: 'Agendar' }).click();
      await page.locator('.ds-toast', { hasText: 'Reunião agendada' }).waitFor({ timeout: 20_000 });
      const meetings = await t.api.get(`/boards/${deal.boardId}/cards/${deal.cardId}/calendar-meetings`);
      expect(meetings.body.data).toHaveLength(1);
      const meeting = meetings.body.data[0];
      expect(meeting).toMatchObject({
        title: 'Apresentação da proposta',
        status: 'scheduled',
        attendees: [{ email: 'compras@acme.example' }],
      });

      await page.getByLabel('Próximos 30 dias').check();
      const item = page.locator('[data-testid=agenda-list] .agenda-item', {
        hasText: 'Apresentação da proposta',
      });
      await item.waitFor();
      await page.locator('[data-testid=agenda-list]').getByText('Ligar para a Acme').waitFor();
      await shot(page, '11-agenda');

      // The card drawer lists it.
      await page.goto(`${base}/app/boards/${deal.boardId}/cards/${deal.cardId}`);
      await page.locator('[data-testid=card-meetings]').getByText('Apresentação da proposta').waitFor();

      await page.goto(`${base}/app/agenda`);
      await page.getByLabel('Próximos 30 dias').check();
      await item.waitFor();
      await item.getByRole('button', { name: /Cancelar reunião/ }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirmar' }).click();
      await item.waitFor({ state: 'detached' });
      expect((await t.api.get(`/calendar-meetings/${meeting.documentId}`)).body.status).toBe('cancelled');
    },
  );

  test("the card drawer shows the card's conversation with a link to the inbox", async () => {
    await page.goto(`${base}/app/boards/${chatBoard}/cards/${conv.card!.documentId}`);
    const section = page.locator('[data-testid=card-conversation]');
    await section.getByText('Perfeito, obrigada!').waitFor();
    await page.locator('[data-testid=card-meetings]').waitFor();
    await section.scrollIntoViewIfNeeded();
    await shot(page, '13-drawer-conversation');
    await section.getByRole('link', { name: 'Abrir nas conversas' }).click();
    await page.locator('[data-testid=conversation]').waitFor();
    expect(page.url()).toBe(`${base}/app/inbox/${conv.id}`);
  });

  test('settings: an API token is created (secret shown once, it works) and revoked; a member is invited', async () => {
    await page.getByRole('link', { name: 'Configurações' }).click();
    await page.locator('[data-testid=members]').getByText(viewer.email).waitFor();
    await page.fill('input[name=token-name]', 'Integração ERP');
    await page.locator('summary', { hasText: 'Escopos' }).click();
    await page.selectOption('select[name=scope-contacts]', 'read');
    await page.getByRole('button', { name: 'Criar token' }).click();
    const secret = page.locator('[data-testid=token-secret] input[name=token-secret]');
    await secret.waitFor();
    const token = await secret.inputValue();
    const row = page.locator('[data-testid=tokens] tr', { hasText: 'Integração ERP' });
    await row.waitFor();
    expect(await row.textContent()).toContain('contacts:read');
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, '12-settings');
    const withToken = apiClient(env.app, { authorization: `Bearer ${token}`, 'x-tenant-id': t.slug });
    expect((await withToken.get('/contacts')).status).toBe(200);
    expect((await withToken.post('/contacts', { data: { name: 'Nope' } })).status).toBe(403);
    await page.getByRole('button', { name: 'Já guardei' }).click();
    await secret.waitFor({ state: 'detached' });
    expect(await page.locator(`text=${token}`).count()).toBe(0);

    await row.getByRole('button', { name: 'Revogar Integração ERP' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirmar' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await withToken.get('/contacts')).status).toBe(401);
    const tokens = await t.userApi.get('/users/tokens');
    expect(tokens.body.data.map((x: { name: string }) => x.name)).not.toContain('Integração ERP');

    const form = page.locator('[data-testid=invite-form]');
    await form.locator('input[name=invite-email]').fill('nova.vendedora@example.com');
    await form.locator('select[name=invite-role]').selectOption('member');
    await form.getByRole('button', { name: 'Convidar' }).click();
    await page.locator('[data-testid=invitations]').getByText('nova.vendedora@example.com').waitFor();
  });

  test('a viewer sees no write controls on the inbox, agenda and settings pages', async () => {
    const p = await newPage(browser);
    const viewerErrors = watchConsole(p);
    await signIn(p, viewer, t.slug);
    await p.goto(`${base}/app/inbox/${stale.id}`);
    await p.locator('[data-testid=messages]').getByText('Ainda tem estoque?').waitFor();
    expect(await p.locator('#reply').count()).toBe(0);
    expect(await p.locator('select[name=template]').count()).toBe(0);
    expect(await p.locator('select[name=conversation-status]').isDisabled()).toBe(true);
    expect(await p.locator('select[name=conversation-assignee]').isDisabled()).toBe(true);
    expect(await p.getByRole('button', { name: /Marcar como/ }).count()).toBe(0);
    await p.getByRole('link', { name: 'Agenda' }).click();
    await p.locator('[data-testid=agenda-week]').waitFor();
    expect(await p.locator('[data-testid=meeting-form]').count()).toBe(0);
    expect(await p.locator('[data-cancel-meeting]').count()).toBe(0);
    await p.getByRole('link', { name: 'Configurações' }).click();
    await p.locator('[data-testid=members]').getByText(t.user.email).waitFor();
    expect(await p.locator('[data-testid=invite-form]').count()).toBe(0);
    expect(await p.locator('[data-testid=invitations]').count()).toBe(0);
    expect(await p.locator('select[name=member-role]').count()).toBe(0);
    expect(await p.getByRole('button', { name: /^Remover/ }).count()).toBe(0);
    expect(viewerErrors).toEqual([]);
    await p.context().close();
  });

  test('on a plan without the inbox and agenda, the pages say so (in Portuguese and English)', async () => {
    const p = await newPage(browser);
    const freeErrors = watchConsole(p, [403]);
    await signIn(p, free.user, free.slug);
    await p.getByRole('link', { name: 'Conversas' }).click();
    await p.locator('[data-testid=feature-unavailable]').getByText('Não disponível no seu plano').waitFor();
    await p.getByRole('link', { name: 'Agenda' }).click();
    await p.locator('[data-testid=feature-unavailable] code').getByText('agenda').waitFor();
    await p.getByLabel('Idioma').selectOption('en');
    await p.getByRole('heading', { name: 'Not available on your plan' }).waitFor();
    await p.getByRole('link', { name: 'Inbox' }).click();
    await p.getByRole('heading', { name: 'Not available on your plan' }).waitFor();
    await p.getByRole('link', { name: 'Settings' }).click();
    await p.getByRole('heading', { name: 'API tokens' }).waitFor();
    // The card drawer leaves the meetings and conversation sections out.
    const board = await free.api.post('/boards', { data: { name: 'Vendas', phases: [{ name: 'Novo' }] } });
    const card = await free.api.post(`/boards/${board.body.documentId}/cards`, { data: { title: 'Loja' } });
    await p.goto(`${base}/app/boards/${board.body.documentId}/cards/${card.body.documentId}`);
    await p.locator('[data-testid=card-drawer]').getByRole('heading', { name: 'Tasks' }).waitFor();
    await p.locator('#comments-title').waitFor();
    // The section shows while its first call is under way and goes on the 403.
    await expect.poll(() => p.locator('[data-testid=card-meetings]').count()).toBe(0);
    expect(await p.locator('[data-testid=card-conversation]').count()).toBe(0);
    expect(freeErrors).toEqual([]);
    await p.context().close();
  });

  test("an agent's change: the person signs in from the link, sees it and approves; another member gets not-found", async () => {
    const tok = await t.userApi.post('/users/generate-token', { expiration: '1d' });
    const agent = apiClient(t.app, { authorization: `Bearer ${tok.body.token}`, 'x-tenant-id': t.slug });
    const asked = await agent.post('/agent-confirmations', {
      data: {
        tool: 'crm.move_card_phase',
        summary: 'move the card to the phase "Fechado" — "Acme — renovação"',
        arguments: { boardId: deal.boardId, cardId: deal.cardId, phase: 'Fechado' },
        preview: { data: { title: 'Acme — renovação' } },
      },
    });
    expect(asked.status).toBe(201);
    const link = `${base}${asked.body.url}`;
    const p = await newPage(browser);
    const confirmErrors = watchConsole(p);
    await p.goto(link);
    await p.fill('input[type=email]', t.user.email);
    await p.fill('input[type=password]', t.user.password);
    await p.click('button[type=submit]');
    // Signing in comes back to the request, whichever organization was picked before.
    await p.getByRole('heading', { name: 'Seu assistente pede aprovação' }).waitFor();
    await p.getByText('move the card to the phase "Fechado"').waitFor();
    await shot(p, '14-agent-confirmation');
    await p.getByRole('button', { name: 'Aprovar' }).click();
    await p.locator('[data-confirmation-status=approved]').waitFor();
    expect((await agent.get(`/agent-confirmations/${asked.body.documentId}`)).body.status).toBe('approved');
    expect(confirmErrors).toEqual([]);
    await p.context().close();

    // The viewer of the same organization: the request is not theirs.
    const v = await newPage(browser);
    watchConsole(v, [404]);
    await v.goto(link);
    await v.fill('input[type=email]', viewer.email);
    await v.fill('input[type=password]', viewer.password);
    await v.click('button[type=submit]');
    await v.locator('[data-testid=not-found]').waitFor();
    await v.context().close();
  });

  test('the inbox thread, the window-closed composer, the agenda and settings: pt-BR only and accessible', async () => {
    const english = englishCatalogue();
    const problems: Record<string, string[]> = {};
    const audit = async (name: string) => {
      const found = [
        ...untranslated(await pageTexts(page), english, [t.user.username, t.slug]),
        ...(await a11y(page)),
      ];
      if (found.length) problems[name] = found;
    };
    await page.goto(`${base}/app/inbox/${conv.id}`);
    await page.locator('[data-testid=messages] .msg').first().waitFor();
    await audit('thread');
    await page.goto(`${base}/app/inbox/${stale.id}`);
    await page.locator('[data-testid=window-closed]').waitFor();
    await audit('window-closed');
    await page.goto(`${base}/app/agenda`);
    await page.locator('[data-testid=agenda-week]').waitFor();
    await audit('agenda');
    await page.goto(`${base}/app/settings`);
    await page.locator('[data-testid=members] tr').first().waitFor();
    await audit('settings');
    expect(problems).toEqual({});
  });

  test('no console errors on the way', () => {
    expect(errors).toEqual([]);
  });
});
