import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { addMember, getApp, newTenant, type Tenant, type TestUser, testConfig } from '../helpers/app.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * A contact's custom fields edited by their JSON type, and a card's files downloaded from the drawer, in pt-BR, in
 * a real Chromium against the listening service. In the contact editor each custom field has a key, a type (text,
 * number, yes or no, date) and a control of that type: a number not given is refused at its field before any
 * request; a key the service does not take comes back refused at the key, in words; the values saved are read
 * through the API with their types (a number stays a number, a boolean a boolean, a date its ISO day), shown on
 * the contact as the language writes them, and a removed field goes. A file uploaded to a card's file field is
 * listed in the drawer with its name, its size and "Baixar", which saves the very bytes (the download needs the
 * session's token: fetched, then saved from a blob). A viewer sees the values and downloads, without editing.
 * Audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: typed contact custom fields, card file downloads (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let viewer: TestUser;
  let browser: Browser;
  let contactId: string;
  let boardId: string;
  let cardId: string;
  // A PDF with bytes no text encoding keeps as they are: a download that re-encodes would change them.
  const contract = Buffer.concat([
    Buffer.from('%PDF-1.4\n'),
    Buffer.from(Array.from({ length: 2900 }, (_, i) => (i * 7 + 128) % 256 || 1)),
    Buffer.from('\n%%EOF\n'),
  ]);
  const fileName = 'contrato-assinado.pdf';

  const signedIn = (user: TestUser, phone = false) =>
    signedInPage(browser, base, user, t.slug, { phone, acceptDownloads: true });
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
  const stored = async () => (await t.api.get(`/contacts/${contactId}`)).body.customFields;
  /** The editor's row index of a custom field's key (rows follow the stored order, which is the database's). */
  const rowOf = async (dialog: Locator, key: string) => {
    const keys = await dialog
      .locator('input[name^=custom-key-]')
      .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    expect(keys).toContain(key);
    return keys.indexOf(key);
  };
  /** Opens the contact's editor from its page. */
  async function editor(p: Page) {
    await p.goto(`${base}/app/contacts/${contactId}`);
    await p.getByTestId('contact-detail').getByRole('button', { name: 'Editar' }).click();
    const dialog = p.locator('dialog[open]');
    await dialog.getByRole('heading', { name: 'Editar contato' }).waitFor();
    return dialog;
  }
  /** Clicks the drawer's "Baixar" of a file; the saved file's name and bytes. */
  async function download(p: Page, name: string) {
    const [saved] = await Promise.all([
      p.waitForEvent('download'),
      p
        .getByTestId('card-drawer')
        .getByRole('link', { name: `Baixar ${name}` })
        .click(),
    ]);
    return { name: saved.suggestedFilename(), bytes: await readFile((await saved.path())!) };
  }

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    const v = await addMember(t, 'viewer');
    viewer = v.user;
    const contact = await t.api.post('/contacts', {
      data: { name: 'Marina Costa', email: 'marina@costa.com.br', customFields: { segmento: 'varejo' } },
    });
    expect(contact.status).toBe(201);
    contactId = contact.body.documentId;

    const board = await t.api.post('/boards', {
      data: {
        name: 'Contratos',
        phases: [
          { name: 'Assinatura', fields: [{ label: 'Contrato', type: 'file' }] },
          { name: 'Arquivado' },
        ],
      },
    });
    expect(board.status).toBe(201);
    boardId = board.body.documentId;
    // The viewer sees the board (a viewer sees the boards it is related to).
    expect((await t.api.put(`/boards/${boardId}`, { data: { members: [v.membershipId] } })).status).toBe(200);
    // The file goes up through the public upload (multipart), as the forms send it; the card takes it.
    const form = new FormData();
    form.append('file', new Blob([contract], { type: 'application/pdf' }), fileName);
    const uploaded = await fetch(`${base}/api/boards/${boardId}/public-upload`, {
      method: 'POST',
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const file = (await uploaded.json()) as { documentId: string; size: number };
    expect(file.size).toBe(contract.length);
    const card = await t.api.post(`/boards/${boardId}/cards`, {
      data: { title: 'Contrato Marina Costa', fields: { contrato: [file.documentId] } },
    });
    expect(card.status).toBe(201);
    cardId = card.body.documentId;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  test('custom fields set by type, refusals at their field, read back through the API with their types', async () => {
    const p = await signedIn(t.user);
    // The service's refusal of a key is a 400; Chromium logs it.
    const errors = watchConsole(p, [400]);
    const dialog = await editor(p);
    // The stored text field: its key, the type "Texto", its value.
    expect(await dialog.locator('select[name=custom-kind-0]').inputValue()).toBe('text');
    expect(await dialog.locator('input[name=custom-value-0]').inputValue()).toBe('varejo');

    // A number field whose number is not given: refused at its value, before any request.
    await dialog.getByRole('button', { name: 'Adicionar campo' }).click();
    await dialog.locator('input[name=custom-key-1]').fill('pedidos');
    await dialog.locator('select[name=custom-kind-1]').selectOption('number');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    const numberField = dialog.locator('.ds-field.has-error', {
      has: p.locator('input[name=custom-value-1]'),
    });
    await numberField.waitFor();
    expect(await numberField.locator('.ds-error').textContent()).toBe('Informe um número');
    expect(await dialog.locator('input[name=custom-value-1]').getAttribute('type')).toBe('number');
    await dialog.locator('input[name=custom-value-1]').fill('42.5');

    // A yes-or-no field under a key with a space, and a date: the service refuses the key, shown at it.
    await dialog.getByRole('button', { name: 'Adicionar campo' }).click();
    await dialog.locator('input[name=custom-key-2]').fill('cliente vip');
    await dialog.locator('select[name=custom-kind-2]').selectOption('boolean');
    await dialog.locator('input[name=custom-value-2]').check();
    await dialog.getByRole('button', { name: 'Adicionar campo' }).click();
    await dialog.locator('input[name=custom-key-3]').fill('renovacao');
    await dialog.locator('select[name=custom-kind-3]').selectOption('date');
    await dialog.locator('input[name=custom-value-3]').fill('15/03/2026');
    const [refused] = await Promise.all([
      p.waitForResponse(
        (r) => r.url().includes(`/api/contacts/${contactId}`) && r.request().method() === 'PUT',
      ),
      dialog.getByRole('button', { name: 'Salvar' }).click(),
    ]);
    expect(refused.status()).toBe(400);
    const keyField = dialog.locator('.ds-field.has-error', { has: p.locator('input[name=custom-key-2]') });
    await keyField.waitFor();
    expect(await keyField.locator('.ds-error').textContent()).toBe(
      'Chave recusada: use só letras sem acento, números, _ . - (até 64)',
    );
    expect(await dialog.locator('input[name=custom-key-2]').getAttribute('aria-invalid')).toBe('true');
    await dialog.locator('input[name=custom-key-2]').scrollIntoViewIfNeeded();
    await shot(p, 'web-155-contact-key-refused');
    expect(await stored()).toEqual({ segmento: 'varejo' });

    await dialog.locator('input[name=custom-key-2]').fill('cliente_vip');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Contato salvo.');
    const saved = await stored();
    expect(saved).toEqual({ segmento: 'varejo', pedidos: 42.5, cliente_vip: true, renovacao: '2026-03-15' });
    expect(typeof saved.pedidos).toBe('number');
    expect(typeof saved.cliente_vip).toBe('boolean');

    // The contact shows them as the language writes them.
    const detail = p.getByTestId('contact-detail');
    await detail.locator('dd[data-custom=pedidos]', { hasText: '42,5' }).waitFor();
    expect(await detail.locator('dd[data-custom=cliente_vip]').textContent()).toBe('Sim');
    expect(await detail.locator('dd[data-custom=renovacao]').textContent()).toBe('15/03/2026');
    expect(await detail.locator('dd[data-custom=segmento]').textContent()).toBe('varejo');

    // Edited again: each row comes back with its type; the box unticked stays a boolean, a field removed goes.
    const again = await editor(p);
    const vip = await rowOf(again, 'cliente_vip');
    expect(await again.locator(`select[name=custom-kind-${vip}]`).inputValue()).toBe('boolean');
    expect(await again.locator(`input[name=custom-value-${vip}]`).isChecked()).toBe(true);
    await again.locator(`input[name=custom-value-${vip}]`).uncheck();
    const orders = await rowOf(again, 'pedidos');
    expect(await again.locator(`select[name=custom-kind-${orders}]`).inputValue()).toBe('number');
    await again.locator(`input[name=custom-value-${orders}]`).fill('7');
    const renewal = await rowOf(again, 'renovacao');
    expect(await again.locator(`select[name=custom-kind-${renewal}]`).inputValue()).toBe('date');
    expect(await again.locator(`input[name=custom-value-${renewal}]`).inputValue()).toBe('15/03/2026');
    await again.getByRole('button', { name: 'Remover o campo segmento' }).click();
    await again.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Contato salvo.');
    await expect.poll(stored).toEqual({ pedidos: 7, cliente_vip: false, renovacao: '2026-03-15' });
    await detail.locator('dd[data-custom=cliente_vip]', { hasText: 'Não' }).waitFor();
    expect(await detail.locator('dd[data-custom=segmento]').count()).toBe(0);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('odd stored values: a day that is not one stays a text, a key named like an object property is a key; a save sends only what changed', async () => {
    const odd = await t.api.post('/contacts', {
      data: {
        name: 'Otávio Dados Importados',
        customFields: { vencimento: '0000-00-00', fim: '2024-02-30', constructor: 'x', toString: 3 },
      },
    });
    expect(odd.status).toBe(201);
    const p = await signedIn(t.user);
    const errors = watchConsole(p);
    await p.goto(`${base}/app/contacts/${odd.body.documentId}`);
    const detail = p.getByTestId('contact-detail');
    // Shown as they are (formatting them as dates threw and left the page blank).
    await detail.getByText('0000-00-00').waitFor();
    await detail.getByText('2024-02-30').waitFor();
    await detail.getByRole('button', { name: 'Editar' }).click();
    const dialog = p.locator('dialog[open]');
    await dialog.getByRole('heading', { name: 'Editar contato' }).waitFor();
    expect(
      await dialog.locator(`select[name=custom-kind-${await rowOf(dialog, 'vencimento')}]`).inputValue(),
    ).toBe('text');
    await dialog.getByLabel('Nome', { exact: true }).fill('Otávio Importado');
    const sent: unknown[] = [];
    p.on('request', (r) => {
      if (r.method() === 'PUT' && r.url().includes('/api/contacts/')) sent.push(r.postDataJSON());
    });
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Contato salvo');
    const back = (await t.api.get(`/contacts/${odd.body.documentId}`)).body;
    expect(back.name).toBe('Otávio Importado');
    expect(back.customFields).toEqual({
      vencimento: '0000-00-00',
      fim: '2024-02-30',
      constructor: 'x',
      toString: 3,
    });
    // Nothing of the custom fields changed, so none was sent.
    expect((sent[0] as { data: Record<string, unknown> }).data.customFields).toBeUndefined();
    expect(errors).toEqual([]);
  });

  test('a card file field lists its file with its size, and "Baixar" saves the very bytes', async () => {
    const p = await signedIn(t.user);
    const errors = watchConsole(p);
    await p.goto(`${base}/app/boards/${boardId}/cards/${cardId}`);
    const drawer = p.getByTestId('card-drawer');
    const files = drawer.getByRole('list', { name: 'Arquivos de Contrato' });
    await files.getByText(fileName).waitFor();
    // 2.916 bytes, as pt-BR writes them (Intl): 2,8 kB.
    expect(await files.locator('li').textContent()).toContain('2,8 kB');
    await files.scrollIntoViewIfNeeded();
    await shot(p, 'web-155-card-file-download');
    const saved = await download(p, fileName);
    expect(saved.name).toBe(fileName);
    expect(saved.bytes.equals(contract)).toBe(true);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('a viewer sees the typed values and downloads the file, without editing either', async () => {
    const p = await signedIn(viewer);
    const errors = watchConsole(p);
    await p.goto(`${base}/app/contacts/${contactId}`);
    const detail = p.getByTestId('contact-detail');
    await detail.locator('dd[data-custom=pedidos]', { hasText: '7' }).waitFor();
    expect(await detail.locator('dd[data-custom=cliente_vip]').textContent()).toBe('Não');
    expect(await detail.locator('dd[data-custom=renovacao]').textContent()).toBe('15/03/2026');
    expect(await detail.getByRole('button', { name: 'Editar' }).count()).toBe(0);

    await p.goto(`${base}/app/boards/${boardId}/cards/${cardId}`);
    const drawer = p.getByTestId('card-drawer');
    await drawer.getByText(fileName).waitFor();
    expect(await drawer.locator('input[name=contrato]').isDisabled()).toBe(true);
    expect(await drawer.getByRole('button', { name: 'Salvar' }).count()).toBe(0);
    const saved = await download(p, fileName);
    expect(saved.bytes.equals(contract)).toBe(true);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('the editor with typed fields and the drawer with a file: pt-BR only, accessible, within a 390 px phone', async () => {
    const english = englishCatalogue();
    const problems: Record<string, string[]> = {};
    for (const phone of [false, true]) {
      const p = await signedIn(t.user, phone);
      const errors = watchConsole(p);
      const size = phone ? 'phone' : 'desktop';
      const dialog = await editor(p);
      await dialog.getByRole('button', { name: 'Adicionar campo' }).click();
      await dialog.locator('input[name=custom-key-3]').fill('observacao');
      await dialog.locator('input[name=custom-value-3]').fill('prefere contato à tarde');
      await dialog.getByRole('group', { name: 'Campos personalizados' }).scrollIntoViewIfNeeded();
      const found = await auditPage(p, { english, allowed: [t.user.username, t.slug, 'cliente_vip'], phone });
      if (found.length) problems[`web-155-contact-fields-${size}`] = found;
      await shot(p, `web-155-contact-fields-${size}`);
      await dialog.getByRole('button', { name: 'Cancelar' }).click();

      await p.goto(`${base}/app/boards/${boardId}/cards/${cardId}`);
      const drawer = p.getByTestId('card-drawer');
      await drawer.getByText(fileName).waitFor();
      await drawer.getByRole('list', { name: 'Arquivos de Contrato' }).scrollIntoViewIfNeeded();
      const inDrawer = await auditPage(p, {
        english,
        allowed: [t.user.username, t.slug, 'cliente_vip'],
        phone,
      });
      if (inDrawer.length) problems[`web-155-card-files-${size}`] = inDrawer;
      await shot(p, `web-155-card-files-${size}`);
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 90_000);
});
