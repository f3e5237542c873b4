import type { FastifyInstance } from 'fastify';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { addMember, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * A card's products and a quote started from the card drawer, in pt-BR, end to end: a member adds two products
 * found in the catalogue by search (the price taken from the product, a discount), the totals in reais read back
 * through the API (and the card's value following them), a quantity changed, a price below the product's minimum
 * refused at its field; "Criar proposta" makes a draft quote with the card's lines, opened in the quote editor and
 * found through the API; a line taken off after confirming (the quote keeps it); a viewer reads without write
 * controls; another organization reaches neither the card nor its lines; the drawer audited on a desktop and a
 * 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: a card’s products and a quote from the drawer (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let other: Tenant;
  let browser: Browser;
  let boardId: string;
  let boardName: string;
  let cardId: string;
  let member: { email: string; password: string };
  let viewer: { email: string; password: string };
  let reader: { email: string; password: string };

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    other = await newTenant(app);
    const m = await addMember(t, 'member');
    const v = await addMember(t, 'viewer');
    const r = await addMember(t, 'member');
    member = m.user;
    viewer = v.user;
    reader = r.user;
    const pipeline = await createPipeline(t.api, { enableProducts: true, autoUpdateCardValue: true });
    boardId = pipeline.boardId;
    boardName = pipeline.board.name;
    // The member edits the board; the viewer and another member (the reader) only see it.
    const shared = await t.api.put(`/boards/${boardId}`, {
      data: { editors: [m.membershipId], members: [v.membershipId, r.membershipId] },
    });
    expect(shared.status).toBe(200);
    const contact = await t.api.post('/contacts', {
      data: { name: 'Vitória Souza', email: 'vitoria@acme.test' },
    });
    expect(contact.status).toBe(201);
    cardId = (await createCard(t.api, boardId, { title: 'Negócio Acme', contact: contact.body.documentId }))
      .documentId;
    for (const data of [
      { name: 'Licença CRM Pro', sku: 'CRM-PRO', price: 1200.5, minPrice: 900, unit: 'licença' },
      { name: 'Implantação', sku: 'IMPL', price: 500, minPrice: 400 },
      { name: 'Treinamento', sku: 'TREINO', price: 80 },
    ]) {
      expect((await t.api.post('/products', { data })).status).toBe(201);
    }
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const signedIn = (who: { email: string; password: string }, slug = t.slug, phone = false) =>
    signedInPage(browser, base, who, slug, { phone });
  /** The card's drawer opened from its address, its products section shown. */
  async function drawerOf(p: Page) {
    await p.goto(`${base}/app/boards/${boardId}/cards/${cardId}`);
    const products = p.locator('[data-testid=card-drawer] [data-testid=card-products]');
    await products.waitFor();
    return products;
  }
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
  /** A text as a person reads it: Intl writes a no-break space between R$ and the amount. */
  const text = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\u00a0/g, ' ');
  const productId = async (sku: string) =>
    (await t.api.get(`/products?filters[sku][$eq]=${sku}`)).body.data[0].documentId as string;
  const lines = async () => (await t.api.get(`/boards/${boardId}/cards/${cardId}/products`)).body;

  test('a member adds two products, changes a quantity, starts a quote, takes a line off', async () => {
    const p = await signedIn(member);
    const errors = watchConsole(p, [422]);
    const s = await drawerOf(p);
    await s.getByText('Nenhum produto neste card.').waitFor();

    // Found by search; the price comes from the product.
    await s.getByLabel('Buscar produto pelo nome ou SKU').fill('crm');
    await s.getByRole('button', { name: /^Licença CRM Pro · CRM-PRO/ }).click();
    await s.getByText('Escolhido: Licença CRM Pro · CRM-PRO').waitFor();
    expect(await s.locator('input[name=card-product-unit-price]').inputValue()).toBe('1200,5');
    await s.locator('input[name=card-product-quantity]').fill('2');
    await s.getByRole('button', { name: 'Adicionar produto' }).click();
    await toast(p, 'Produto adicionado ao card.');
    await s.locator('[data-line-id]').first().waitFor();

    // The second by its SKU, at another price with a discount.
    await s.getByLabel('Buscar produto pelo nome ou SKU').fill('IMP');
    await s.getByRole('button', { name: /^Implantação · IMPL/ }).click();
    await s.locator('input[name=card-product-quantity]').fill('3');
    await s.locator('input[name=card-product-unit-price]').fill('480');
    await s.locator('input[name=card-product-discount]').fill('10');
    await s.getByRole('button', { name: 'Adicionar produto' }).click();
    await toast(p, 'Produto adicionado ao card.');
    await expect.poll(() => s.locator('[data-line-id]').count()).toBe(2);

    // 2 × 1.200,50 + 3 × 480 − 10 % = 2.401,00 + 1.296,00.
    const totals = s.getByTestId('card-products-totals');
    await expect.poll(() => text(totals)).toContain('R$ 3.697,00');
    expect(await text(totals)).toContain('R$ 3.841,00');
    expect(await text(totals)).toContain('R$ 144,00');
    let body = await lines();
    expect(body.meta.totals).toEqual({ subtotal: 3841, discount: 144, total: 3697 });
    expect(
      body.data.map((l: { sku: string; quantity: number; unitPrice: number; discount: number }) => l),
    ).toEqual([
      expect.objectContaining({ sku: 'CRM-PRO', quantity: 2, unitPrice: 1200.5, discount: 0, total: 2401 }),
      expect.objectContaining({ sku: 'IMPL', quantity: 3, unitPrice: 480, discount: 10, total: 1296 }),
    ]);
    // The board keeps the card's value equal to its products.
    expect((await t.api.get(`/boards/${boardId}/cards/${cardId}`)).body.value).toBe(3697);

    // A quantity changed.
    const pro = s.getByRole('form', { name: 'Linha de Licença CRM Pro' });
    await pro.locator('input[name=line-quantity]').fill('1');
    await pro.getByRole('button', { name: 'Salvar a linha de Licença CRM Pro' }).click();
    await toast(p, 'Linha salva.');
    await expect.poll(() => text(totals)).toContain('R$ 2.496,50');
    body = await lines();
    expect(body.data[0]).toMatchObject({ sku: 'CRM-PRO', quantity: 1 });
    expect(body.meta.totals.total).toBe(2496.5);

    // A price that after the discount falls below the minimum: refused at the field, nothing changed.
    const impl = s.getByRole('form', { name: 'Linha de Implantação' });
    await impl.locator('input[name=line-unit-price]').fill('420');
    await impl.getByRole('button', { name: 'Salvar a linha de Implantação' }).click();
    const refusal = impl.locator('.ds-field.has-error .ds-error');
    await refusal.waitFor();
    expect(await text(refusal)).toBe('Preço R$ 378,00 abaixo do mínimo R$ 400,00 de IMPL.');
    expect((await lines()).data[1].unitPrice).toBe(480);
    await impl.locator('input[name=line-unit-price]').fill('480');
    expect(await impl.locator('.ds-field.has-error').count()).toBe(0);

    // A quote from the card's lines, opened in the quote editor.
    await s.getByRole('button', { name: 'Criar proposta' }).click();
    await toast(p, 'Proposta 1 criada com os produtos do card.');
    const d = p.locator('dialog[open]');
    await d.getByRole('heading', { name: 'Editar proposta 1' }).waitFor();
    expect(await d.locator('select[name=item-2-product] option:checked').textContent()).toBe(
      'Implantação · IMPL',
    );
    expect(await text(d.getByTestId('quote-totals'))).toContain('R$ 2.496,50');
    await shot(p, 'card-products-quote');
    const found = await t.api.get(`/quotes?filters[card][documentId][$eq]=${cardId}`);
    expect(found.body.data).toHaveLength(1);
    const quote = found.body.data[0];
    expect(quote).toMatchObject({
      number: 1,
      title: 'Negócio Acme',
      status: 'draft',
      currency: 'BRL',
      card: { documentId: cardId, title: 'Negócio Acme' },
      contact: { name: 'Vitória Souza' },
      subtotal: 2640.5,
      discount: 144,
      total: 2496.5,
    });
    expect(
      quote.items.map((i: Record<string, unknown>) => [i.sku, i.quantity, i.unitPrice, i.discount, i.total]),
    ).toEqual([
      ['CRM-PRO', 1, 1200.5, 0, 1200.5],
      ['IMPL', 3, 480, 10, 1296],
    ]);
    // Completed in the editor and saved; the card lists it.
    await d.locator('select[name=quote-status]').selectOption('sent');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Proposta salva.');
    const quotes = s.getByTestId('card-quotes');
    await expect.poll(() => text(quotes)).toContain('Proposta 1 Enviada · R$ 2.496,50');
    expect((await t.api.get(`/quotes/${quote.documentId}`)).body.status).toBe('sent');

    // A line taken off after confirming; the quote keeps what it offered.
    await s.getByRole('button', { name: 'Tirar Implantação do card' }).click();
    await p.getByTestId('confirm-yes').click();
    await toast(p, 'Produto tirado do card.');
    await expect.poll(() => s.locator('[data-line-id]').count()).toBe(1);
    await expect.poll(() => text(totals)).toContain('R$ 1.200,50');
    body = await lines();
    expect(body.data.map((l: { sku: string }) => l.sku)).toEqual(['CRM-PRO']);
    expect(body.meta.totals.total).toBe(1200.5);
    expect((await t.api.get(`/quotes/${quote.documentId}`)).body.items).toHaveLength(2);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 120_000);

  test('a viewer reads the products and quotes without write controls', async () => {
    const p = await signedIn(viewer);
    const errors = watchConsole(p);
    const s = await drawerOf(p);
    await s.locator('[data-line-id]').first().waitFor();
    expect(await text(s.locator('[data-line-id]').first())).toContain('1 licença × R$ 1.200,50');
    await expect.poll(() => text(s.getByTestId('card-quotes'))).toContain('Proposta 1');
    expect(await s.locator('input, select, textarea').count()).toBe(0);
    expect(await s.getByRole('button').count()).toBe(0);
    expect(await s.getByRole('form').count()).toBe(0);
    await shot(p, 'card-products-viewer');
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('a member who sees the board but does not edit it gets no card or line controls (the API would refuse them)', async () => {
    const p = await signedIn(reader);
    const errors = watchConsole(p);
    const s = await drawerOf(p);
    await s.locator('[data-line-id]').first().waitFor();
    expect(await s.locator('[data-line-id] input').count()).toBe(0);
    expect(await s.locator('input[name=card-product-search]').count()).toBe(0);
    // The card's own fields are shown, not editable; the API says why.
    await p.locator('[data-testid=card-drawer] fieldset[disabled]').first().waitFor();
    const put = await fetch(`${base}/api/boards/${boardId}/cards/${cardId}`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        'x-tenant-id': t.slug,
        authorization: `Bearer ${await p.evaluate(() => JSON.parse(localStorage.getItem('crm.session')!).jwt)}`,
      },
      body: JSON.stringify({ data: { title: 'Mudado' } }),
    });
    expect(put.status).toBe(403);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('another organization reaches neither the card nor its lines', async () => {
    const line = (await lines()).data[0];
    const path = `/boards/${boardId}/cards/${cardId}/products`;
    expect((await other.api.get(path)).status).toBe(404);
    expect((await other.api.post(path, { data: { product: line.product, quantity: 1 } })).status).toBe(404);
    expect((await other.api.put(`${path}/${line.documentId}`, { data: { quantity: 5 } })).status).toBe(404);
    expect((await other.api.delete(`${path}/${line.documentId}`)).status).toBe(404);
    expect((await lines()).data).toHaveLength(1);
    const p = await signedIn(other.user, other.slug);
    const errors = watchConsole(p, [404]);
    await p.goto(`${base}/app/boards/${boardId}/cards/${cardId}`);
    await p.locator('[data-testid=not-found]').waitFor();
    expect(await p.getByTestId('card-products').count()).toBe(0);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('audited on a desktop and a phone', async () => {
    await t.api.post(`/boards/${boardId}/cards/${cardId}/products`, {
      data: { product: await productId('TREINO'), quantity: 4, discount: 5 },
    });
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    // User data: the board's name, the SKUs, and the English phase and field names the pipeline factory gives.
    const allowed = [boardName, 'CRM-PRO', 'IMPL', 'TREINO', 'Lost', 'Name'];
    for (const phone of [false, true]) {
      const p = await signedIn(t.user, t.slug, phone);
      const errors = watchConsole(p);
      const check = async (where: string) => {
        await p.waitForTimeout(200);
        const found = await auditPage(p, { english, allowed, phone });
        if (found.length) problems[`${where} ${phone ? 'phone' : 'desktop'}`] = found;
      };
      const s = await drawerOf(p);
      await s.locator('[data-line-id]').nth(1).waitFor();
      await s.getByTestId('card-quotes').getByText('Proposta 1').waitFor();
      await s.getByLabel('Buscar produto pelo nome ou SKU').fill('tre');
      await s.getByRole('button', { name: /^Treinamento · TREINO/ }).waitFor();
      await s.scrollIntoViewIfNeeded();
      await check('card products');
      await shot(p, `card-products-${phone ? 'phone' : 'desktop'}`);
      // The quote editor opened from the drawer.
      await s.getByRole('button', { name: 'Editar a proposta 1' }).click();
      await p.locator('dialog[open] select[name=item-1-product]').waitFor();
      await check('quote from the card');
      // Escape closes the quote editor, not the drawer under it.
      await p.keyboard.press('Escape');
      await p.locator('dialog[open]').waitFor({ state: 'detached' });
      await p.waitForTimeout(200);
      expect(await p.locator('[data-testid=card-drawer]').count()).toBe(1);
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 120_000);
});
