import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMember, newTenant, type Tenant, type TestUser } from '../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from '../modules/inbox/helpers.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * A conversation's card from the inbox, in a real Chromium against the real, listening service: "Criar card" (a
 * board, the title prefilled with the contact's name) makes a card in the board's entry phase with the
 * conversation's contact; "Vincular card" links a card found by its title on a board; "Trocar card" puts another in
 * its place. Each is read back through the API. A card linked by someone else while the dialog was open, and a board
 * the member may see but not write to, are refused with their reason where they belong, in pt-BR and in English; a
 * viewer sees the card's link and no action. The dialogs audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: a conversation card in the inbox (Chromium)', () => {
  let env: MessagingEnv;
  let base: string;
  let t: Tenant;
  let viewer: TestUser;
  let member: TestUser;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const boards = { vendas: '', posVenda: '', diretoria: '' };
  /** Vendas' first phase, where a card made from a conversation enters. */
  let entryPhase = '';
  const cards = { aurora: '', renovacao: '', outro: '' };
  /** Conversations by the contact who wrote, each from an inbound WhatsApp message. */
  const convs: Record<string, { id: number; contact: string }> = {};
  const who = {
    fabio: 'Fábio Souza',
    gabriela: 'Gabriela Nunes',
    helena: 'Helena Prado',
    ivo: 'Ivo Martins',
    joana: 'Joana Reis',
  };

  const signedIn = (user: TestUser, phone = false) => signedInPage(browser, base, user, t.slug, { phone });

  /** The open conversation (its header holds the card's link and actions). */
  async function openConversation(p: Page, key: keyof typeof who): Promise<Locator> {
    await p.goto(`${base}/app/inbox/${convs[key].id}`);
    const conv = p.locator('[data-testid=conversation]');
    await conv.getByRole('heading', { name: who[key] }).waitFor();
    return conv;
  }

  /** The dialog's card search: a board, then a search; the card's radio once it shows. */
  async function pickCard(p: Page, board: string, search: string, title: string) {
    const d = p.locator('dialog[open]');
    await d.getByLabel('Quadro').selectOption({ label: board });
    await d.getByLabel('Buscar card pelo título').fill(search);
    const radio = d.getByRole('radio', { name: new RegExp(title) });
    await radio.waitFor();
    await expect.poll(() => d.getByRole('radio').count()).toBe(1);
    await radio.check();
  }

  const cardOf = async (key: keyof typeof who) =>
    (await t.api.get(`/conversations/${convs[key].id}/card`)).body.card;

  beforeAll(async () => {
    await ensureWebBuild();
    env = await startMessaging();
    base = await env.app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(env.app);
    const setup = await inboxSetup(env, t, { board: false });
    viewer = (await addMember(t, 'viewer')).user;
    const m = await addMember(t, 'member');
    member = m.user;
    // The member sees "Diretoria" (a member of the board) but may not write to it.
    const phases = [{ name: 'Novo contato' }, { name: 'Proposta' }, { name: 'Fechado' }];
    const made = {
      vendas: await t.api.post('/boards', { data: { name: 'Vendas', phases } }),
      posVenda: await t.api.post('/boards', { data: { name: 'Pós-venda', phases } }),
      diretoria: await t.api.post('/boards', {
        data: { name: 'Diretoria', phases, members: [m.membershipId] },
      }),
    };
    for (const [k, res] of Object.entries(made)) {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      boards[k as keyof typeof boards] = res.body.documentId;
    }
    entryPhase = made.vendas.body.phases[0].documentId;
    const card = async (board: string, title: string) => {
      const res = await t.api.post(`/boards/${board}/cards`, { data: { title } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.documentId as string;
    };
    cards.aurora = await card(boards.vendas, 'Pedido grande Aurora');
    await card(boards.vendas, 'Pedido pequeno Boreal');
    cards.renovacao = await card(boards.posVenda, 'Renovação anual');
    cards.outro = await card(boards.vendas, 'Outro negócio');
    for (const [key, name] of Object.entries(who)) {
      const from = waNumber();
      expect((await inbound(env, setup.channel, [{ from, name, text: `Oi, aqui é ${name}` }])).status).toBe(
        200,
      );
      const conv = await conversationOf(t.api, from);
      expect(conv.card).toBeNull();
      convs[key] = { id: conv.id, contact: conv.contact.documentId };
    }
    browser = await launchBrowser();
    page = await signedIn(t.user);
    // 422: the card linked by someone else meanwhile.
    errors = watchConsole(page, [422]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await env?.close();
  });

  test('"Criar card": a board and a title (the contact\'s name at first); the card is in the entry phase with the contact, its link shows', async () => {
    const conv = await openConversation(page, 'fabio');
    expect(await conv.getByRole('button', { name: 'Trocar card' }).count()).toBe(0);
    await conv.getByRole('button', { name: 'Criar card' }).click();
    const d = page.locator('dialog[open]');
    await d.getByRole('heading', { name: 'Criar card da conversa com Fábio Souza' }).waitFor();
    await expect.poll(() => d.getByLabel('Título do card').inputValue()).toBe('Fábio Souza');
    await d.getByLabel('Quadro').selectOption({ label: 'Vendas' });
    await d.getByLabel('Título do card').fill('Fábio Souza — orçamento de 40 cadeiras');
    await shot(page, 'web-130-inbox-card-create');
    await d.getByRole('button', { name: 'Criar card' }).click();
    await conv.getByRole('link', { name: 'Fábio Souza — orçamento de 40 cadeiras' }).waitFor();
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
    await conv.getByRole('button', { name: 'Trocar card' }).waitFor();
    expect(await conv.getByRole('button', { name: 'Criar card' }).count()).toBe(0);
    expect(await conv.getByRole('button', { name: 'Vincular card' }).count()).toBe(0);

    const linked = await cardOf('fabio');
    expect(linked).toMatchObject({
      title: 'Fábio Souza — orçamento de 40 cadeiras',
      board: { documentId: boards.vendas, name: 'Vendas' },
    });
    expect(await conv.getByRole('link', { name: linked.title }).getAttribute('href')).toBe(
      `/app/boards/${boards.vendas}/cards/${linked.documentId}`,
    );
    const card = await t.api.get(`/boards/${boards.vendas}/cards/${linked.documentId}`);
    expect(card.body).toMatchObject({
      creationSource: 'chat_inbound',
      contact: { documentId: convs.fabio.contact },
      currentPhase: { documentId: entryPhase, name: 'Novo contato' },
    });
  });

  test('"Vincular card": a card found by part of its title on the chosen board, linked', async () => {
    const conv = await openConversation(page, 'gabriela');
    await conv.getByRole('button', { name: 'Vincular card' }).click();
    const d = page.locator('dialog[open]');
    await d.getByRole('heading', { name: 'Vincular um card à conversa com Gabriela Nunes' }).waitFor();
    // Nothing picked: said at the list, nothing sent (the board's newest cards are listed before any search).
    await d.getByRole('radio').first().waitFor();
    await d.getByRole('button', { name: 'Vincular card' }).click();
    await expect
      .poll(() => d.locator('[data-testid=card-pick-error]').textContent())
      .toBe('Escolha um card da lista.');
    // Case-blind: "aurora" finds "Pedido grande Aurora", not the other cards of Vendas.
    await pickCard(page, 'Vendas', 'aurora', 'Pedido grande Aurora');
    expect(await d.locator('[data-testid=card-pick-error]').count()).toBe(0);
    await d.getByRole('button', { name: 'Vincular card' }).click();
    await conv.getByRole('link', { name: 'Pedido grande Aurora' }).waitFor();
    await conv.getByRole('button', { name: 'Trocar card' }).waitFor();
    expect(await cardOf('gabriela')).toMatchObject({
      documentId: cards.aurora,
      board: { documentId: boards.vendas },
    });
  });

  test('"Trocar card": the current card shown and not pickable; another board\'s card takes its place', async () => {
    const conv = await openConversation(page, 'gabriela');
    await conv.getByRole('button', { name: 'Trocar card' }).click();
    const d = page.locator('dialog[open]');
    await d.getByRole('heading', { name: 'Trocar o card da conversa com Gabriela Nunes' }).waitFor();
    // The current card's board is chosen at first; the current card is marked and disabled.
    const current = d.getByRole('radio', { name: /Pedido grande Aurora/ });
    await current.waitFor();
    expect(await d.getByLabel('Quadro').inputValue()).toBe(boards.vendas);
    expect(await current.isDisabled()).toBe(true);
    expect(
      await d.locator('label.conv-card-option', { hasText: 'Pedido grande Aurora' }).textContent(),
    ).toContain('atual');
    // Accent-blind: "renovacao" finds "Renovação anual".
    await pickCard(page, 'Pós-venda', 'renovacao', 'Renovação anual');
    await shot(page, 'web-131-inbox-card-switch');
    await d.getByRole('button', { name: 'Trocar card' }).click();
    await conv.getByRole('link', { name: 'Renovação anual' }).waitFor();
    expect(await conv.getByRole('link', { name: 'Pedido grande Aurora' }).count()).toBe(0);
    expect(await cardOf('gabriela')).toMatchObject({
      documentId: cards.renovacao,
      board: { documentId: boards.posVenda, name: 'Pós-venda' },
    });
  });

  test('a card linked by someone else while the dialog was open: refused with the reason, the header shows it', async () => {
    const conv = await openConversation(page, 'helena');
    await conv.getByRole('button', { name: 'Vincular card' }).click();
    const d = page.locator('dialog[open]');
    await pickCard(page, 'Vendas', 'outro', 'Outro negócio');
    const meanwhile = await t.api.post(`/conversations/${convs.helena.id}/card/link`, {
      data: { card: cards.aurora },
    });
    expect(meanwhile.status).toBe(200);
    await d.getByRole('button', { name: 'Vincular card' }).click();
    await expect
      .poll(() => d.locator('[data-testid=card-error]').textContent())
      .toBe('Esta conversa já tem um card (alguém vinculou agora há pouco): use “Trocar card”.');
    await d.getByRole('button', { name: 'Fechar' }).click();
    await conv.getByRole('link', { name: 'Pedido grande Aurora' }).waitFor();
    await conv.getByRole('button', { name: 'Trocar card' }).waitFor();
    expect((await cardOf('helena')).documentId).toBe(cards.aurora);
  });

  test('a board the member sees but may not write to: refused at the board, in pt-BR and in English', async () => {
    const p = await signedIn(member);
    const memberErrors = watchConsole(p, [403]);
    let conv = await openConversation(p, 'ivo');
    await conv.getByRole('button', { name: 'Criar card' }).click();
    let d = p.locator('dialog[open]');
    await d.getByLabel('Quadro').selectOption({ label: 'Diretoria' });
    await d.getByRole('button', { name: 'Criar card' }).click();
    const boardField = d.locator('.ds-field', { has: p.locator('select[name=card-board]') });
    await expect
      .poll(() => boardField.locator('.ds-error').textContent())
      .toBe('Você não pode criar nem alterar cards neste quadro: peça para ser editor dele.');
    expect(await d.getByLabel('Quadro').getAttribute('aria-invalid')).toBe('true');
    await shot(p, 'web-132-inbox-card-refused');
    await d.getByRole('button', { name: 'Fechar' }).click();

    await p.getByLabel('Idioma').selectOption('en');
    conv = await openConversation(p, 'ivo');
    await conv.getByRole('button', { name: 'Create card' }).click();
    d = p.locator('dialog[open]');
    await d.getByRole('heading', { name: 'Create a card from the conversation with Ivo Martins' }).waitFor();
    await d.getByLabel('Board').selectOption({ label: 'Diretoria' });
    await d.getByRole('button', { name: 'Create card' }).click();
    await expect
      .poll(() => boardField.locator('.ds-error').textContent())
      .toBe('You cannot create or change cards on this board: ask to be one of its editors.');
    expect(await cardOf('ivo')).toBeNull();
    expect(memberErrors).toEqual([]);
    await p.context().close();
  });

  test('a viewer sees the card\'s link and no "Criar card", "Vincular card" nor "Trocar card"', async () => {
    const p = await signedIn(viewer);
    const viewerErrors = watchConsole(p);
    let conv = await openConversation(p, 'fabio');
    await conv.getByRole('link', { name: 'Fábio Souza — orçamento de 40 cadeiras' }).waitFor();
    expect(await conv.locator('[data-testid=conversation-card-actions]').count()).toBe(0);
    expect(await conv.getByRole('button', { name: 'Trocar card' }).count()).toBe(0);
    conv = await openConversation(p, 'joana');
    expect(await conv.getByRole('button', { name: 'Criar card' }).count()).toBe(0);
    expect(await conv.getByRole('button', { name: 'Vincular card' }).count()).toBe(0);
    expect(viewerErrors).toEqual([]);
    await p.context().close();
  });

  test('the dialogs: pt-BR only, accessible and within a 390 px phone', async () => {
    const english = englishCatalogue();
    const problems: Record<string, string[]> = {};
    for (const phone of [false, true]) {
      const p = await signedIn(t.user, phone);
      const consoleErrors = watchConsole(p);
      const where = phone ? 'phone' : 'desktop';
      const allowed = [t.user.username, t.slug];
      // The header with its actions, then each dialog.
      let conv = await openConversation(p, 'joana');
      await conv.getByRole('button', { name: 'Vincular card' }).waitFor();
      let found = await auditPage(p, { english, allowed, phone });
      if (found.length) problems[`${where} header`] = found;
      await conv.getByRole('button', { name: 'Vincular card' }).click();
      await pickCard(p, 'Vendas', 'boreal', 'Pedido pequeno Boreal');
      found = await auditPage(p, { english, allowed, phone });
      if (found.length) problems[`${where} link`] = found;
      if (phone) await shot(p, 'web-133-phone-inbox-card-link');
      await p.locator('dialog[open]').getByRole('button', { name: 'Cancelar' }).click();
      await conv.getByRole('button', { name: 'Criar card' }).click();
      await p.locator('dialog[open]').getByLabel('Título do card').waitFor();
      found = await auditPage(p, { english, allowed, phone });
      if (found.length) problems[`${where} create`] = found;
      await p.locator('dialog[open]').getByRole('button', { name: 'Fechar' }).click();
      conv = await openConversation(p, 'gabriela');
      await conv.getByRole('button', { name: 'Trocar card' }).click();
      await p
        .locator('dialog[open]')
        .getByRole('radio', { name: /Renovação anual/ })
        .waitFor();
      found = await auditPage(p, { english, allowed, phone });
      if (found.length) problems[`${where} switch`] = found;
      if (phone) await shot(p, 'web-134-phone-inbox-card-switch');
      expect(consoleErrors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 120_000);

  test('no console errors on the way', () => {
    expect(errors).toEqual([]);
  });
});
