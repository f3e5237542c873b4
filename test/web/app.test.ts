import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { findOrganizationBySlug } from '../../src/modules/organizations/repo.js';
import { sessionSigner } from '../../src/platform/auth/tokens.js';
import { instanceSecret } from '../../src/platform/secrets/secrets.js';
import { startJobs, type WorkerDeps } from '../../src/workers.js';
import { addMember, getApp, newTenant, type Tenant, type TestUser, testConfig } from '../helpers/app.js';
import {
  dragTo,
  ensureWebBuild,
  hasChromium,
  launchBrowser,
  newPage,
  shot,
  watchConsole,
} from './helpers.js';

/**
 * The web application in a real Chromium against the real, listening service: an organization with the demo
 * content (the demo board "Funil de vendas"), its owner signing in through the pages.
 */
describe.skipIf(!hasChromium)('web app (Chromium)', () => {
  let app: FastifyInstance;
  let background: WorkerDeps;
  let base: string;
  let t: Tenant;
  let viewer: TestUser;
  let otherBoardId: string;
  let boardId: string;
  let phases: { documentId: string; slug: string }[];
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const phase = (slug: string) => phases.find((p) => p.slug === slug)!.documentId;
  const cardPhase = async (id: string) =>
    (await t.api.get(`/boards/${boardId}/cards/${id}`)).body.currentPhase.slug as string;
  const inColumn = (slug: string, cardId: string) =>
    page.locator(`[data-phase-id="${phase(slug)}"] [data-card-id="${cardId}"]`);

  beforeAll(async () => {
    await ensureWebBuild();
    const { db } = await getApp();
    const config = testConfig();
    background = await startJobs(config, db, false);
    app = await buildApp({ config, db, background });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt')));
    const org = (await findOrganizationBySlug(db.system, t.slug))!;
    const seeded = await seedDemoData({ ...background, signer }, org);
    boardId = seeded.board.documentId;
    phases = (await t.api.get(`/boards/${boardId}`)).body.phases;
    // A viewer sees the boards it is related to: a member of the demo board.
    const v = await addMember(t, 'viewer');
    viewer = v.user;
    const related = await t.api.put(`/boards/${boardId}`, { data: { members: [v.membershipId] } });
    expect(related.status).toBe(200);
    const other = await newTenant(app);
    const board = await other.api.post('/boards', { data: { name: 'Segredo', phases: [{ name: 'Única' }] } });
    otherBoardId = board.body.documentId;
    browser = await launchBrowser();
    page = await newPage(browser);
    errors = watchConsole(page, [422, 404]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await background?.jobs.stop();
  });

  test('sign in, pick the organization, open the Kanban (phases and cards carry their documentIds)', async () => {
    await page.goto(`${base}/app/`);
    await page.fill('input[type=email]', t.user.email);
    await page.fill('input[type=password]', t.user.password);
    await page.click('button[type=submit]');
    await page.click(`button[data-org="${t.slug}"]`);
    await page.getByRole('link', { name: 'Funil de vendas' }).first().waitFor();
    await shot(page, '01-boards');
    const started = Date.now();
    await page.getByRole('link', { name: 'Funil de vendas' }).first().click();
    await page.locator('[data-card-id]').first().waitFor();
    console.log(`web: first Kanban paint ${Date.now() - started} ms`);
    expect(page.url()).toBe(`${base}/app/boards/${boardId}`);
    const columns = await page
      .locator('[data-phase-id]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-phase-id')));
    expect(columns).toEqual(phases.map((p) => p.documentId));
    // Paged columns: 20 cards of the 60 per phase, and the count of all of them.
    await expect
      .poll(() => page.locator(`[data-phase-id="${phase('novo-lead')}"] [data-card-id]`).count())
      .toBe(20);
    await expect
      .poll(() => page.locator(`[data-phase-id="${phase('novo-lead')}"] [data-count]`).textContent())
      .toBe('60');
    await expect.poll(() => page.locator('[data-stat="total"]').textContent()).toBe('360');
    await shot(page, '02-kanban');
  });

  let cardId: string;
  test('a drag to a blocked phase is refused with the reason and the card goes back; an allowed one moves', async () => {
    cardId = (await page
      .locator(`[data-phase-id="${phase('novo-lead')}"] [data-card-id]`)
      .first()
      .getAttribute('data-card-id'))!;
    await dragTo(page, cardId, phase('ganho'));
    await expect
      .poll(() => page.locator('[data-testid=move-error]').textContent())
      .toBe('Movimento recusado: Não é permitido mover de Novo lead para Ganho×');
    await inColumn('novo-lead', cardId).waitFor();
    expect(await cardPhase(cardId)).toBe('novo-lead');
    await shot(page, '03-move-refused');

    await dragTo(page, cardId, phase('qualificacao'));
    await inColumn('qualificacao', cardId).waitFor();
    await expect.poll(() => cardPhase(cardId)).toBe('qualificacao');
    expect(await page.locator('[data-testid=move-error]').count()).toBe(0);
  });

  test('leaving a phase with an empty required field is refused; filled in the drawer, the move goes through', async () => {
    await dragTo(page, cardId, phase('proposta'));
    await expect
      .poll(() => page.locator('[data-testid=move-error]').textContent())
      .toContain('Preencha os campos obrigatórios: Orçamento');
    await inColumn('qualificacao', cardId).waitFor();

    await inColumn('qualificacao', cardId).click();
    const drawer = page.locator('[data-testid=card-drawer]');
    await drawer.waitFor();
    expect(page.url()).toBe(`${base}/app/boards/${boardId}/cards/${cardId}`);
    await drawer.locator('input[name=orcamento]').fill('25000');
    await drawer.getByRole('button', { name: 'Salvar' }).click();
    await drawer.getByText('Salvo').waitFor();
    expect((await t.api.get(`/boards/${boardId}/cards/${cardId}`)).body.fields.orcamento).toBe(25000);
    await shot(page, '04-drawer');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });

    await dragTo(page, cardId, phase('proposta'));
    await inColumn('proposta', cardId).waitFor();
    await expect.poll(() => cardPhase(cardId)).toBe('proposta');
  });

  test('the drawer: a comment is posted, the history lists the moves', async () => {
    await inColumn('proposta', cardId).click();
    const drawer = page.locator('[data-testid=card-drawer]');
    await drawer.locator('#new-comment').fill('Cliente pediu desconto de 5%');
    await drawer.getByRole('button', { name: 'Comentar' }).click();
    await drawer.locator('[data-testid=comments]').getByText('Cliente pediu desconto de 5%').waitFor();
    const comments = await t.api.get(`/boards/${boardId}/cards/${cardId}/comments`);
    expect(comments.body.data.map((c: { content: string }) => c.content)).toContain(
      'Cliente pediu desconto de 5%',
    );
    await expect.poll(() => drawer.locator('.history li').count()).toBeGreaterThanOrEqual(3);
    await page.keyboard.press('Escape');
  });

  test('the drawer: a description is typed as text and kept as HTML; one written in HTML reads as its text and stays as it was', async () => {
    const made = await t.api.post(`/boards/${boardId}/cards`, {
      data: {
        title: 'Descrição formatada',
        fields: { 'nome-completo': 'Ana Lima', email: 'ana@exemplo.com.br', consentimento: true },
        description: '<p>Olá <strong>cliente</strong></p><ul><li>um</li><li>dois</li></ul>',
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.documentId as string;
    const stored = async () => (await t.api.get(`/boards/${boardId}/cards/${id}`)).body;
    await page.goto(`${base}/app/boards/${boardId}/cards/${id}`);
    const drawer = page.locator('[data-testid=card-drawer]');
    const box = drawer.locator('textarea[name=description]');
    await expect.poll(() => box.inputValue()).toBe('Olá cliente\n\n• um\n• dois');
    // Its formatting cannot show in the box: said under it.
    await drawer
      .getByText(
        'Este texto veio com formatação (negrito, listas, links); se você mudar o texto, ele será salvo sem ela.',
      )
      .waitFor();
    // A letter typed and taken back, another field saved: the description goes back untouched, formatting kept.
    await box.press('End');
    await box.press('x');
    await box.press('Backspace');
    await drawer.locator('input[name=title]').fill('Descrição formatada (revista)');
    await drawer.getByRole('button', { name: 'Salvar' }).click();
    await expect.poll(async () => (await stored()).title).toBe('Descrição formatada (revista)');
    expect((await stored()).description).toBe(
      '<p>Olá <strong>cliente</strong></p><ul><li>um</li><li>dois</li></ul>',
    );

    // Typed with characters HTML escapes and two lines: kept as HTML, read back as typed.
    const typed = 'Preço < 100 & prazo "curto"\nsegunda linha\n\nnovo parágrafo';
    await box.fill(typed);
    await drawer.getByRole('button', { name: 'Salvar' }).click();
    await expect
      .poll(async () => (await stored()).description)
      .toBe('<p>Preço &lt; 100 &amp; prazo "curto"<br />segunda linha</p><p>novo parágrafo</p>');
    await page.goto(`${base}/app/boards/${boardId}/cards/${id}`);
    await expect.poll(() => box.inputValue()).toBe(typed);
    await page.keyboard.press('Escape');
  });

  test('a card moves with the keyboard alone (Space, →, Space)', async () => {
    const id = (await page
      .locator(`[data-phase-id="${phase('negociacao')}"] [data-card-id]`)
      .first()
      .getAttribute('data-card-id'))!;
    await page.locator(`[data-card-id="${id}"]`).focus();
    // dnd-kit acts on animation frames: each key waits for the state the previous one set (picked up, then
    // over the next column), or a fast keyboard on a busy machine outruns it.
    const frames = () =>
      page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.keyboard.press('Space');
    await page.locator(`[data-card-id="${id}"][aria-pressed="true"]`).first().waitFor();
    await frames();
    await page.keyboard.press('ArrowRight');
    await frames();
    // Over the next column (the board scrolls when that column is past its visible part).
    await page.locator(`[data-phase-id="${phase('ganho')}"].over`).waitFor();
    await shot(page, 'keyboard-picked');
    await page.keyboard.press('Space');
    await inColumn('ganho', id).waitFor();
    await expect.poll(() => cardPhase(id)).toBe('ganho');
  });

  test('a contact is created and shown with its timeline', async () => {
    await page.getByRole('link', { name: 'Contatos' }).click();
    await page.locator('[data-testid=contacts-table] tbody tr').first().waitFor();
    await page.fill('input[name=name]', 'Marina Teixeira');
    await page.fill('input[name=email]', 'marina@teixeira.com.br');
    await page.fill('input[name=phone]', '(11) 98765-4321');
    await page.getByRole('button', { name: 'Criar' }).click();
    await page
      .locator('[data-testid=contact-detail]')
      .getByRole('heading', { name: 'Marina Teixeira' })
      .waitFor();
    const found = await t.api.get('/contacts', { q: 'marina teixeira' });
    expect(found.body.data[0]).toMatchObject({ email: 'marina@teixeira.com.br', phone: '+5511987654321' });
    await shot(page, '05-contacts');
  });

  test('a segment shows its live count', async () => {
    await page.getByRole('link', { name: 'Segmentos' }).click();
    await page.getByRole('button', { name: 'Novo segmento' }).click();
    await page.fill('input[name=value-0]', '@');
    const expected = (
      await t.api.post('/segments/preview', {
        filters: { logic: 'AND', conditions: [{ field: 'city', op: 'contains', value: '@' }] },
      })
    ).body.count;
    await page.selectOption('select[name=field-0]', 'email');
    const count = (
      await t.api.post('/segments/preview', {
        filters: { logic: 'AND', conditions: [{ field: 'email', op: 'contains', value: '@' }] },
      })
    ).body.count;
    expect(count).toBeGreaterThan(expected);
    await expect
      .poll(() => page.locator('[data-testid=segment-count] strong').getAttribute('data-count'))
      .toBe(String(count));
    await shot(page, '06-segments');
    await page.keyboard.press('Escape');
  });

  test('the board report shows its charts', async () => {
    await page.goto(`${base}/app/boards/${boardId}/report`);
    await page.locator('[data-testid=report] canvas').first().waitFor();
    expect(await page.locator('[data-testid=report] canvas').count()).toBe(4);
    await page.getByRole('cell', { name: 'Qualificação' }).waitFor();
    await page.waitForTimeout(200);
    await shot(page, '07-report');
  });

  test("another organization's board is not found", async () => {
    await page.goto(`${base}/app/boards/${otherBoardId}`);
    await page.locator('[data-testid=not-found]').waitFor();
  });

  test('the public form is submitted without signing in, with UTM values and click ids', async () => {
    // The board asks the LGPD consent (issue 33): its text beside a checkbox, recorded when ticked.
    const text = 'Aceito receber ofertas por e-mail e WhatsApp.';
    const set = await t.api.put(`/boards/${boardId}`, {
      data: { boardSettings: { formConsent: { text, channels: ['email', 'whatsapp'] } } },
    });
    expect(set.status).toBe(200);
    const visitor = await newPage(browser);
    const visitorErrors = watchConsole(visitor);
    await visitor.goto(`${base}/app/f/${boardId}?utm_source=google&utm_campaign=black-friday&gclid=abc123`);
    const form = visitor.locator('[data-testid=public-form]');
    await form.waitFor();
    await form.locator('input[name=nome-completo]').fill('Paula Ramos');
    await form.locator('input[name=email]').fill('paula@ramos.com.br');
    await form.locator('input[name=consentimento]').check();
    expect(await form.locator('[data-testid=form-consent]').textContent()).toBe(text);
    await form.getByLabel(text).check();
    await shot(visitor, '08-public-form');
    await form.getByRole('button', { name: 'Enviar' }).click();
    await visitor.locator('[data-testid=form-sent]').waitFor();
    const cards = await t.api.get(`/boards/${boardId}/cards`, {
      'filters[fields][email][$eq]': 'paula@ramos.com.br',
    });
    expect(cards.body.data[0]).toMatchObject({
      title: 'Paula Ramos',
      creationSource: 'form',
      tracking: { utm_source: 'google', utm_campaign: 'black-friday', gclid: 'abc123' },
    });
    const contact = cards.body.data[0].contact;
    expect(contact?.name).toBe('Paula Ramos');
    const consents = await t.api.get(`/contacts/${contact.documentId}/consents`);
    expect(consents.body.history.map((h: { channel: string }) => h.channel).sort()).toEqual([
      'email',
      'whatsapp',
    ]);
    expect(consents.body.history[0].proof).toMatchObject({ text, formId: boardId });
    expect(visitorErrors).toEqual([]);
    await visitor.context().close();
  });

  test('a file field of the public form uploads the file', async () => {
    const board = await t.api.post('/boards', {
      data: {
        name: 'Currículos',
        phases: [
          {
            name: 'Recebidos',
            fields: [
              { label: 'Nome', slug: 'nome', type: 'text', required: true },
              { label: 'Currículo', slug: 'curriculo', type: 'file', required: true },
            ],
          },
        ],
      },
    });
    expect(board.status).toBe(201);
    const visitor = await newPage(browser);
    await visitor.goto(`${base}/app/f/${board.body.documentId}?fbclid=fb-1`);
    await visitor.locator('input[name=nome]').fill('João Prado');
    await visitor.locator('input[name=curriculo]').setInputFiles({
      name: 'cv.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('João Prado — vendedor'),
    });
    await visitor.getByText('cv.txt').waitFor();
    await visitor.getByRole('button', { name: 'Enviar' }).click();
    await visitor.locator('[data-testid=form-sent]').waitFor();
    const cards = await t.api.get(`/boards/${board.body.documentId}/cards`);
    expect(cards.body.data[0].fields.curriculo[0]).toMatchObject({ name: 'cv.txt', mimeType: 'text/plain' });
    expect(cards.body.data[0].tracking).toEqual({ fbclid: 'fb-1' });
    await visitor.context().close();
  });

  test('sign up, create an organization, switch the language to English', async () => {
    const p = await newPage(browser);
    const pageErrors = watchConsole(p);
    const name = `web${Date.now().toString(36)}`;
    await p.goto(`${base}/app/signup`);
    await p.fill('input[name=username]', name);
    await p.fill('input[type=email]', `${name}@example.com`);
    await p.fill('input[type=password]', 'correct-horse-battery');
    await p.getByRole('button', { name: 'Criar conta' }).click();
    await p.getByRole('heading', { name: 'Escolha uma organização' }).waitFor();
    await p.getByLabel('Nome', { exact: true }).fill('Loja Nova');
    await p.getByLabel('Identificador (slug)').fill(name);
    await p.getByRole('button', { name: 'Criar' }).click();
    await p.getByRole('heading', { name: 'Quadros' }).waitFor();
    await p.getByLabel('Idioma').selectOption('en');
    await p.getByRole('heading', { name: 'Boards' }).waitFor();
    expect(await p.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(pageErrors).toEqual([]);
    await p.context().close();
  });

  test('a viewer sees the board without write controls', async () => {
    const p = await newPage(browser);
    const viewerErrors = watchConsole(p);
    await p.goto(`${base}/app/`);
    await p.fill('input[type=email]', viewer.email);
    await p.fill('input[type=password]', viewer.password);
    await p.click('button[type=submit]');
    await p.click(`button[data-org="${t.slug}"]`);
    await p.goto(`${base}/app/boards/${boardId}`);
    const first = p.locator(`[data-phase-id="${phase('novo-lead')}"] [data-card-id]`).first();
    await first.waitFor();
    await p.getByText('Você tem acesso somente leitura.').waitFor();
    expect(await first.getAttribute('aria-roledescription')).toBeNull();
    await first.click();
    const drawer = p.locator('[data-testid=card-drawer]');
    await drawer.locator('#drawer-title').waitFor();
    await drawer.locator('fieldset').first().waitFor();
    expect(await drawer.locator('button[type=submit]').count()).toBe(0);
    expect(await drawer.locator('#new-comment').count()).toBe(0);
    expect(await drawer.locator('select[name=move]').count()).toBe(0);
    expect(await drawer.locator('input[name=title]').isDisabled()).toBe(true);
    await shot(p, '09-viewer');
    expect(viewerErrors).toEqual([]);
    await p.context().close();
  });

  test('no console errors on the way', () => {
    expect(errors).toEqual([]);
  });
});
