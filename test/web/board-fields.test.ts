import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { a11y, englishCatalogue, pageTexts, tooWide, untranslated } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, watchConsole } from './helpers.js';

/**
 * A phase's fields reordered in the board editor and a card created with a file field (issue 31 item 1), in pt-BR,
 * end to end: the entry phase's fields moved up and down (by click and by keyboard, the focus kept on the moved
 * field), the order read back through the API and seen in the new-card dialog; a new card whose required file
 * field is refused empty, then a refused file type shown beside the field, then a PDF uploaded and the card created
 * with it (its value through the API, the file downloadable, not by another organization); the editor and the
 * dialog audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)(
  'web app: board fields ordered and a file field on a new card (Chromium)',
  () => {
    let app: FastifyInstance;
    let base: string;
    let t: Tenant;
    let browser: Browser;
    let page: Page;
    let errors: string[];
    let boardId: string;
    const board = async () => (await t.api.get(`/boards/${boardId}`)).body;
    const entryLabels = async () =>
      ((await board()).phases[0].fields as { label: string; order: number }[])
        .sort((a, b) => a.order - b.order)
        .map((f) => f.label);
    const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
    const pdf = Buffer.from('%PDF-1.4\n% contrato de teste\n');

    beforeAll(async () => {
      await ensureWebBuild();
      app = await buildApp({ config: testConfig(), db: (await getApp()).db });
      base = await app.listen({ port: 0, host: '127.0.0.1' });
      t = await newTenant(app);
      const created = await t.api.post('/boards', {
        data: {
          name: 'Documentos',
          phases: [
            {
              name: 'Recebido',
              fields: [
                { label: 'Cliente', type: 'text', required: true },
                { label: 'Telefone', type: 'phone' },
                { label: 'Contrato', type: 'file', required: true },
                { label: 'Anexos extras', type: 'file' },
              ],
            },
            { name: 'Conferido' },
          ],
        },
      });
      expect(created.status).toBe(201);
      boardId = created.body.documentId;
      browser = await launchBrowser();
      page = await signedIn();
      errors = watchConsole(page, [400, 415, 422]);
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

    /** The labels of the new-card dialog's entry fields, top to bottom. */
    const dialogLabels = (p: Page) =>
      p
        .locator('dialog[open] .new-card-field')
        .evaluateAll((els) =>
          els.map((el) =>
            (el.querySelector('label, legend')?.textContent ?? '').replace(/\s*\*\s*$/, '').trim(),
          ),
        );

    test("the entry phase's fields reordered in the editor: the API and the new-card dialog follow", async () => {
      await page.goto(`${base}/app/boards/${boardId}/edit`);
      await page.getByTestId('board-editor').waitFor();
      const fields = page.locator(
        `[data-fields-of="${(await board()).phases[0].documentId}"] .be-field strong`,
      );
      await fields.nth(3).waitFor();
      expect(await fields.allTextContents()).toEqual(['Cliente', 'Telefone', 'Contrato', 'Anexos extras']);
      // At the ends the arrows that lead nowhere are off.
      expect(await page.getByRole('button', { name: 'Subir o campo Cliente' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Descer o campo Anexos extras' }).isDisabled()).toBe(
        true,
      );

      // By click: "Contrato" up, above "Telefone".
      await page.getByRole('button', { name: 'Subir o campo Contrato' }).click();
      await toast(page, 'Campo “Contrato” movido.');
      await expect.poll(entryLabels).toEqual(['Cliente', 'Contrato', 'Telefone', 'Anexos extras']);
      await expect
        .poll(() => fields.allTextContents())
        .toEqual(['Cliente', 'Contrato', 'Telefone', 'Anexos extras']);

      // By keyboard: the focus stays on the moved field, so Enter moves it again; at the top, on its other arrow.
      await page.getByRole('button', { name: 'Subir o campo Contrato' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(entryLabels).toEqual(['Contrato', 'Cliente', 'Telefone', 'Anexos extras']);
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Descer o campo Contrato');
      await page.getByRole('button', { name: 'Descer o campo Telefone' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(entryLabels).toEqual(['Contrato', 'Cliente', 'Anexos extras', 'Telefone']);
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Subir o campo Telefone');
      await expect
        .poll(() => fields.allTextContents())
        .toEqual(['Contrato', 'Cliente', 'Anexos extras', 'Telefone']);
      // The orders are distinct positions 0..n-1.
      const orders = ((await board()).phases[0].fields as { order: number }[]).map((f) => f.order).sort();
      expect(orders).toEqual([0, 1, 2, 3]);
      await shot(page, 'board-fields-reordered');

      // The new-card dialog lists them in that order.
      await page.getByRole('link', { name: 'Abrir o Kanban' }).click();
      await page.getByTestId('new-card').click();
      await page.locator('dialog[open]').getByRole('heading', { name: 'Novo card em Recebido' }).waitFor();
      expect(await dialogLabels(page)).toEqual(['Contrato', 'Cliente', 'Anexos extras', 'Telefone']);
      await page.locator('dialog[open]').getByRole('button', { name: 'Cancelar' }).click();
    }, 60_000);

    test('a new card with a file field: empty refused, a wrong type refused, a PDF uploaded and kept', async () => {
      await page.getByTestId('new-card').click();
      const d = page.locator('dialog[open]');
      await d.getByRole('heading', { name: 'Novo card em Recebido' }).waitFor();
      await d.locator('input[name=cliente]').fill('Carla Dias');
      // The required file left empty: the API's refusal beside it.
      await d.getByRole('button', { name: 'Criar card' }).click();
      await d.locator('[data-error-for=contrato]').waitFor();
      expect(await d.locator('[data-error-for=contrato]').textContent()).toMatch(/^Contrato: /);
      expect((await t.api.get(`/boards/${boardId}/cards`)).body.data).toHaveLength(0);

      // A program is not a file the API takes: refused on upload, in words, beside the field.
      await d.locator('input[name=contrato]').setInputFiles({
        name: 'programa.exe',
        mimeType: 'application/x-msdownload',
        buffer: Buffer.from('MZ\u0000\u0001'),
      });
      await expect
        .poll(() => d.locator('[data-error-for=contrato]').textContent())
        .toBe(
          'Contrato: Tipo de arquivo não aceito: envie PDF, imagem (PNG, JPEG, GIF, WebP), texto, CSV ou documento do Office.',
        );
      await shot(page, 'board-fields-file-refused');

      // A PDF: uploaded at once, its name shown, the refusal gone; then the card is created with it.
      await d.locator('input[name=contrato]').setInputFiles({
        name: 'contrato-carla.pdf',
        mimeType: 'application/pdf',
        buffer: pdf,
      });
      await d.getByText('contrato-carla.pdf').waitFor();
      expect(await d.locator('[data-error-for=contrato]').count()).toBe(0);
      await shot(page, 'board-fields-file-uploaded');
      await d.getByRole('button', { name: 'Criar card' }).click();
      await toast(page, 'Card “Carla Dias” criado em Recebido.');
      const [card] = (await t.api.get(`/boards/${boardId}/cards`)).body.data;
      expect(card).toMatchObject({ title: 'Carla Dias', fields: { cliente: 'Carla Dias' } });
      const value = card.fields.contrato as unknown[];
      expect(value).toHaveLength(1);
      const fileId =
        typeof value[0] === 'string' ? (value[0] as string) : (value[0] as { documentId: string }).documentId;
      // The file is downloadable by the organization, as uploaded; another organization does not see it.
      const download = await t.api.get(`/boards/${boardId}/files/${fileId}`);
      expect(download.status).toBe(200);
      expect(download.headers['content-type']).toContain('application/pdf');
      expect(download.headers['content-disposition']).toContain('contrato-carla.pdf');
      expect(String(download.body)).toBe(pdf.toString());
      const other = await newTenant(app);
      expect((await other.api.get(`/boards/${boardId}/files/${fileId}`)).status).toBe(404);

      // In the card's drawer: the stored file by its name; another file added to "Anexos extras" goes up when
      // picked and is saved with the card.
      await page.locator(`[data-card-id="${card.documentId}"]`).click();
      const drawer = page.locator('[data-testid=card-drawer]');
      await drawer.waitFor();
      await drawer.getByText('contrato-carla.pdf').waitFor();
      await drawer.locator('input[name=anexos-extras]').setInputFiles({
        name: 'rg.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('frente e verso'),
      });
      await drawer.getByText('rg.txt').waitFor();
      await drawer.getByRole('button', { name: 'Salvar' }).click();
      await drawer.getByText('Salvo').waitFor();
      const extra = (await t.api.get(`/boards/${boardId}/cards/${card.documentId}`)).body.fields[
        'anexos-extras'
      ] as unknown[];
      expect(extra).toHaveLength(1);
      const extraId =
        typeof extra[0] === 'string' ? extra[0] : (extra[0] as { documentId: string }).documentId;
      expect((await t.api.get(`/boards/${boardId}/files/${extraId}`)).body).toBe('frente e verso');
      await page.keyboard.press('Escape');
      await drawer.waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
    }, 60_000);

    test('the editor and the new-card dialog with a file audited on a desktop and a phone', async () => {
      const problems: Record<string, string[]> = {};
      const english = englishCatalogue();
      for (const phone of [false, true]) {
        const p = await signedIn(phone);
        const errs = watchConsole(p);
        const where = phone ? 'phone' : 'desktop';
        await p.goto(`${base}/app/boards/${boardId}/edit`);
        await p.getByTestId('board-editor').waitFor();
        await p.getByRole('button', { name: 'Descer o campo Contrato' }).waitFor();
        await p.locator('#be-fields').scrollIntoViewIfNeeded();
        const audit = async (what: string) => {
          const found = [
            ...untranslated(await pageTexts(p), english, [t.user.username]),
            ...(await a11y(p)),
            ...(phone ? await tooWide(p) : []),
          ];
          if (found.length) problems[`${where} ${what}`] = found;
        };
        await audit('editor');
        await shot(p, `board-fields-editor-${where}`);
        await p.getByRole('link', { name: 'Abrir o Kanban' }).click();
        await p.getByTestId('new-card').click();
        const d = p.locator('dialog[open]');
        await d.getByRole('heading', { name: 'Novo card em Recebido' }).waitFor();
        await d.locator('input[name=contrato]').setInputFiles({
          name: 'contrato.pdf',
          mimeType: 'application/pdf',
          buffer: pdf,
        });
        await d.getByText('contrato.pdf').waitFor();
        await p.waitForTimeout(200);
        await audit('new card');
        await shot(p, `board-fields-new-card-${where}`);
        expect(errs).toEqual([]);
        await p.context().close();
      }
      expect(problems).toEqual({});
    }, 90_000);
  },
);
