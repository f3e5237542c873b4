import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { a11y, englishCatalogue, pageTexts, tooWide, untranslated } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, watchConsole } from './helpers.js';

/**
 * A phase's colour (issue 31 item 1, "phases with order, SLA and colour"), in pt-BR, end to end: picked in the
 * board editor for a phase and for a new one, stored through the API, shown on the Kanban column as a stripe and a
 * dot (the name keeps the text colour), taken away again; another organization cannot change it; the editor and
 * the Kanban audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: phase colours (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let other: Tenant;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let boardId: string;
  const phases = async () =>
    (await t.api.get(`/boards/${boardId}`)).body.phases as {
      name: string;
      documentId: string;
      color: string;
    }[];
  const phaseId = async (name: string) => (await phases()).find((p) => p.name === name)!.documentId;
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
  /** What the column of a phase shows: its dot's colour (none: null) and its name's text colour. */
  const column = async (p: Page, id: string) => {
    const col = p.locator(`[data-phase-id="${id}"]`);
    await col.locator('h2').waitFor();
    const dot = col.locator('.phase-dot');
    return {
      dot: (await dot.count()) ? await dot.evaluate((el) => getComputedStyle(el).backgroundColor) : null,
      dotHidden: (await dot.count()) ? await dot.getAttribute('aria-hidden') : null,
      stripe: await col.locator('header').evaluate((el) => getComputedStyle(el).boxShadow),
      name: await col.locator('h2').evaluate((el) => getComputedStyle(el).color),
    };
  };

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    other = await newTenant(app);
    const res = await t.api.post('/boards', {
      data: { name: 'Vendas', phases: [{ name: 'Novo' }, { name: 'Em negociação' }, { name: 'Fechado' }] },
    });
    boardId = res.body.documentId;
    browser = await launchBrowser();
    page = await signedIn();
    errors = watchConsole(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
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
    await p.goto(`${base}/app/`);
    await p.fill('input[type=email]', t.user.email);
    await p.fill('input[type=password]', t.user.password);
    await p.click('button[type=submit]');
    await p.click(`button[data-org="${t.slug}"]`);
    await p.getByRole('heading', { name: 'Quadros' }).waitFor();
    return p;
  }

  test('a colour picked in the editor shows on the Kanban column; taken away, it goes', async () => {
    await page.goto(`${base}/app/boards/${boardId}/edit`);
    await page.getByTestId('board-editor').waitFor();
    const row = page.locator('[data-phase]').nth(1);
    await row.getByText('Sem cor.').waitFor();
    expect(await page.getByRole('button', { name: 'Tirar a cor da fase Em negociação' }).count()).toBe(0);

    // A colour for an existing phase.
    await page.locator('input[name=phase-color-1]').fill('#c62828');
    await page.getByRole('button', { name: 'Tirar a cor da fase Em negociação' }).waitFor();
    expect(await row.getByText('Sem cor.').count()).toBe(0);
    await page.getByRole('button', { name: 'Salvar a fase Em negociação' }).click();
    await toast(page, 'Fase “Em negociação” salva.');
    await expect.poll(async () => (await phases())[1].color).toBe('#c62828');

    // A new phase with its colour.
    await page.locator('input[name=new-phase-name]').fill('Perdido');
    await page.locator('input[name=new-phase-color]').fill('#1565c0');
    await page.getByRole('button', { name: 'Adicionar fase' }).click();
    await toast(page, 'Fase “Perdido” criada.');
    expect((await phases()).map((p) => [p.name, p.color])).toEqual([
      ['Novo', null],
      ['Em negociação', '#c62828'],
      ['Fechado', null],
      ['Perdido', '#1565c0'],
    ]);
    await shot(page, 'phase-color-editor');

    // The Kanban: a stripe and a dot in the colour; the name in the text colour, as in a column without one.
    await page.getByRole('link', { name: 'Abrir o Kanban' }).click();
    const [novo, negociacao, perdido] = [
      await phaseId('Novo'),
      await phaseId('Em negociação'),
      await phaseId('Perdido'),
    ];
    const plain = await column(page, novo);
    const red = await column(page, negociacao);
    const blue = await column(page, perdido);
    expect(plain.dot).toBeNull();
    expect(plain.stripe).toBe('none');
    expect(red).toMatchObject({ dot: 'rgb(198, 40, 40)', dotHidden: 'true' });
    expect(red.stripe).toContain('rgb(198, 40, 40)');
    expect(blue.dot).toBe('rgb(21, 101, 192)');
    expect(red.name).toBe(plain.name);
    expect(blue.name).toBe(plain.name);
    await shot(page, 'phase-color-kanban');

    // Another organization cannot change it.
    const path = `/boards/${boardId}/phases/${negociacao}`;
    expect((await other.api.put(path, { data: { color: '#000000' } })).status).toBe(404);
    expect((await other.api.put(path, { data: { color: null } })).status).toBe(404);
    expect((await phases())[1].color).toBe('#c62828');

    // Taken away in the editor: stored as null, the column plain again.
    await page.goto(`${base}/app/boards/${boardId}/edit`);
    await page.getByTestId('board-editor').waitFor();
    await page.getByRole('button', { name: 'Tirar a cor da fase Em negociação' }).click();
    await row.getByText('Sem cor.').waitFor();
    await page.getByRole('button', { name: 'Salvar a fase Em negociação' }).click();
    await toast(page, 'Fase “Em negociação” salva.');
    await expect.poll(async () => (await phases())[1].color).toBeNull();
    await page.getByRole('link', { name: 'Abrir o Kanban' }).click();
    await page.locator(`[data-phase-id="${perdido}"] .phase-dot`).waitFor();
    // The editor's toast comes before its refetch: the Kanban may open on the board read before the change.
    await expect.poll(async () => (await column(page, negociacao)).dot).toBeNull();
    expect(errors).toEqual([]);
  }, 90_000);

  test('the editor and the Kanban with colours audited on a desktop and a phone', async () => {
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    for (const phone of [false, true]) {
      const p = await signedIn(phone);
      const errs = watchConsole(p);
      for (const [where, url] of [
        ['editor', `${base}/app/boards/${boardId}/edit`],
        ['kanban', `${base}/app/boards/${boardId}`],
      ] as const) {
        await p.goto(url);
        if (where === 'editor') await p.getByTestId('board-editor').waitFor();
        else await p.locator('.phase-dot').first().waitFor();
        await p.waitForTimeout(200);
        const found = [
          ...untranslated(await pageTexts(p), english, [t.user.username]),
          ...(await a11y(p)),
          ...(phone ? await tooWide(p) : []),
        ];
        if (found.length) problems[`${where} ${phone ? 'phone' : 'desktop'}`] = found;
        if (phone && where === 'editor') {
          await p.locator('input[name=phase-color-3]').scrollIntoViewIfNeeded();
          await shot(p, 'phase-color-phone-editor');
        }
      }
      expect(errs).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 90_000);
});
