import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { addMember, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';
import { a11y, englishCatalogue, pageTexts, tooWide, untranslated } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, watchConsole } from './helpers.js';

/**
 * Products, quotes and distribution queues (issue 31 item 1) in pt-BR, end to end: a product created with a new
 * category (a duplicate SKU refused beside the field), edited, sorted, deleted after confirming; a quote for a
 * contact and a card with lines from the catalogue (a price below the minimum refused under its line, totals in
 * reais), sent, its PDF downloaded; a weighted queue for a board with two people by name (a second queue for the
 * same board refused), paused, resumed, changed, deleted; each checked through the API and not seen by another
 * organization; the pages audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: products, quotes, distribution (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let other: Tenant;
  let browser: Browser;
  let boardId: string;
  let boardName: string;
  let bruno: string;
  let brunoLogin: { email: string; password: string };

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    other = await newTenant(app);
    await t.userApi.put('/users/me', { name: 'Carla Mendes' });
    const member = await addMember(t, 'member');
    bruno = member.membershipId;
    brunoLogin = member.user;
    await apiAs(member.user.jwt).put('/users/me', { name: 'Bruno Dias' });
    const pipeline = await createPipeline(t.api);
    boardId = pipeline.boardId;
    boardName = pipeline.board.name;
    await createCard(t.api, boardId, { title: 'Negócio Acme' });
    const c = await t.api.post('/contacts', { data: { name: 'Vitória Souza', email: 'vitoria@acme.test' } });
    expect(c.status).toBe(201);
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  function apiAs(jwt: string) {
    return {
      put: (path: string, body: unknown) =>
        app.inject({
          method: 'PUT',
          url: `/api${path}`,
          headers: { authorization: `Bearer ${jwt}` },
          payload: body as object,
        }),
    };
  }

  async function signedIn(phone = false, who: { email: string; password: string } = t.user) {
    const c = await browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 1400, height: 900 },
      ...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
      locale: 'pt-BR',
      timezoneId: 'America/Sao_Paulo',
      acceptDownloads: true,
    });
    c.setDefaultTimeout(10_000);
    const p = await c.newPage();
    await p.goto(`${base}/app/`);
    await p.fill('input[type=email]', who.email);
    await p.fill('input[type=password]', who.password);
    await p.click('button[type=submit]');
    await p.click(`button[data-org="${t.slug}"]`);
    await p.getByRole('heading', { name: 'Quadros' }).waitFor();
    return p;
  }
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
  const dialog = (p: Page) => p.locator('dialog[open]');
  /** A text as a person reads it: Intl writes a no-break space between R$ and the amount. */
  const text = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\u00a0/g, ' ');

  test('products: created with a category, a duplicate SKU refused, edited, sorted, deleted', async () => {
    const p = await signedIn();
    const errors = watchConsole(p, [400]);
    await p.goto(`${base}/app/more`);
    await p.getByRole('link', { name: /^Produtos/ }).click();
    await p.getByRole('heading', { name: 'Produtos' }).waitFor();
    await p.getByText('Nenhum produto no catálogo ainda.').waitFor();

    // A product with a category created in the same dialog; the price typed as pt-BR writes it.
    await p.getByRole('button', { name: 'Novo produto' }).click();
    const d = dialog(p);
    await d.locator('input[name=product-name]').fill('Licença CRM Pro');
    await d.locator('input[name=product-sku]').fill('CRM-PRO');
    await d.locator('input[name=product-price]').fill('1.200,50');
    await d.locator('input[name=product-min-price]').fill('900');
    await d.locator('input[name=product-unit]').fill('licença');
    await d.locator('input[name=product-new-category]').fill('Software');
    await d.getByRole('button', { name: 'Criar categoria' }).click();
    await toast(p, 'Categoria criada.');
    expect(await d.locator('select[name=product-category] option:checked').textContent()).toBe('Software');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Produto salvo.');
    const row = p.locator('tr', { hasText: 'Licença CRM Pro' });
    await row.waitFor();
    expect(await text(row)).toContain('R$ 1.200,50');
    expect(await text(row)).toContain('Software');
    const [pro] = (await t.api.get('/products')).body.data;
    expect(pro).toMatchObject({
      name: 'Licença CRM Pro',
      sku: 'CRM-PRO',
      price: 1200.5,
      minPrice: 900,
      unit: 'licença',
      active: true,
      category: { name: 'Software' },
    });

    // The same SKU in other letters: refused beside the field, nothing created.
    await p.getByRole('button', { name: 'Novo produto' }).click();
    await d.locator('input[name=product-name]').fill('Cópia');
    await d.locator('input[name=product-sku]').fill('crm-pro');
    await d.locator('input[name=product-price]').fill('10');
    await d.getByRole('button', { name: 'Salvar' }).click();
    const refusal = d.locator('.ds-field.has-error .ds-error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('já está em uso');
    expect((await t.api.get('/products')).body.data).toHaveLength(1);
    await shot(p, 'sales-product-refused');

    // Two more: one to quote with a minimum price, one to delete.
    await d.locator('input[name=product-name]').fill('Implantação');
    await d.locator('input[name=product-sku]').fill('IMPL');
    await d.locator('input[name=product-price]').fill('500');
    await d.locator('input[name=product-min-price]').fill('450');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Produto salvo.');
    await p.getByRole('button', { name: 'Novo produto' }).click();
    await d.locator('input[name=product-name]').fill('Treinamento');
    await d.locator('input[name=product-sku]').fill('TREINO');
    await d.locator('input[name=product-price]').fill('80,5');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Produto salvo.');
    await p.locator('tr', { hasText: 'Treinamento' }).waitFor();

    // Edited: a new price.
    await p.getByRole('button', { name: 'Editar Licença CRM Pro' }).click();
    expect(await d.locator('input[name=product-price]').inputValue()).toBe('1200,5');
    await d.locator('input[name=product-price]').fill('1.100');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Produto salvo.');
    await p.locator('tr', { hasText: /R\$\s1\.100,00/ }).waitFor();
    expect((await t.api.get(`/products/${pro.documentId}`)).body.price).toBe(1100);

    // Sorted by price, cheapest first then dearest first.
    const names = () => p.locator('[data-testid=product-list] tbody tr td:first-child').allTextContents();
    await p.getByRole('button', { name: 'Preço', exact: true }).click();
    await p.locator('th[aria-sort=ascending]').waitFor();
    await expect.poll(names).toEqual(['Treinamento', 'Implantação', 'Licença CRM Pro']);
    await p.getByRole('button', { name: 'Preço', exact: true }).click();
    await p.locator('th[aria-sort=descending]').waitFor();
    await expect.poll(names).toEqual(['Licença CRM Pro', 'Implantação', 'Treinamento']);
    await shot(p, 'sales-products');

    // Deleted after confirming.
    await p.getByRole('button', { name: 'Excluir Treinamento' }).click();
    await p.getByTestId('confirm-yes').click();
    await toast(p, 'Produto excluído.');
    await expect.poll(names).toEqual(['Licença CRM Pro', 'Implantação']);
    expect((await t.api.get('/products')).body.data.map((x: { sku: string }) => x.sku).sort()).toEqual([
      'CRM-PRO',
      'IMPL',
    ]);
    expect((await other.api.get(`/products/${pro.documentId}`)).status).toBe(404);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 90_000);

  test('quotes: a quote with lines (a price below the minimum refused), sent, its PDF downloaded', async () => {
    const p = await signedIn();
    const errors = watchConsole(p, [422]);
    await p.goto(`${base}/app/products`);
    await p.getByRole('link', { name: 'Propostas' }).click();
    await p.getByRole('heading', { name: 'Propostas' }).waitFor();
    await p.getByText('Nenhuma proposta ainda.').waitFor();

    await p.getByRole('button', { name: 'Nova proposta' }).click();
    const d = dialog(p);
    await d.locator('input[name=quote-title]').fill('Acme — 2 licenças');
    // For a contact found by name, and a card found by title on its board.
    await d.locator('input[name=quote-contact-search]').fill('Vitória');
    await d.getByRole('button', { name: /Vitória Souza/ }).click();
    await d.getByText('Escolhido: Vitória Souza').waitFor();
    await d.locator('select[name=quote-card-board]').selectOption({ label: boardName });
    await d.locator('input[name=quote-card-search]').fill('Acme');
    await d.getByRole('button', { name: 'Negócio Acme' }).click();
    await d.getByText('Escolhido: Negócio Acme').waitFor();
    await d.locator('input[name=quote-valid-until]').fill('31/12/2026');
    // Two lines: 2 licences at 10 % off, the set-up below its minimum price.
    await d.getByRole('button', { name: 'Adicionar item' }).click();
    await d.locator('select[name=item-1-product]').selectOption({ label: 'Licença CRM Pro · CRM-PRO' });
    expect(await d.locator('input[name=item-1-unit-price]').inputValue()).toBe('1100');
    await d.locator('input[name=item-1-quantity]').fill('2');
    await d.locator('input[name=item-1-discount]').fill('10');
    expect(await text(d.getByTestId('item-1-total'))).toBe('R$ 1.980,00');
    await d.getByRole('button', { name: 'Adicionar item' }).click();
    await d.locator('select[name=item-2-product]').selectOption({ label: 'Implantação · IMPL' });
    await d.locator('input[name=item-2-unit-price]').fill('400');
    const totals = d.getByTestId('quote-totals');
    expect(await text(totals)).toContain('R$ 2.600,00');
    expect(await text(totals)).toContain('R$ 2.380,00');
    await d.getByRole('button', { name: 'Salvar' }).click();
    const lineError = d.locator('[data-line="2"] .sales-line-error');
    await lineError.waitFor();
    expect(await text(lineError)).toBe('Item 2 (IMPL): preço R$ 400,00 abaixo do mínimo R$ 450,00.');
    await shot(p, 'sales-quote-refused');
    expect((await t.api.get('/quotes')).body.data).toHaveLength(0);

    await d.locator('input[name=item-2-unit-price]').fill('500');
    expect(await text(totals)).toContain('R$ 2.480,00');
    await shot(p, 'sales-quote-editor');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Proposta salva.');
    const row = p.locator('tr', { hasText: 'Acme — 2 licenças' });
    await row.waitFor();
    expect(await text(row)).toContain('Rascunho');
    expect(await text(row)).toContain('R$ 2.480,00');
    expect(await text(row)).toContain('31/12/2026');
    expect(await text(row)).toContain('Carla Mendes');
    const [quote] = (await t.api.get('/quotes')).body.data;
    expect(quote).toMatchObject({
      title: 'Acme — 2 licenças',
      status: 'draft',
      currency: 'BRL',
      validUntil: '2026-12-31',
      contact: { name: 'Vitória Souza' },
      card: { title: 'Negócio Acme' },
      subtotal: 2700,
      discount: 220,
      total: 2480,
    });
    expect(
      quote.items.map((i: { sku: string; quantity: number; discount: number }) => [
        i.sku,
        i.quantity,
        i.discount,
      ]),
    ).toEqual([
      ['CRM-PRO', 2, 10],
      ['IMPL', 1, 0],
    ]);

    // Sent: its items are fixed from then on; the status as a word in the list.
    await p.getByRole('button', { name: `Editar a proposta ${quote.number}` }).click();
    await d.locator('select[name=quote-status]').selectOption({ label: 'Enviada' });
    await d.getByText('Os itens de uma proposta só mudam enquanto ela é rascunho.').waitFor();
    expect(await d.locator('input[name=item-1-quantity]').isDisabled()).toBe(true);
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Proposta salva.');
    await row.getByText('Enviada').waitFor();
    expect((await t.api.get(`/quotes/${quote.documentId}`)).body).toMatchObject({
      status: 'sent',
      total: 2480,
    });

    // The PDF, downloaded through the page: a real PDF.
    const download = p.waitForEvent('download');
    await p.getByRole('button', { name: `Baixar o PDF da proposta ${quote.number}` }).click();
    const file = await (await download).path();
    const pdf = readFileSync(file);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.length).toBeGreaterThan(500);
    expect((await download).suggestedFilename()).toBe(`proposta-${quote.number}.pdf`);
    await toast(p, `PDF da proposta ${quote.number} baixado.`);
    await shot(p, 'sales-quotes');

    // Another organization sees neither the quote nor its PDF.
    expect((await other.api.get(`/quotes/${quote.documentId}`)).status).toBe(404);
    expect((await other.api.get(`/quotes/${quote.documentId}/pdf`)).status).toBe(404);

    // Filtered by status, then deleted after confirming.
    await p.locator('select[name=quote-status-filter]').selectOption({ label: 'Aceita' });
    await p.getByText('Nenhuma proposta ainda.').waitFor();
    await p.locator('select[name=quote-status-filter]').selectOption({ label: 'Enviada' });
    await row.waitFor();
    await p.getByRole('button', { name: `Excluir a proposta ${quote.number}` }).click();
    await p.getByTestId('confirm-yes').click();
    await toast(p, 'Proposta excluída.');
    expect((await t.api.get(`/quotes/${quote.documentId}`)).status).toBe(404);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 90_000);

  test('distribution: a weighted queue by name, a second one for the board refused, paused, resumed, changed, deleted', async () => {
    const p = await signedIn();
    const errors = watchConsole(p, [400]);
    await p.goto(`${base}/app/more`);
    await p.getByRole('link', { name: /Filas de distribuição/ }).click();
    await p.getByRole('heading', { name: /Filas de distribuição/ }).waitFor();
    await p.getByText('Nenhuma fila ainda.').waitFor();

    await p.getByRole('button', { name: 'Nova fila' }).click();
    const d = dialog(p);
    await d.locator('input[name=queue-name]').fill('SDRs');
    await d.locator('select[name=queue-board]').selectOption({ label: boardName });
    await d.getByRole('radio', { name: /Por peso/ }).check();
    await d.getByRole('checkbox', { name: 'Carla Mendes', exact: true }).check();
    await d.getByRole('checkbox', { name: 'Bruno Dias', exact: true }).check();
    await d.getByRole('spinbutton', { name: 'Peso de Bruno Dias' }).fill('3');
    await shot(p, 'sales-queue-editor');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Fila salva.');
    const row = p.locator('tr', { hasText: 'SDRs' });
    await row.waitFor();
    for (const word of [`Quadro ${boardName}`, 'Por peso', 'Carla Mendes', 'Bruno Dias', 'Ativa'])
      expect(await text(row)).toContain(word);
    const [queue] = (await t.api.get('/distribution-queues')).body.data;
    expect(queue).toMatchObject({
      name: 'SDRs',
      strategy: 'weighted',
      active: true,
      board: { documentId: boardId },
    });
    expect(
      queue.members
        .map((m: { membership: { documentId: string }; weight: number }) => [
          m.membership.documentId,
          m.weight,
        ])
        .sort(),
    ).toEqual(
      [
        [bruno, 3],
        [t.membershipId, 1],
      ].sort(),
    );

    // The queue works: a new card without an assignee gets one of its people.
    const card = await createCard(t.api, boardId, { title: 'Lead da fila' });
    const assigned = (await t.api.get(`/boards/${boardId}/cards/${card.documentId}`)).body;
    expect(JSON.stringify(assigned)).toMatch(new RegExp(`${bruno}|${t.membershipId}`));

    // A second queue for the same board: refused in words.
    await p.getByRole('button', { name: 'Nova fila' }).click();
    await d.locator('input[name=queue-name]').fill('Outra');
    await d.locator('select[name=queue-board]').selectOption({ label: boardName });
    await d.getByRole('checkbox', { name: 'Carla Mendes', exact: true }).check();
    await d.getByRole('button', { name: 'Salvar' }).click();
    await d.getByText('Esse quadro ou caixa de entrada já tem uma fila.').waitFor();
    await d.getByRole('button', { name: 'Cancelar' }).click();
    expect((await t.api.get('/distribution-queues')).body.data).toHaveLength(1);

    // Paused and resumed.
    await p.getByRole('button', { name: 'Pausar SDRs' }).click();
    await toast(p, 'Fila pausada');
    await row.getByText('Pausada').waitFor();
    expect((await t.api.get(`/distribution-queues/${queue.documentId}`)).body.active).toBe(false);
    await p.getByRole('button', { name: 'Retomar SDRs' }).click();
    await toast(p, 'Fila retomada.');
    expect((await t.api.get(`/distribution-queues/${queue.documentId}`)).body.active).toBe(true);

    // Changed: in turn, Bruno no longer receives.
    await p.getByRole('button', { name: 'Editar SDRs' }).click();
    await d.getByText(`Quadro ${boardName}`).waitFor();
    await d.getByRole('radio', { name: /Em rodízio/ }).check();
    await d.getByRole('checkbox', { name: 'Recebe: Bruno Dias' }).uncheck();
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Fila salva.');
    await row.getByText('Em rodízio').waitFor();
    const changed = (await t.api.get(`/distribution-queues/${queue.documentId}`)).body;
    expect(changed.strategy).toBe('round_robin');
    expect(
      changed.members.find((m: { membership: { documentId: string } }) => m.membership.documentId === bruno),
    ).toMatchObject({
      active: false,
    });
    await shot(p, 'sales-queues');
    expect((await other.api.get(`/distribution-queues/${queue.documentId}`)).status).toBe(404);

    // Deleted after confirming.
    await p.getByRole('button', { name: 'Excluir SDRs' }).click();
    await p.getByTestId('confirm-yes').click();
    await toast(p, 'Fila excluída.');
    await p.getByText('Nenhuma fila ainda.').waitFor();
    expect((await t.api.get('/distribution-queues')).body.data).toHaveLength(0);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 90_000);

  test('a member quotes but leaves products and queues to admins; English words and amounts', async () => {
    const p = await signedIn(false, brunoLogin);
    const errors = watchConsole(p);
    await p.goto(`${base}/app/products`);
    await p.getByTestId('product-list').waitFor();
    await p.getByText('Só administradores da organização criam e alteram produtos.').waitFor();
    expect(await p.getByRole('button', { name: 'Novo produto' }).count()).toBe(0);
    expect(await p.getByRole('button', { name: /^Editar / }).count()).toBe(0);
    await p.goto(`${base}/app/distribution`);
    await p.getByText('Só administradores da organização criam e alteram filas.').waitFor();
    expect(await p.getByRole('button', { name: 'Nova fila' }).count()).toBe(0);
    await p.goto(`${base}/app/quotes`);
    await p.getByRole('button', { name: 'Nova proposta' }).waitFor();

    // In English: the words and the amounts follow the language.
    await p.locator('select').filter({ hasText: 'Português' }).selectOption('en');
    await p.getByRole('heading', { name: 'Quotes' }).waitFor();
    await p.getByRole('button', { name: 'New quote' }).click();
    const d = dialog(p);
    await d.getByRole('button', { name: 'Add item' }).click();
    await d.locator('select[name=item-1-product]').selectOption({ label: 'Licença CRM Pro · CRM-PRO' });
    await d.locator('input[name=item-1-quantity]').fill('1.5');
    expect(await text(d.getByTestId('item-1-total'))).toBe('R$1,650.00');
    expect(await d.locator('select[name=quote-status] option:checked').textContent()).toBe('Draft');
    await d.getByRole('button', { name: 'Cancel' }).click();
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('audited on a desktop and a phone', async () => {
    // Something on every page: a product, a quote, a queue.
    const prod = await t.api.post('/products', { data: { name: 'Suporte', sku: 'SUP', price: 99.9 } });
    await t.api.post('/quotes', {
      data: {
        title: 'Suporte anual',
        currency: 'BRL',
        items: [{ product: prod.body.documentId, quantity: 12 }],
      },
    });
    await t.api.post('/distribution-queues', {
      data: { name: 'Plantão', board: boardId, strategy: 'least_open', members: [{ membership: bruno }] },
    });
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    const allowed = [boardName, 'SUP', 'CRM-PRO', 'IMPL'];
    for (const phone of [false, true]) {
      const p = await signedIn(phone);
      const errors = watchConsole(p);
      const check = async (where: string) => {
        await p.waitForTimeout(200);
        const found = [
          ...untranslated(await pageTexts(p), english, allowed),
          ...(await a11y(p)),
          ...(phone ? await tooWide(p) : []),
        ];
        if (found.length) problems[`${where} ${phone ? 'phone' : 'desktop'}`] = found;
      };
      for (const [path, ready] of [
        ['more', 'a[href="/app/distribution"]'],
        ['products', '[data-testid=product-list]'],
        ['quotes', '[data-testid=quote-list]'],
        ['distribution', '[data-testid=queue-list]'],
      ]) {
        await p.goto(`${base}/app/${path}`);
        await p.locator(ready).waitFor();
        await check(path);
        await shot(p, `sales-${path}-${phone ? 'phone' : 'desktop'}`);
      }
      // The editors open.
      await p.goto(`${base}/app/quotes`);
      await p
        .getByRole('button', { name: /^Editar a proposta/ })
        .first()
        .click();
      await dialog(p).locator('select[name=item-1-product]').waitFor();
      await check('quote editor');
      await shot(p, `sales-quote-editor-${phone ? 'phone' : 'desktop'}`);
      await p.goto(`${base}/app/distribution`);
      await p.getByRole('button', { name: 'Editar Plantão' }).click();
      await dialog(p).locator('input[name=queue-name]').waitFor();
      await check('queue editor');
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 120_000);
});
