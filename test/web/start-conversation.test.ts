import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMember, newTenant, type Tenant, type TestUser } from '../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../helpers/messaging.js';
import { conversationOf, inboxSetup, waNumber } from '../modules/inbox/helpers.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * Writing first to a contact on WhatsApp from the web app, in a real Chromium against the real, listening service
 * and the local WhatsApp Cloud API peer: "Nova conversa" in the inbox (contact searched by name or phone) and
 * "Enviar WhatsApp" on a contact's page send an approved template with its variables (POST /api/conversations,
 * once per Idempotency-Key), then the new conversation opens in the inbox. Refusals are shown with their reason
 * and nothing reaches the person; a viewer has no such action. The dialog audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: starting a WhatsApp conversation (Chromium)', () => {
  let env: MessagingEnv;
  let base: string;
  let t: Tenant;
  let viewer: TestUser;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const people = {
    beatriz: { name: 'Beatriz Lima', wa: waNumber(), id: '' },
    daniel: { name: 'Daniel Rocha', wa: waNumber(), id: '' },
    erro: { name: 'Elisa Número Inválido', wa: waNumber(), id: '' },
  };
  let noPhone = '';

  const signedIn = (user: TestUser, phone = false) => signedInPage(browser, base, user, t.slug, { phone });

  /** The dialog's template, its two variables and the live preview. */
  async function fillTemplate(p: Page, name: string, seller: string) {
    const d = p.locator('dialog[open]');
    await d
      .locator('select[name=template] option', { hasText: 'boas_vindas_web' })
      .waitFor({ state: 'attached' });
    await d.locator('select[name=template]').selectOption({ label: 'boas_vindas_web (pt_BR)' });
    await d.locator('input[name=param-1]').fill(name);
    await d.locator('input[name=param-2]').fill(seller);
    await expect
      .poll(() => d.locator('[data-testid=template-preview]').textContent())
      .toBe(`Olá ${name}, aqui é ${seller} da Loja Aurora. Podemos conversar?`);
  }

  const sentTo = (wa: string) => env.wa.messages.filter((m) => m.to === wa);

  beforeAll(async () => {
    await ensureWebBuild();
    env = await startMessaging();
    base = await env.app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(env.app);
    const setup = await inboxSetup(env, t, { board: false });
    env.wa.templates.set('boas_vindas_web|pt_BR', {
      id: '8801',
      name: 'boas_vindas_web',
      language: 'pt_BR',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Olá {{1}}, aqui é {{2}} da Loja Aurora. Podemos conversar?' }],
    });
    env.wa.templates.set('rascunho_web|pt_BR', {
      id: '8802',
      name: 'rascunho_web',
      language: 'pt_BR',
      category: 'MARKETING',
      status: 'PENDING',
      components: [{ type: 'BODY', text: 'Promoção!' }],
    });
    const synced = await t.api.post(`/chat-channels/${setup.channel}/templates/sync`);
    expect(synced.status).toBe(200);
    for (const person of Object.values(people)) {
      const made = await t.api.post('/contacts', { data: { name: person.name, phone: `+${person.wa}` } });
      expect(made.status).toBe(201);
      person.id = made.body.documentId;
    }
    const bare = await t.api.post('/contacts', {
      data: { name: 'Fábio Sem Telefone', email: 'fabio@example.com' },
    });
    expect(bare.status).toBe(201);
    noPhone = bare.body.documentId;
    viewer = (await addMember(t, 'viewer')).user;
    browser = await launchBrowser();
    page = await signedIn(t.user);
    // 422: the contact without a phone; 502: WhatsApp refusing the invalid number.
    errors = watchConsole(page, [422, 502]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await env?.close();
  });

  test('"Nova conversa" in the inbox: a contact searched by name, a template with its variables, sent once; the conversation opens', async () => {
    await page.getByRole('link', { name: 'Conversas' }).click();
    await page.getByRole('button', { name: 'Nova conversa' }).click();
    const d = page.locator('dialog[open]');
    await d.getByRole('heading', { name: 'Nova conversa' }).waitFor();
    // Nothing can be sent before a contact is picked.
    await fillTemplate(page, 'Beatriz', 'Marcos');
    expect(await d.getByRole('button', { name: 'Enviar', exact: true }).isDisabled()).toBe(true);
    await d.getByLabel('Contato').fill('Beatriz');
    await d.getByRole('button', { name: /Beatriz Lima/ }).click();
    await d.locator('[data-testid=start-contact]').getByText('Beatriz Lima').waitFor();
    await d.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.waitForURL(/\/app\/inbox\/\d+$/);
    const id = Number(page.url().split('/').at(-1));
    const conv = (await t.api.get(`/conversations/${id}`)).body;
    expect(conv.waId).toBe(people.beatriz.wa);
    await page
      .locator('[data-testid=messages] .msg.outgoing')
      .getByText('Olá Beatriz, aqui é Marcos da Loja Aurora. Podemos conversar?')
      .waitFor();
    await page.locator(`[data-conversation-id="${id}"]`).getByText('Beatriz Lima').waitFor();
    expect(await page.locator('dialog[open]').count()).toBe(0);
    const sent = sentTo(people.beatriz.wa);
    expect(sent).toHaveLength(1);
    expect(sent[0].payload.template).toEqual({
      name: 'boas_vindas_web',
      language: { code: 'pt_BR' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Beatriz' },
            { type: 'text', text: 'Marcos' },
          ],
        },
      ],
    });
  });

  test('a template sent without its text (through the API) is worded in the thread and the list: "Modelo <name>"', async () => {
    const conv = await conversationOf(t.api, people.beatriz.wa);
    expect(conv).toBeDefined();
    const sent = await t.api.post(`/conversations/${conv.id}/messages`, {
      data: {
        message: {
          template_params: {
            name: 'boas_vindas_web',
            category: 'UTILITY',
            language: 'pt_BR',
            processed_params: { '1': 'Beatriz', '2': 'Marcos' },
          },
        },
      },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    // The service keeps "[template boas_vindas_web]" as its text: the page says it in words.
    expect(sent.body.content).toBe('[template boas_vindas_web]');
    await page.goto(`${base}/app/inbox/${conv.id}`);
    const bubble = page.locator(`[data-testid=messages] li[data-message-id="${sent.body.id}"]`);
    await bubble.locator('p').first().waitFor();
    expect(await bubble.locator('p').first().textContent()).toBe('Modelo boas_vindas_web');
    await expect
      .poll(() => page.locator(`[data-conversation-id="${conv.id}"] .conv-preview`).textContent())
      .toBe('Modelo boas_vindas_web');
    expect(await page.locator('[data-testid=messages]').textContent()).not.toContain('[template');
  });

  test('"Enviar WhatsApp" on a contact\'s page; a send whose answer was lost, sent again, reaches the person once', async () => {
    await page.goto(`${base}/app/contacts/${people.daniel.id}`);
    await page
      .locator('[data-testid=contact-detail]')
      .getByRole('heading', { name: 'Daniel Rocha' })
      .waitFor();
    await page.getByRole('button', { name: 'Enviar WhatsApp' }).click();
    const d = page.locator('dialog[open]');
    await d.getByRole('heading', { name: 'WhatsApp para Daniel Rocha' }).waitFor();
    await d.locator('[data-testid=start-contact]').getByText('Daniel Rocha').waitFor();
    expect(await d.locator('input[name=start-contact-search]').count()).toBe(0);
    await fillTemplate(page, 'Daniel', 'Marcos');
    const keys: string[] = [];
    const pattern = '**/api/conversations';
    await page.route(pattern, async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      keys.push(route.request().headers()['idempotency-key']);
      if (keys.length > 1) return route.fallback();
      // The service starts the conversation and sends; the page never sees the answer (a dropped connection).
      await route.fetch();
      await route.abort('connectionreset');
    });
    await d.getByRole('button', { name: 'Enviar', exact: true }).click();
    await d.locator('[data-testid=start-error]').waitFor();
    await d.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.waitForURL(/\/app\/inbox\/\d+$/);
    await page.unroute(pattern);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^web-[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    await page
      .locator('[data-testid=messages] .msg.outgoing')
      .getByText('Olá Daniel, aqui é Marcos da Loja Aurora. Podemos conversar?')
      .waitFor();
    expect(sentTo(people.daniel.wa)).toHaveLength(1);
    // The dropped connection is the test's own doing, not the page's.
    const reset = errors.findIndex((e) => e.includes('ERR_CONNECTION_RESET'));
    expect(reset).toBeGreaterThanOrEqual(0);
    errors.splice(reset, 1);
  });

  test('refusals are shown with their reason at the contact, and nothing is sent', async () => {
    const before = env.wa.messages.length;
    // A contact without a phone number: the service's 422, at the contact.
    await page.goto(`${base}/app/contacts/${noPhone}`);
    await page.getByRole('button', { name: 'Enviar WhatsApp' }).click();
    const d = page.locator('dialog[open]');
    await d.locator('[data-testid=start-contact]').getByText('sem telefone').waitFor();
    await fillTemplate(page, 'Fábio', 'Marcos');
    await d.getByRole('button', { name: 'Enviar', exact: true }).click();
    await expect
      .poll(() => d.locator('[data-testid=contact-error]').textContent())
      .toBe('O contato não tem telefone: cadastre um para falar com ele pelo WhatsApp.');
    expect(page.url()).toBe(`${base}/app/contacts/${noPhone}`);
    await d.getByRole('button', { name: 'Fechar' }).click();
    // A number WhatsApp does not deliver to (131026), the contact found by part of its phone number.
    env.wa.failNextWith(131026, 1, { to: people.erro.wa });
    await page.goto(`${base}/app/inbox`);
    await page.getByRole('button', { name: 'Nova conversa' }).click();
    await d.getByLabel('Contato').fill(people.erro.wa.slice(-8));
    await d.getByRole('button', { name: /Elisa Número Inválido/ }).click();
    await fillTemplate(page, 'Elisa', 'Marcos');
    await d.getByRole('button', { name: 'Enviar', exact: true }).click();
    await expect
      .poll(() => d.locator('[data-testid=contact-error]').textContent())
      .toContain('o número não é válido ou não usa o WhatsApp (131026)');
    expect(page.url()).toBe(`${base}/app/inbox`);
    expect(env.wa.messages.length).toBe(before);
    expect(sentTo(people.erro.wa)).toHaveLength(0);
    await d.getByRole('button', { name: 'Fechar' }).click();
    // The conversation is listed, with nothing delivered to preview said in words (not an empty line).
    const item = page.locator('[data-testid=conversations] li', { hasText: 'Elisa Número Inválido' });
    await expect
      .poll(() => item.locator('.conv-preview').textContent())
      .toBe('Nenhuma mensagem entregue ainda');
  });

  test('a viewer sees no "Nova conversa" nor "Enviar WhatsApp"', async () => {
    const p = await signedIn(viewer);
    const viewerErrors = watchConsole(p);
    await p.goto(`${base}/app/inbox`);
    await p.locator('[data-testid=conversations] [data-conversation-id]').first().waitFor();
    expect(await p.getByRole('button', { name: 'Nova conversa' }).count()).toBe(0);
    await p.goto(`${base}/app/contacts/${people.daniel.id}`);
    await p.locator('[data-testid=contact-detail]').getByRole('heading', { name: 'Daniel Rocha' }).waitFor();
    expect(await p.getByRole('button', { name: 'Enviar WhatsApp' }).count()).toBe(0);
    expect(viewerErrors).toEqual([]);
    await p.context().close();
  });

  test('the dialog: pt-BR only, accessible and within a 390 px phone', async () => {
    const english = englishCatalogue();
    const problems: Record<string, string[]> = {};
    for (const phone of [false, true]) {
      const p = await signedIn(t.user, phone);
      const consoleErrors = watchConsole(p);
      const name = `start-conversation-${phone ? 'phone' : 'desktop'}`;
      await p.goto(`${base}/app/inbox`);
      await p.getByRole('button', { name: 'Nova conversa' }).click();
      const d = p.locator('dialog[open]');
      await d.getByLabel('Contato').fill('Daniel');
      await d.getByRole('button', { name: /Daniel Rocha/ }).waitFor();
      await d.getByRole('button', { name: /Daniel Rocha/ }).click();
      await fillTemplate(p, 'Daniel', 'Marcos');
      const found = await auditPage(p, {
        english,
        allowed: [t.user.username, t.slug, 'boas_vindas_web'],
        phone,
      });
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
