import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { startJobs, type WorkerDeps } from '../../src/workers.js';
import { getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { type LeadAdsPeer, startLeadAdsPeer } from '../helpers/peers/lead-ads.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';
import { a11y, englishCatalogue, pageTexts, tooWide, untranslated } from './audit.js';
import {
  ensureWebBuild,
  hasChromium,
  launchBrowser,
  requestsSeen,
  shot,
  watchConsole,
  watchRequests,
} from './helpers.js';

/**
 * The automations and lead ads pages (issue 31 item 1) in pt-BR, end to end with the workers running: an
 * automation built in the editor (a refused address first), run by a card event, its run shown with each action's
 * result in words; edited, disabled, deleted. A lead ads account connected through the provider's OAuth dialog
 * (the local Graph peer), a form route with its field mapping and consent checkbox, two signed leads: one card, one
 * failed lead shown with its reason and retried. Both pages audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: automations and lead ads (Chromium)', () => {
  let peer: LeadAdsPeer;
  let background: WorkerDeps;
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let browser: Browser;
  let pipeline: Awaited<ReturnType<typeof createPipeline>>;
  const pageId = `p${Date.now() % 1_000_000}${process.pid % 1000}`;
  const formId = `f${Date.now() % 1_000_000}${process.pid % 1000}`;

  beforeAll(async () => {
    await ensureWebBuild();
    peer = await startLeadAdsPeer();
    const { db } = await getApp();
    const config = testConfig({
      CRM_LEAD_ADS_API_URL: peer.url,
      CRM_LEAD_ADS_OAUTH_URL: peer.oauthUrl,
      CRM_LEAD_ADS_APP_ID: peer.appId,
      CRM_LEAD_ADS_APP_SECRET: peer.appSecret,
      CRM_LEAD_ADS_VERIFY_TOKEN: 'verify-me',
      CRM_LEAD_ADS_RETRY_LIMIT: 1,
      CRM_LEAD_ADS_RETRY_DELAY_SECONDS: 1,
      CRM_PROVIDER_TIMEOUT_MS: 3000,
      CRM_JOBS_POLL_SECONDS: 0.5,
    });
    background = await startJobs(config, db, true);
    app = await buildApp({ config, db, background });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    pipeline = await createPipeline(t.api);
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await background?.jobs.stop();
    await peer?.close();
  });

  async function signedIn(phone = false) {
    const c = await browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 1400, height: 900 },
      ...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
      locale: 'pt-BR',
      timezoneId: 'America/Sao_Paulo',
    });
    c.setDefaultTimeout(10_000);
    const p = await c.newPage();
    watchRequests(p);
    await p.goto(`${base}/app/`);
    await p.fill('input[type=email]', t.user.email);
    await p.fill('input[type=password]', t.user.password);
    await p.click('button[type=submit]');
    await p.click(`button[data-org="${t.slug}"]`);
    await p.getByRole('heading', { name: 'Quadros' }).waitFor();
    return p;
  }
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, seconds = 30): Promise<T> {
    const end = Date.now() + seconds * 1000;
    let v = await read();
    while (!ok(v) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 300));
      v = await read();
    }
    if (!ok(v)) throw new Error(`not reached: ${JSON.stringify(v).slice(0, 500)}`);
    return v;
  }

  test('an automation built in the editor runs on a card event; its run shows what each action did', async () => {
    const p = await signedIn();
    const errors = watchConsole(p, [400]);
    await p.goto(`${base}/app/more`);
    await p.getByRole('link', { name: /Automações/ }).click();
    await p.getByTestId('automations').waitFor();
    await p.getByText('Nenhuma automação ainda.').waitFor();

    await p.getByRole('button', { name: 'Nova automação' }).click();
    const dialog = p.locator('dialog[open]');
    await dialog.locator('input[name=automation-name]').fill('Negócios grandes');
    await dialog.locator('select[name=automation-event]').selectOption('card.created');
    await dialog.locator('select[name=automation-board]').selectOption(pipeline.boardId);
    // Condition: Valor do card é maior que 1000 (operators and fields as words).
    await dialog.getByRole('button', { name: 'Adicionar condição' }).click();
    await dialog.locator('select[name=condition-0-field]').selectOption('card.value');
    expect(await dialog.locator('select[name=condition-0-op] option:checked').textContent()).toBe(
      'é igual a',
    );
    await dialog.locator('select[name=condition-0-op]').selectOption('gt');
    await dialog.locator('input[name=condition-0-value]').fill('1000');
    // Actions: a tag, a task, a move, a second move the board's rules refuse (Qualified may not go to Lost), and
    // a private address.
    await dialog.locator('select[name=action-0-type]').selectOption('add_tag');
    await dialog.locator('select[name=action-0-tag]').selectOption({ label: 'Hot' });
    const add = () => dialog.getByRole('button', { name: 'Adicionar ação' }).click();
    await add();
    await dialog.locator('select[name=action-1-type]').selectOption('create_task');
    await dialog.locator('input[name=action-1-name]').fill('Ligar para o cliente');
    await dialog.locator('input[name=action-1-dueInHours]').fill('24');
    await add();
    await dialog.locator('select[name=action-2-type]').selectOption('move_card');
    await dialog.locator('select[name=action-2-phase]').selectOption({ label: 'Qualified' });
    await add();
    await dialog.locator('select[name=action-3-type]').selectOption('move_card');
    await dialog.locator('select[name=action-3-phase]').selectOption({ label: 'Lost' });
    await add();
    await dialog.locator('select[name=action-4-type]').selectOption('http_request');
    await dialog.locator('input[name=action-4-url]').fill('http://10.0.0.5/hook');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    // Refused by the API beside the address field; nothing saved.
    const refused = dialog.locator('.ds-field.has-error .ds-error').first();
    await refused.waitFor();
    expect(await refused.textContent()).toBe(
      'Endereço recusado: use um endereço público (internos e privados não são aceitos).',
    );
    expect((await t.api.get('/automations')).body.data).toHaveLength(0);
    await shot(p, 'automations-editor');
    await dialog.getByRole('button', { name: 'Remover ação 5' }).click();
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Automação salva.');

    const list = p.getByTestId('automation-list');
    const row = list.locator('tr', { hasText: 'Negócios grandes' });
    await row.waitFor();
    const rowText = (await row.textContent()) ?? '';
    expect(rowText).toContain('Card criado');
    expect(rowText).toContain('Valor do card é maior que 1000');
    expect(rowText).toContain('Adicionar etiqueta');
    const [auto] = (await t.api.get('/automations')).body.data;
    expect(auto).toMatchObject({
      name: 'Negócios grandes',
      enabled: true,
      board: { documentId: pipeline.boardId },
      trigger: { event: 'card.created', conditions: [{ field: 'card.value', op: 'gt', value: 1000 }] },
    });
    expect(auto.actions.map((a: { type: string }) => a.type)).toEqual([
      'add_tag',
      'create_task',
      'move_card',
      'move_card',
    ]);
    expect(auto.actions[1].params).toMatchObject({ name: 'Ligar para o cliente', dueInHours: 24 });

    // A small card does not match; a big one runs it (the workers dispatch and run).
    await createCard(t.api, pipeline.boardId, { title: 'Pequeno', value: 10 });
    const big = await createCard(t.api, pipeline.boardId, { title: 'Negócio grande', value: 5000 });
    const runs = await until(
      async () => (await t.api.get(`/automations/${auto.documentId}/runs`)).body.data,
      (r: any[]) => r.length === 1 && r[0].status !== 'pending',
    );
    expect(runs[0]).toMatchObject({
      status: 'failed',
      eventType: 'card.created',
      subject: `card:${big.documentId}`,
    });
    const card = (await t.api.get(`/boards/${pipeline.boardId}/cards/${big.documentId}`)).body;
    expect(card.tags.map((x: { slug: string }) => x.slug)).toEqual(['hot']);
    expect(card.currentPhase.slug).toBe('qualified');

    await p.getByRole('button', { name: 'Execuções de Negócios grandes' }).click();
    const log = p.getByTestId('automation-runs');
    const run = log.locator('tbody tr').first();
    await run.locator('.ds-badge', { hasText: 'Falhou' }).waitFor();
    const runText = (await run.textContent()) ?? '';
    expect(runText).toContain('Card criado');
    expect(runText).toContain('1 de 4 ações falharam');
    expect(runText).toContain('Moveu o card para Qualified');
    expect(runText).toContain('Adicionou a etiqueta Hot');
    expect(runText).toContain('Criou a tarefa');
    expect(runText).toContain('Mover o card: Falhou — o movimento entre essas fases não é permitido');
    expect(await run.getByRole('link', { name: 'Abrir o card' }).getAttribute('href')).toBe(
      `/app/boards/${pipeline.boardId}/cards/${big.documentId}`,
    );
    await shot(p, 'automations-runs');
    // Filtered by result: nothing succeeded.
    await log.locator('select[name=run-status]').selectOption('succeeded');
    await log.getByText('Nenhuma execução ainda.').waitFor();
    await p.keyboard.press('Escape');

    // Edited: renamed, the condition removed (read back through the API).
    await p.getByRole('button', { name: 'Editar Negócios grandes' }).click();
    await dialog.locator('input[name=automation-name]').fill('Todo card novo');
    await dialog.getByRole('button', { name: 'Remover condição 1' }).click();
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Automação salva.');
    await list.locator('tr', { hasText: 'Todo card novo' }).waitFor();
    const edited = (await t.api.get(`/automations/${auto.documentId}`)).body;
    expect(edited).toMatchObject({ name: 'Todo card novo', trigger: { conditions: [] } });
    expect(edited.actions).toHaveLength(4);

    // Disabled, then deleted after the confirmation.
    await p.getByRole('button', { name: 'Desativar Todo card novo' }).click();
    await toast(p, 'Automação desativada');
    await list.locator('tr', { hasText: 'Desativada' }).waitFor();
    expect((await t.api.get(`/automations/${auto.documentId}`)).body.enabled).toBe(false);
    await shot(p, 'automations-list');
    // Another organization sees none of it.
    const other = await newTenant(app);
    expect((await other.api.get('/automations')).body.data).toHaveLength(0);
    expect((await other.api.get(`/automations/${auto.documentId}`)).status).toBe(404);

    await p.getByRole('button', { name: 'Excluir Todo card novo' }).click();
    await p.locator('dialog[open]').getByRole('button', { name: 'Excluir' }).click();
    await toast(p, 'Automação excluída.');
    await p.getByText('Nenhuma automação ainda.').waitFor();
    expect((await t.api.get('/automations')).body.data).toHaveLength(0);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 120_000);

  test('lead ads: connected through the OAuth dialog, a form route made, a lead became a card, a failed one shown and retried', async () => {
    const userId = peer.addUser([
      { id: pageId, name: 'Página Acme', forms: [{ id: formId, name: 'Formulário de primavera' }] },
    ]);
    const p = await signedIn();
    const errors = watchConsole(p, [502]);
    // The provider's dialog: the person consents, the provider sends the browser back with code and state.
    await p.route(`${peer.oauthUrl}**`, (route) => {
      const { redirect } = peer.authorize(route.request().url(), userId);
      return route.fulfill({ status: 302, headers: { location: redirect } });
    });
    await p.goto(`${base}/app/more`);
    await p.getByRole('link', { name: /Lead ads/ }).click();
    await p.getByTestId('lead-ads').waitFor();

    // A token that the provider refuses: the refusal shown, nothing connected.
    await p.getByRole('button', { name: 'Conectar com um token de acesso' }).click();
    const dialog = p.locator('dialog[open]');
    await dialog.locator('input[name=lead-token]').fill('not-a-token');
    await dialog.getByRole('button', { name: 'Conectar conta' }).click();
    await dialog.locator('[role=alert]').first().waitFor();
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    expect((await t.api.get('/lead-integrations')).body.data).toHaveLength(0);

    await p.getByRole('button', { name: 'Conectar conta' }).click();
    await toast(p, 'Conta conectada');
    expect(new URL(p.url()).search).toBe('');
    const conns = p.getByTestId('lead-integrations');
    // Shown by the list's refetch after the completion; if not, the failure names the page's API requests.
    await conns
      .locator('tr', { hasText: 'Página Acme' })
      .waitFor()
      .catch((err: Error) => {
        throw new Error(`${err.message}\n${requestsSeen(p)}`);
      });
    expect(await conns.locator('tbody tr').first().textContent()).toContain('Conectada');
    const integrations = (await t.api.get('/lead-integrations')).body.data;
    expect(integrations).toHaveLength(1);
    expect(integrations[0]).toMatchObject({ status: 'connected', providerUserId: userId });
    const page = await p.content();
    for (const token of peer.issuedTokens()) {
      expect(JSON.stringify(integrations)).not.toContain(token);
      expect(page).not.toContain(token);
    }

    // A form route: the form, the board, where each answer goes, the consent checkbox.
    await p.getByRole('button', { name: 'Nova rota' }).click();
    await dialog.locator('input[name=route-name]').fill('Primavera no funil');
    await dialog.locator(`select[name=route-form] option[value="${formId}"]`).waitFor({ state: 'attached' });
    await dialog.locator('select[name=route-form]').selectOption(formId);
    await dialog.locator('select[name=route-board]').selectOption(pipeline.boardId);
    await dialog.getByText('Os cards entram na fase Lead.').waitFor();
    await dialog.locator('select[name=map-full_name]').selectOption({ label: 'Campo do card: Name' });
    await dialog.locator('select[name=map-email]').selectOption({ label: 'Campo do card: Email' });
    await dialog.locator('select[name=map-phone_number]').selectOption({ label: 'Contato: telefone' });
    await dialog.locator('input[name=consent-on]').check();
    await dialog.locator('input[name=consent-field]').fill('aceita_contato');
    await dialog.locator('input[name=consent-sms]').check();
    await dialog
      .locator('textarea[name=consent-text]')
      .fill('Aceito receber contato por WhatsApp, e-mail e SMS.');
    await shot(p, 'lead-ads-route');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Rota salva');
    const routesTable = p.getByTestId('lead-routes');
    await routesTable.locator('tr', { hasText: 'Primavera no funil' }).waitFor();
    const [route] = (await t.api.get('/lead-form-routes')).body.data;
    expect(route).toMatchObject({
      name: 'Primavera no funil',
      leadFormId: formId,
      pageId,
      targetBoardDocumentId: pipeline.boardId,
      consentCapture: {
        field: 'aceita_contato',
        channels: ['whatsapp', 'email', 'sms'],
        purpose: 'marketing',
      },
    });
    expect(route.fieldMapping.mappings).toEqual(
      expect.arrayContaining([
        { source: 'full_name', target: 'name' },
        { source: 'email', target: 'email' },
        { source: 'phone_number', target: 'contact.phone' },
      ]),
    );
    expect(peer.subscriptions.has(pageId)).toBe(true);

    // Two signed leads from the provider: one fills the board's required fields, one has no e-mail.
    const good = peer.addLead(pageId, formId, { full_name: 'Ana Souza', email: 'ana.souza@acme.test' });
    const bad = peer.addLead(pageId, formId, { full_name: 'Sem Email' });
    const hook = peer.leadgenWebhook([good, bad]);
    const res = await fetch(`${base}/api/webhooks/lead-ads`, {
      method: 'POST',
      body: hook.body,
      headers: hook.headers,
    });
    expect(res.status).toBe(200);
    const deliveries = await until(
      async () => (await t.api.get(`/lead-form-routes/${route.documentId}/deliveries`)).body.data,
      (d: any[]) => d.length === 2 && d.every((x) => x.status === 'succeeded' || x.status === 'failed'),
    );
    const made = deliveries.find((d: any) => d.leadgenId === good.id);
    const failed = deliveries.find((d: any) => d.leadgenId === bad.id);
    expect(made).toMatchObject({ status: 'succeeded' });
    expect(failed).toMatchObject({ status: 'failed', card: null });

    await p.getByRole('button', { name: 'Leads de Primavera no funil' }).click();
    const leads = p.getByTestId('lead-deliveries');
    const madeRow = leads.locator('tr', { hasText: good.id });
    const failedRow = leads.locator('tr', { hasText: bad.id });
    await madeRow.locator('.ds-badge', { hasText: 'Virou card' }).waitFor();
    await failedRow.locator('.ds-badge', { hasText: 'Falhou' }).waitFor();
    expect(await failedRow.textContent()).toContain('faltam campos obrigatórios do quadro');
    expect(await madeRow.getByRole('link', { name: 'Abrir o card' }).getAttribute('href')).toBe(
      `/app/boards/${pipeline.boardId}/cards/${made.card}`,
    );
    await shot(p, 'lead-ads-leads');
    // Only the failed ones, then retried: queued again and, still without an e-mail, failed again.
    await leads.locator('select[name=lead-status]').selectOption('failed');
    await leads.locator('tbody tr', { hasText: good.id }).waitFor({ state: 'detached' });
    await failedRow.getByRole('button', { name: `Tentar de novo o lead ${bad.id}` }).click();
    await toast(p, 'Lead na fila de novo.');
    await until(
      async () =>
        (await t.api.get(`/lead-form-routes/${route.documentId}/deliveries`, { status: 'failed' })).body.data,
      (d: any[]) => d.length === 1 && d[0].attempts === 2,
    );
    await p.keyboard.press('Escape');
    const card = (await t.api.get(`/boards/${pipeline.boardId}/cards/${made.card}`)).body;
    expect(card.fields).toMatchObject({ name: 'Ana Souza', email: 'ana.souza@acme.test' });
    await shot(p, 'lead-ads-page');

    // Another organization sees neither the connection nor the route.
    const other = await newTenant(app);
    expect((await other.api.get('/lead-integrations')).body.data).toHaveLength(0);
    expect((await other.api.get('/lead-form-routes')).body.data).toHaveLength(0);
    expect((await other.api.get(`/lead-form-routes/${route.documentId}/deliveries`)).status).toBe(404);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 120_000);

  test('audited on a desktop and a phone', async () => {
    // Something on each page: an automation with its run (the card below), the connection and route above.
    const made = await t.api.post('/automations', {
      data: {
        name: 'Etiqueta nos grandes',
        board: pipeline.boardId,
        trigger: { event: 'card.created', conditions: [{ field: 'card.value', op: 'gte', value: 100 }] },
        actions: [{ type: 'add_tag', params: { tag: 'hot' } }],
      },
    });
    expect(made.status).toBe(201);
    await createCard(t.api, pipeline.boardId, { title: 'Auditoria', value: 200 });
    await until(
      async () => (await t.api.get(`/automations/${made.body.documentId}/runs`)).body.data,
      (r: any[]) => r.length === 1 && r[0].status === 'succeeded',
    );
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    for (const phone of [false, true]) {
      const p = await signedIn(phone);
      const errors = watchConsole(p);
      const where = phone ? 'phone' : 'desktop';
      const check = async (name: string, allowed: string[] = []) => {
        await p.waitForTimeout(200);
        const found = [
          ...untranslated(await pageTexts(p), english, allowed),
          ...(await a11y(p)),
          ...(phone ? await tooWide(p) : []),
        ];
        if (found.length) problems[`${where} ${name}`] = found;
        await shot(p, `${name}-${where}`);
      };
      await p.goto(`${base}/app/automations`);
      await p.getByTestId('automation-list').locator('tr', { hasText: 'Etiqueta nos grandes' }).waitFor();
      await check('automations');
      await p.getByRole('button', { name: 'Editar Etiqueta nos grandes' }).click();
      await p.locator('dialog[open] select[name=action-0-tag]').waitFor();
      await check('automation-editor');
      await p.keyboard.press('Escape');
      await p.getByRole('button', { name: 'Execuções de Etiqueta nos grandes' }).click();
      await p.getByTestId('automation-runs').getByText('Adicionou a etiqueta Hot').waitFor();
      await check('automation-runs');
      await p.keyboard.press('Escape');
      await p.goto(`${base}/app/lead-ads`);
      await p.getByTestId('lead-routes').locator('tr', { hasText: 'Primavera no funil' }).waitFor();
      await check('lead-ads', ['Página Acme', 'Formulário de primavera', 'User ']);
      await p.getByRole('button', { name: 'Editar Primavera no funil' }).click();
      await p.locator('dialog[open] select[name=map-email]').waitFor();
      await check('lead-route-editor', ['Full name', 'Email', 'Phone', 'Name']);
      await p.keyboard.press('Escape');
      await p.getByRole('button', { name: 'Leads de Primavera no funil' }).click();
      await p.getByTestId('lead-deliveries').locator('.ds-badge', { hasText: 'Virou card' }).waitFor();
      await check('lead-deliveries');
      await p.keyboard.press('Escape');
      // The "Mais" page with both areas (BETA marks).
      await p.goto(`${base}/app/more`);
      await p.getByRole('link', { name: /Lead ads/ }).waitFor();
      await check('more');
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 120_000);
});
