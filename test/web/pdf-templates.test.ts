import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import {
  ITEM_COLUMNS as API_COLUMNS,
  PLACEHOLDERS as API_PLACEHOLDERS,
} from '../../src/modules/pdf-templates/layout.js';
import { ITEM_COLUMNS, PAGE_SIZES, PLACEHOLDERS } from '../../web/src/lib/pdf-vocabulary.js';
import { addMember, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { pdfText } from '../modules/quotes/pdf.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * PDF templates and product categories in pt-BR, end to end: a template created from the starter layout (an
 * unknown placeholder refused under the text that holds it, nothing saved), a block added and one removed, made the
 * default, previewed as a PDF with sample data, edited (a margin under the minimum refused at its field), another
 * made the default from the list, the default deleted after confirming (quotes back on the built-in layout); a
 * quote's PDF with a template picked for it; categories renamed (a taken name refused at its field) and deleted
 * after confirming (its products stay, without a category). Each read back through the API; a viewer and a member
 * see the templates and preview them with no write action; another organization reaches nothing; the pages
 * audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: PDF templates and product categories (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let other: Tenant;
  let browser: Browser;
  let member: { email: string; password: string };
  let viewer: { email: string; password: string };
  let memberApi: Tenant['api'];
  let quote: { documentId: string; number: number };
  let acmeId = '';

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    other = await newTenant(app);
    const m = await addMember(t, 'member');
    member = m.user;
    memberApi = m.api;
    viewer = (await addMember(t, 'viewer')).user;
    const contact = await t.api.post('/contacts', {
      data: { name: 'Vitória Souza', email: 'vitoria@acme.test' },
    });
    expect(contact.status).toBe(201);
    const software = await t.api.post('/product-categories', { data: { name: 'Software' } });
    expect((await t.api.post('/product-categories', { data: { name: 'Serviços' } })).status).toBe(201);
    const product = await t.api.post('/products', {
      data: { name: 'Licença CRM Pro', sku: 'CRM-PRO', price: 1200, category: software.body.documentId },
    });
    expect(product.status).toBe(201);
    const q = await t.api.post('/quotes', {
      data: {
        title: 'Acme',
        contact: contact.body.documentId,
        currency: 'BRL',
        items: [{ product: product.body.documentId, quantity: 2 }],
      },
    });
    expect(q.status).toBe(201);
    quote = q.body;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const signedIn = (who: { email: string; password: string } = t.user, phone = false) =>
    signedInPage(browser, base, who, t.slug, { phone, acceptDownloads: true });
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
  const dialog = (p: Page) => p.locator('dialog[open]').first();
  const templates = async () =>
    (await t.api.get('/pdf-templates')).body.data as {
      documentId: string;
      name: string;
      isDefault: boolean;
      layout: { pageSize: string; margin: number; locale?: string; blocks: Record<string, unknown>[] };
    }[];
  /** The text of the PDF a click downloads, and the file's name. */
  async function downloaded(p: Page, click: () => Promise<void>) {
    const download = p.waitForEvent('download');
    await click();
    const file = readFileSync((await (await download).path())!);
    expect(file.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    return { text: await pdfText(file), name: (await download).suggestedFilename() };
  }

  test("the web app's placeholders, item columns and page sizes are the service's", async () => {
    expect([...PLACEHOLDERS]).toEqual([...API_PLACEHOLDERS]);
    expect([...ITEM_COLUMNS]).toEqual([...API_COLUMNS]);
    const { pdfLayout } = await import('../../src/modules/pdf-templates/layout.js');
    expect([...PAGE_SIZES]).toEqual(pdfLayout.shape.pageSize.unwrap().options);
  });

  test('a template: refused at its field, created as the default, previewed, edited, another made default, deleted', async () => {
    const p = await signedIn();
    const errors = watchConsole(p, [400]);
    await p.goto(`${base}/app/more`);
    await p.getByRole('link', { name: /^Modelos de PDF/ }).click();
    await p.getByRole('heading', { name: 'Modelos de PDF' }).waitFor();
    await p.getByText('Nenhum modelo ainda.').waitFor();
    expect(await p.getByTestId('pdf-default').textContent()).toContain('layout embutido');

    // The starter layout in pt-BR; an unknown placeholder in block 2 refused under that text, nothing saved.
    await p.getByRole('button', { name: 'Novo modelo' }).click();
    const d = dialog(p);
    await d.locator('input[name=template-name]').fill('Proposta Acme');
    expect(await d.locator('input[name=block-3-row-1-label]').inputValue()).toBe('Data');
    await d.locator('textarea[name=block-2-text]').fill('Proposta {{quote.numero}}');
    await d.getByRole('button', { name: 'Salvar' }).click();
    const refusal = d.locator('[data-block="2"] .ds-field.has-error .ds-error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('Marcador desconhecido: {{quote.numero}}');
    expect(await templates()).toEqual([]);
    await d.locator('[data-block="2"]').scrollIntoViewIfNeeded();
    await shot(p, 'web-150-template-refused');

    // Fixed; a text block added at the end, the card's line (block 6) removed, made the default.
    await d.locator('textarea[name=block-2-text]').fill('Proposta nº {{quote.number}} — {{quote.title}}');
    await d.locator('select[name=template-new-block]').selectOption('text');
    await d.getByRole('button', { name: 'Adicionar bloco' }).click();
    await d.locator('textarea[name=block-12-text]').fill('Obrigado pela preferência, {{contact.name}}.');
    await d.locator('select[name=block-12-align]').selectOption('center');
    await d.locator('input[name=block-12-bold]').check();
    await d.getByRole('button', { name: 'Tirar o bloco 6' }).click();
    await d.locator('input[name=template-default]').check();
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Modelo salvo.');
    const row = p.locator('tr', { hasText: 'Proposta Acme' });
    await row.getByText('Padrão').waitFor();
    await expect.poll(() => p.getByTestId('pdf-default').textContent()).toContain('padrão: Proposta Acme');
    const [acme] = await templates();
    acmeId = acme.documentId;
    expect(acme.isDefault).toBe(true);
    expect(acme.layout.blocks).toHaveLength(11);
    expect(acme.layout.blocks[1]).toMatchObject({
      type: 'text',
      text: 'Proposta nº {{quote.number}} — {{quote.title}}',
    });
    expect(acme.layout.blocks.some((b) => b.when === 'card.title')).toBe(false);
    expect(acme.layout.blocks[10]).toEqual({
      type: 'text',
      text: 'Obrigado pela preferência, {{contact.name}}.',
      align: 'center',
      bold: true,
    });
    expect(acme.layout.locale).toBe('pt-BR');
    expect(acme.layout.blocks[6]).toMatchObject({
      type: 'items',
      labels: { name: 'Produto', quantity: 'Qtd.' },
    });

    // Previewed with sample data: the PDF carries the template's own words.
    const sample = await downloaded(p, () =>
      p.getByRole('button', { name: 'Visualizar o PDF de Proposta Acme com dados de exemplo' }).click(),
    );
    expect(sample.name).toBe('proposta-acme.pdf');
    expect(sample.text).toContain('Obrigado pela preferência, Maria Exemplo.');
    // A new template writes as the chosen language does: amounts in reais, Portuguese sample data.
    expect(sample.text.replace(/\u00a0/g, ' ')).toContain('R$ 670,00');
    expect(sample.text).toContain('Preço unitário');
    await toast(p, 'PDF de exemplo de Proposta Acme baixado.');

    // Edited: a margin under the service's minimum refused at its field, then a letter page with 36 pt.
    await p.getByRole('button', { name: 'Editar Proposta Acme' }).click();
    expect(await d.locator('input[name=template-margin]').inputValue()).toBe('50');
    await d.locator('input[name=template-margin]').fill('10');
    await d.getByRole('button', { name: 'Salvar' }).click();
    const margin = d.locator('.ds-field.has-error', { has: p.locator('input[name=template-margin]') });
    await margin.locator('.ds-error').waitFor();
    expect(await margin.locator('.ds-error').textContent()).toBe('No mínimo 18.');
    await d.locator('input[name=template-margin]').fill('36');
    await d.locator('select[name=template-page-size]').selectOption('LETTER');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Modelo salvo.');
    await row.getByText('Carta').waitFor();
    expect((await t.api.get(`/pdf-templates/${acmeId}`)).body.layout).toMatchObject({
      pageSize: 'LETTER',
      margin: 36,
    });

    // Another template made the default from the list: Acme stops being it.
    const simple = await t.api.post('/pdf-templates', {
      data: {
        name: 'Simples',
        layout: { blocks: [{ type: 'heading', text: 'Simples {{quote.number}}' }, { type: 'items' }] },
      },
    });
    expect(simple.status).toBe(201);
    await p.reload();
    await p.getByRole('button', { name: 'Tornar padrão: Simples' }).click();
    await toast(p, 'Simples é o modelo padrão.');
    await expect.poll(() => p.getByTestId('pdf-default').textContent()).toContain('padrão: Simples');
    expect((await templates()).map((x) => [x.name, x.isDefault])).toEqual([
      ['Proposta Acme', false],
      ['Simples', true],
    ]);

    // The default deleted after confirming (the dialog says quotes go back to the built-in layout).
    await p.getByRole('button', { name: 'Excluir Simples' }).click();
    await p.getByText('Simples é o padrão: sem ele, as propostas saem com o layout embutido.').waitFor();
    await p.getByTestId('confirm-yes').click();
    await toast(p, 'Modelo excluído.');
    await p.locator('tr', { hasText: 'Simples' }).waitFor({ state: 'detached' });
    await expect.poll(() => p.getByTestId('pdf-default').textContent()).toContain('layout embutido');
    expect((await templates()).map((x) => x.name)).toEqual(['Proposta Acme']);
    // Another organization reaches none of it.
    expect((await other.api.get(`/pdf-templates/${acmeId}`)).status).toBe(404);
    expect((await other.api.get('/pdf-templates')).body.data).toEqual([]);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 120_000);

  test("a quote's PDF with the template picked for it, or the organization's default", async () => {
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.goto(`${base}/app/quotes`);
    await p.getByRole('heading', { name: 'Propostas' }).waitFor();
    const pdfButton = p.getByRole('button', { name: `Baixar o PDF da proposta ${quote.number}` });
    // No default now: the built-in layout.
    const builtIn = await downloaded(p, () => pdfButton.click());
    expect(builtIn.text).not.toContain('Obrigado pela preferência');
    // Acme picked: its words with this quote's data.
    await p.locator('select[name=quote-pdf-template]').selectOption(acmeId);
    const picked = await downloaded(p, () => pdfButton.click());
    expect(picked.name).toBe(`proposta-${quote.number}.pdf`);
    expect(picked.text).toContain(`Proposta nº ${quote.number} — Acme`);
    expect(picked.text).toContain('Obrigado pela preferência, Vitória Souza.');
    expect(picked.text).toContain('Licença CRM Pro');
    await toast(p, `PDF da proposta ${quote.number} baixado.`);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('categories: renamed (a taken name refused at its field), deleted after confirming', async () => {
    const p = await signedIn();
    const errors = watchConsole(p, [400, 409]);
    await p.goto(`${base}/app/products`);
    await p.locator('tr', { hasText: 'Licença CRM Pro' }).getByText('Software').waitFor();
    await p.getByRole('button', { name: 'Categorias' }).click();
    const d = dialog(p);
    const software = d.locator('li', { has: p.locator('input[name=category-name]') }).filter({
      has: p.getByRole('button', { name: 'Excluir Software' }),
    });
    // Renamed to a name another category has: refused beside the field.
    await software.locator('input[name=category-name]').fill('Serviços');
    await software.getByRole('button', { name: 'Renomear Software' }).click();
    await software.locator('.ds-error').waitFor();
    expect(await software.locator('.ds-error').textContent()).toBe('já está em uso');
    await shot(p, 'web-150-category-refused');
    await software.locator('input[name=category-name]').fill('Software livre');
    await software.getByRole('button', { name: 'Renomear Software' }).click();
    await toast(p, 'Categoria renomeada.');
    const names = async () =>
      ((await t.api.get('/product-categories')).body.data as { name: string }[]).map((c) => c.name);
    expect(await names()).toEqual(['Serviços', 'Software livre']);
    // Deleted after confirming: its product stays, without a category.
    await d.getByRole('button', { name: 'Excluir Software livre' }).click();
    await p.getByText('Software livre sai do catálogo; os produtos dela continuam, sem categoria.').waitFor();
    await p.getByTestId('confirm-yes').click();
    await toast(p, 'Categoria excluída.');
    await d.getByRole('button', { name: 'Excluir Software livre' }).waitFor({ state: 'detached' });
    expect(await names()).toEqual(['Serviços']);
    const [product] = (await t.api.get('/products')).body.data;
    expect(product.category).toBeNull();
    await d.getByRole('button', { name: 'Fechar' }).click();
    await p
      .locator('tr', { hasText: 'Licença CRM Pro' })
      .locator('td[data-label=Categoria]', { hasText: '—' })
      .waitFor();
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('a viewer and a member: the templates to read and preview, no action that writes', async () => {
    for (const who of [viewer, member]) {
      const p = await signedIn(who);
      const errors = watchConsole(p);
      await p.goto(`${base}/app/pdf-templates`);
      await p.locator('tr', { hasText: 'Proposta Acme' }).waitFor();
      await p
        .getByText('Só administradores da organização criam e alteram modelos; todos podem visualizar.')
        .waitFor();
      for (const name of [
        'Novo modelo',
        'Editar Proposta Acme',
        'Excluir Proposta Acme',
        'Tornar padrão: Proposta Acme',
      ])
        expect(await p.getByRole('button', { name }).count()).toBe(0);
      const sample = await downloaded(p, () =>
        p.getByRole('button', { name: 'Visualizar o PDF de Proposta Acme com dados de exemplo' }).click(),
      );
      expect(sample.text).toContain('Obrigado pela preferência');
      await p.goto(`${base}/app/products`);
      await p.getByRole('heading', { name: 'Produtos' }).waitFor();
      expect(await p.getByRole('button', { name: 'Categorias' }).count()).toBe(0);
      expect(errors).toEqual([]);
      await p.context().close();
    }
    // The API refuses them too.
    expect((await memberApi.put(`/pdf-templates/${acmeId}`, { data: { isDefault: true } })).status).toBe(403);
    expect((await memberApi.delete(`/pdf-templates/${acmeId}`)).status).toBe(403);
    const [category] = (await t.api.get('/product-categories')).body.data;
    expect(
      (await memberApi.put(`/product-categories/${category.documentId}`, { data: { name: 'X' } })).status,
    ).toBe(403);
  }, 90_000);

  test('audited on a desktop and a phone', async () => {
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    const allowed = ['CRM-PRO', t.user.username, t.slug];
    for (const phone of [false, true]) {
      const p = await signedIn(t.user, phone);
      const errors = watchConsole(p, [400]);
      const check = async (where: string) => {
        await p.waitForTimeout(200);
        const found = await auditPage(p, { english, allowed, phone });
        if (found.length) problems[`${where} ${phone ? 'phone' : 'desktop'}`] = found;
      };
      const suffix = phone ? 'phone' : 'desktop';
      await p.goto(`${base}/app/pdf-templates`);
      await p.locator('tr', { hasText: 'Proposta Acme' }).waitFor();
      await check('templates');
      await shot(p, `web-150-templates-${suffix}`);
      // The editor, a refusal shown in it.
      await p.getByRole('button', { name: 'Editar Proposta Acme' }).click();
      const d = dialog(p);
      await d.locator('input[name=block-1-text]').fill('{{organizacao}}');
      await d.getByRole('button', { name: 'Salvar' }).click();
      await d.locator('[data-block="1"] .ds-error').waitFor();
      await d.locator('summary', { hasText: 'Marcadores disponíveis' }).click();
      await check('template editor');
      await d.locator('[data-block="1"]').scrollIntoViewIfNeeded();
      await shot(p, `web-150-template-editor-${suffix}`);
      await p.keyboard.press('Escape');
      await p.locator('dialog[open]').waitFor({ state: 'detached' });
      // The quotes with the template picker, the categories.
      await p.goto(`${base}/app/quotes`);
      await p.locator('select[name=quote-pdf-template]').waitFor();
      await check('quotes');
      await p.goto(`${base}/app/products`);
      await p.getByRole('button', { name: 'Categorias' }).click();
      await dialog(p).locator('input[name=category-name]').first().waitFor();
      await check('categories');
      await shot(p, `web-150-categories-${suffix}`);
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 150_000);
});
