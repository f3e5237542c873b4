import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { runContactImport } from '../../src/modules/contacts/import-jobs.js';
import { queryRows } from '../../src/platform/db/client.js';
import * as contactWords from '../../web/src/words/contacts.js';
import { addMember, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { a11y, englishCatalogue, pageTexts, tooWide, untranslated } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, watchConsole } from './helpers.js';

/**
 * The contacts page (issue 31 item 1) in pt-BR, end to end, each flow done in the page and checked through the
 * API: a contact created (a bad e-mail refused beside its field first) and edited in the full editor (a bad CPF
 * refused beside its field), its detail and timeline; two contacts merged (the survivor chosen, its empty fields
 * filled from the other); an owner, a type and a delete applied to the selected rows; a CSV imported by the
 * background job with its progress, counts and the skipped rows' lines and reasons; another organization sees
 * none of it; the page audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: contacts (Chromium)', () => {
  const config = testConfig();
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let other: Tenant;
  let browser: Browser;

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config, db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    other = await newTenant(app);
    // People by name: the owner pickers and the detail show it, never the username.
    expect((await t.userApi.put('/users/me', { name: 'Renata Alves' })).status).toBe(200);
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function signedIn(phone = false, who?: { user: { email: string; password: string }; slug: string }) {
    const as = who ?? t;
    const c = await browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 1400, height: 900 },
      ...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
      locale: 'pt-BR',
      timezoneId: 'America/Sao_Paulo',
    });
    c.setDefaultTimeout(10_000);
    const p = await c.newPage();
    await p.goto(`${base}/app/`);
    await p.fill('input[type=email]', as.user.email);
    await p.fill('input[type=password]', as.user.password);
    await p.click('button[type=submit]');
    await p.click(`button[data-org="${as.slug}"]`);
    await p.getByRole('heading', { name: 'Quadros' }).waitFor();
    return p;
  }
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
  const contactsNamed = async (name: string) =>
    (await t.api.get('/contacts', { 'filters[name][$eq]': name })).body.data as Record<string, any>[];
  const search = async (p: Page, q: string) => {
    await p.locator('input[name=q]').fill(q);
    await p.waitForTimeout(400);
  };

  test('a contact created and edited, refusals beside their fields; its detail and timeline', async () => {
    const p = await signedIn();
    const errors = watchConsole(p, [400, 422]);
    await p.goto(`${base}/app/contacts`);
    await p.getByRole('heading', { name: 'Contatos', level: 1 }).waitFor();
    // An empty organization: the empty state, no table.
    await p.getByText('Nenhum contato encontrado.').waitFor();

    // The quick form: a bad e-mail refused beside its field, nothing created.
    const quick = p.locator('form.ct-quick');
    await quick.locator('input[name=name]').fill('Beatriz Nogueira');
    await quick.locator('input[name=email]').fill('beatriz@');
    await quick.getByRole('button', { name: 'Criar' }).click();
    const emailError = quick.locator('.ds-field.has-error .ds-error');
    await emailError.waitFor();
    expect(await emailError.textContent()).toBe('e-mail inválido');
    expect(await contactsNamed('Beatriz Nogueira')).toHaveLength(0);

    await quick.locator('input[name=email]').fill('beatriz@nogueira.com.br');
    await quick.locator('input[name=phone]').fill('(81) 98765-4321');
    await quick.getByRole('button', { name: 'Criar' }).click();
    await toast(p, 'Contato criado.');
    const detail = p.getByTestId('contact-detail');
    await detail.getByRole('heading', { name: 'Beatriz Nogueira' }).waitFor();
    const [created] = await contactsNamed('Beatriz Nogueira');
    expect(created).toMatchObject({ email: 'beatriz@nogueira.com.br', phone: '+5581987654321' });
    const id = created.documentId as string;
    expect(p.url()).toContain(`/contacts/${id}`);

    // The full editor: a bad CPF refused beside its field (pt-BR), then every group filled and saved.
    await detail.getByRole('button', { name: 'Editar' }).click();
    const dialog = p.locator('dialog[open]');
    await dialog.getByRole('heading', { name: 'Editar contato' }).waitFor();
    await dialog.locator('input[name=contact-cpf]').fill('111.111.111-11');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    const cpfField = dialog.locator('.ds-field.has-error', { has: p.locator('input[name=contact-cpf]') });
    await cpfField.waitFor();
    expect(await cpfField.locator('.ds-error').textContent()).toBe('CPF inválido');
    await shot(p, 'contacts-editor-refused');
    expect((await t.api.get(`/contacts/${id}`)).body.cpf).toBeNull();

    await dialog.locator('input[name=contact-cpf]').fill('529.982.247-25');
    await dialog.locator('input[name=contact-city]').fill('Recife');
    await dialog.locator('input[name=contact-state]').fill('PE');
    await dialog.locator('input[name=contact-birthdate]').fill('17/05/1990');
    await dialog.locator('select[name=contact-owner]').selectOption(t.membershipId);
    await dialog.getByRole('button', { name: 'Adicionar campo' }).click();
    await dialog.locator('input[name=custom-key-0]').fill('segmento');
    await dialog.locator('input[name=custom-value-0]').fill('varejo');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Contato salvo.');
    await dialog.waitFor({ state: 'detached' });
    const saved = (await t.api.get(`/contacts/${id}`)).body;
    expect(saved).toMatchObject({
      cpf: '52998224725',
      city: 'Recife',
      state: 'PE',
      birthdate: '1990-05-17',
      owner: { documentId: t.membershipId },
      customFields: { segmento: 'varejo' },
    });
    // The detail in words and the chosen language's date; the timeline names the changed fields.
    await detail.locator('dd[data-field=birthdate]', { hasText: '17/05/1990' }).waitFor();
    expect(await detail.locator('dd[data-field=contact_type]').textContent()).toBe('Pessoa');
    expect(await detail.locator('dd[data-field=owner]').textContent()).toBe('Renata Alves');
    expect(await detail.locator('dd[data-field=phone]').textContent()).toBe('+55 (81) 98765-4321');
    expect(await detail.locator('dd[data-field=cpf]').textContent()).toBe('529.982.247-25');
    await detail.locator('.timeline li', { hasText: 'Contato atualizado' }).first().waitFor();
    const timeline = (await detail.locator('.timeline').textContent()) ?? '';
    expect(timeline).toContain('Data de nascimento');
    expect(timeline).not.toMatch(/birthdate|contact_updated/);
    // A note: an empty one asked for beside the field, then added to the timeline.
    await detail.getByRole('button', { name: 'Anotar' }).click();
    await detail.locator('.ct-note .ds-field.has-error', { hasText: 'Escreva a anotação.' }).waitFor();
    await detail.getByLabel('Nova anotação').fill('Prefere contato por WhatsApp à tarde\nNunca às segundas');
    await detail.getByRole('button', { name: 'Anotar' }).click();
    await toast(p, 'Anotação adicionada.');
    const note = detail.locator('.timeline li', { hasText: 'Prefere contato por WhatsApp à tarde' });
    // Its lines as written, not run together (innerText: the text as rendered, with the breaks CSS keeps).
    // biome-ignore lint/performance/useDomNodeTextContent: textContent has the line breaks whatever CSS does
    await expect.poll(() => note.evaluate((el) => (el as HTMLElement).innerText)).toContain('à tarde\nNunca');
    const notes = (await t.api.get(`/contacts/${id}/activities`)).body.data as Record<string, string>[];
    expect(notes.find((n) => n.activityType === 'note_added')?.description).toBe(
      'Prefere contato por WhatsApp à tarde\nNunca às segundas',
    );
    // The list row shows the city and the owner by name.
    const row = p.locator(`tr[data-contact-id="${id}"]`);
    await row.locator('td', { hasText: 'Recife' }).waitFor();
    expect(await row.textContent()).toContain('Renata Alves');
    await shot(p, 'contacts-detail');

    // Another organization: not found, in the API and in the page.
    expect((await other.api.get(`/contacts/${id}`)).status).toBe(404);
    expect((await other.api.get('/contacts')).body.data).toHaveLength(0);
    expect(errors).toEqual([]);
    await p.context().close();
    const o = await signedIn(false, other);
    const otherErrors = watchConsole(o, [404]);
    await o.goto(`${base}/app/contacts/${id}`);
    await o.getByTestId('not-found').waitFor();
    await o.getByText('Nenhum contato encontrado.').waitFor();
    expect(otherErrors).toEqual([]);
    await o.context().close();
  }, 90_000);

  test('two contacts merged: the survivor chosen, its empty fields filled from the other', async () => {
    const a = await t.api.post('/contacts', {
      data: { name: 'Carlos Pereira', email: 'carlos@pereira.com.br' },
    });
    const b = await t.api.post('/contacts', {
      data: { name: 'Carlos P.', phone: '(11) 91234-5678', city: 'Campinas' },
    });
    await t.api.post(`/contacts/${b.body.documentId}/notes`, {
      data: { description: 'Ligou pedindo proposta' },
    });
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.goto(`${base}/app/contacts`);
    await search(p, 'Carlos');
    await p.locator(`tr[data-contact-id="${b.body.documentId}"]`).waitFor();
    await p.getByRole('checkbox', { name: 'Selecionar Carlos Pereira' }).check();
    await p.getByRole('checkbox', { name: 'Selecionar Carlos P.' }).check();
    const bar = p.getByTestId('bulk-bar');
    expect(await bar.locator('strong').textContent()).toBe('2 selecionados');
    await bar.getByRole('button', { name: 'Mesclar' }).click();
    const dialog = p.locator('dialog[open]');
    await dialog.getByRole('heading', { name: 'Mesclar contatos' }).waitFor();
    await dialog.getByRole('radio', { name: /Carlos Pereira/ }).check();
    // The preview: the survivor's e-mail kept, its empty phone and city filled from the other.
    const preview = dialog.getByTestId('merge-preview');
    expect(await preview.locator('[data-merge-field=email]').textContent()).toContain(
      'carlos@pereira.com.br',
    );
    expect(await preview.locator('[data-merge-field=city]').textContent()).toContain(
      'Campinas (de Carlos P.)',
    );
    await shot(p, 'contacts-merge');
    await dialog.getByRole('button', { name: 'Mesclar 2' }).click();
    await toast(p, 'Contatos mesclados em Carlos Pereira.');
    await p.getByTestId('contact-detail').getByRole('heading', { name: 'Carlos Pereira' }).waitFor();
    expect((await t.api.get(`/contacts/${b.body.documentId}`)).status).toBe(404);
    expect((await t.api.get(`/contacts/${a.body.documentId}`)).body).toMatchObject({
      email: 'carlos@pereira.com.br',
      phone: '+5511912345678',
      city: 'Campinas',
    });
    // The merged contact's note moved to the survivor; the merge is on its timeline in words.
    const detail = p.getByTestId('contact-detail');
    await detail.locator('.timeline li', { hasText: 'Mesclado com Carlos P.' }).waitFor();
    await detail.locator('.timeline li', { hasText: 'Ligou pedindo proposta' }).waitFor();
    expect(await p.getByTestId('bulk-bar').count()).toBe(0);

    // Deleted from its detail, asked first.
    await detail.getByRole('button', { name: 'Excluir' }).click();
    const confirm = p.locator('dialog[open]');
    await confirm.getByRole('heading', { name: 'Excluir o contato?' }).waitFor();
    expect(await confirm.textContent()).toContain('Carlos Pereira sai da lista');
    await confirm.getByRole('button', { name: 'Excluir', exact: true }).click();
    await toast(p, 'Contato excluído.');
    await expect.poll(() => p.url()).toMatch(/\/contacts$/);
    expect((await t.api.get(`/contacts/${a.body.documentId}`)).status).toBe(404);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('bulk actions on the selected rows: owner and type set, then deleted after a confirmation', async () => {
    const names = ['Lote Ana', 'Lote Bruno', 'Lote Cecília'];
    const ids: string[] = [];
    for (const name of names) ids.push((await t.api.post('/contacts', { data: { name } })).body.documentId);
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.goto(`${base}/app/contacts`);
    await search(p, 'Lote');
    await p.locator(`tr[data-contact-id="${ids[2]}"]`).waitFor();
    // The unfiltered list shows these rows too (newest first): the search's answer is the one with three.
    await expect.poll(() => p.locator('[data-testid=contacts-table] tbody tr').count()).toBe(3);
    await p.getByRole('checkbox', { name: 'Selecionar todos desta página' }).check();
    const bar = p.getByTestId('bulk-bar');
    expect(await bar.locator('strong').textContent()).toBe('3 selecionados');

    // The owner: the person by name in the picker.
    await bar.locator('select[name=bulk-action]').selectOption('owner');
    await bar.locator('select[name=bulk-value]').selectOption({ label: 'Renata Alves' });
    await bar.getByRole('button', { name: 'Aplicar' }).click();
    await toast(p, '3 contatos atualizados.');
    for (const id of ids)
      expect((await t.api.get(`/contacts/${id}`)).body.owner?.documentId).toBe(t.membershipId);

    // The type, as words.
    await p.getByRole('checkbox', { name: 'Selecionar todos desta página' }).check();
    await bar.locator('select[name=bulk-action]').selectOption('contact_type');
    expect(await bar.locator('select[name=bulk-value] option').allTextContents()).toEqual([
      'Pessoa',
      'Empresa',
    ]);
    await bar.locator('select[name=bulk-value]').selectOption('empresa');
    await bar.getByRole('button', { name: 'Aplicar' }).click();
    await toast(p, '3 contatos atualizados.');
    await p.locator(`tr[data-contact-id="${ids[0]}"] td`, { hasText: 'Empresa' }).waitFor();
    for (const id of ids) expect((await t.api.get(`/contacts/${id}`)).body.contact_type).toBe('empresa');

    // Delete: asked first; cancelled keeps them, confirmed removes them.
    await p.getByRole('checkbox', { name: 'Selecionar todos desta página' }).check();
    await bar.getByRole('button', { name: 'Excluir selecionados' }).click();
    const confirm = p.locator('dialog[open]');
    await confirm.getByRole('heading', { name: 'Excluir 3 contatos?' }).waitFor();
    await shot(p, 'contacts-bulk-delete');
    await confirm.getByRole('button', { name: 'Cancelar' }).click();
    expect((await t.api.get(`/contacts/${ids[0]}`)).status).toBe(200);
    await bar.getByRole('button', { name: 'Excluir selecionados' }).click();
    await p.locator('dialog[open]').getByRole('button', { name: 'Excluir', exact: true }).click();
    await toast(p, '3 contatos excluídos.');
    await p.getByText('Nenhum contato com essa busca.').waitFor();
    for (const id of ids) expect((await t.api.get(`/contacts/${id}`)).status).toBe(404);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('a CSV imported in the background: progress, counts, skipped rows with their lines and reasons', async () => {
    const lines = ['nome;email;cpf;segmento'];
    for (let i = 1; i <= 24; i++) lines.push(`Importado ${i};imp${i}@exemplo.com.br;;atacado`);
    lines.splice(6, 0, 'Sem E-mail Válido;nao-e-email;;atacado'); // line 7
    lines.splice(15, 0, 'CPF Errado;cpf@exemplo.com.br;111.111.111-11;atacado'); // line 16
    const csv = `${lines.join('\n')}\n`;
    const p = await signedIn();
    const errors = watchConsole(p, [400]);
    await p.goto(`${base}/app/contacts`);
    await p.getByRole('button', { name: 'Importar CSV' }).click();
    const dialog = p.locator('dialog[open]');
    await dialog.getByRole('heading', { name: 'Importar contatos de um CSV' }).waitFor();
    // No file: refused beside the field, nothing sent.
    await dialog.getByRole('button', { name: 'Importar', exact: true }).click();
    await dialog.locator('.ds-field.has-error', { hasText: 'Escolha um arquivo CSV.' }).waitFor();
    await dialog.locator('input[name=import-file]').setInputFiles({
      name: 'contatos.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    expect(await dialog.getByTestId('import-file-name').textContent()).toBe('contatos.csv');
    expect(await dialog.locator('.ds-field.has-error').count()).toBe(0);
    // The file's columns, each with where it goes: "segmento" into a custom field.
    const segment = dialog.getByLabel('segmento', { exact: true });
    await segment.waitFor();
    await segment.selectOption('customFields.segmento');
    await shot(p, 'contacts-import-mapping');
    await dialog.getByRole('button', { name: 'Importar', exact: true }).click();
    const progress = dialog.getByTestId('import-progress');
    await progress.waitFor();
    expect(await progress.getAttribute('data-status')).toBe('queued');

    // The background job, run here in batches of 10: after the first, the page shows it running at 10 rows.
    const [job] = await queryRows<{ organization_id: number; id: number; document_id: string }>(
      (await getApp()).db.system,
      sql`select organization_id, id, document_id from import_jobs
          where organization_id = (select id from organizations where slug = ${t.slug}) order by id desc limit 1`,
    );
    let paused = false;
    const result = await runContactImport(
      { db: (await getApp()).db, config, jobs: { send: async () => 'next' } as never },
      { orgId: Number(job.organization_id), importId: Number(job.id) },
      {
        batchSize: 10,
        afterBatch: async ({ rowsDone }) => {
          if (paused || rowsDone !== 10) return;
          paused = true;
          await p.locator('[data-testid=import-progress][data-status=running]').waitFor();
          await p.locator('[data-count=done]', { hasText: /^10$/ }).waitFor();
          await shot(p, 'contacts-import-running');
        },
      },
    );
    expect(result).toBe('done');
    expect(paused).toBe(true);
    await dialog.locator('[data-testid=import-progress][data-status=done]').waitFor();
    expect(await progress.locator('[data-count=created]').textContent()).toBe('24');
    expect(await progress.locator('[data-count=failed]').textContent()).toBe('2');
    expect(await progress.textContent()).toContain(
      'Importação concluída: 24 criados, 0 atualizados, 2 com erro.',
    );
    // The skipped rows: their lines and reasons, in pt-BR.
    const failures = dialog.getByTestId('import-failures').locator('tbody tr');
    expect(await failures.count()).toBe(2);
    expect(await failures.nth(0).locator('td').allTextContents()).toEqual(['7', 'E-mail', 'e-mail inválido']);
    expect(await failures.nth(1).locator('td').allTextContents()).toEqual(['16', 'CPF', 'CPF inválido']);
    await shot(p, 'contacts-import-done');

    const api = (await t.api.get(`/contacts/imports/${job.document_id}`)).body;
    expect(api).toMatchObject({ status: 'done', rowsCreated: 24, rowsFailed: 2 });
    expect(api.failures.map((f: { line: number }) => f.line)).toEqual([7, 16]);
    const [imported] = await contactsNamed('Importado 12');
    expect(imported).toMatchObject({ email: 'imp12@exemplo.com.br', customFields: { segmento: 'atacado' } });
    expect((await other.api.get(`/contacts/imports/${job.document_id}`)).status).toBe(404);

    // Another file: an empty one refused beside the field; a malformed one fails with the line, in pt-BR.
    await dialog.getByRole('button', { name: 'Importar outro arquivo' }).click();
    const fileInput = dialog.locator('input[name=import-file]');
    await fileInput.setInputFiles({ name: 'vazio.csv', mimeType: 'text/csv', buffer: Buffer.from('') });
    await dialog.getByRole('button', { name: 'Importar', exact: true }).click();
    await dialog.locator('.ds-field.has-error', { hasText: 'O arquivo está vazio' }).waitFor();
    await fileInput.setInputFiles({
      name: 'quebrado.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('nome;email\nQuebrado Um;q1@exemplo.com.br\n"Quebrado Dois;q2@exemplo.com.br\n'),
    });
    await dialog.getByRole('button', { name: 'Importar', exact: true }).click();
    await progress.waitFor();
    const [broken] = await queryRows<{ organization_id: number; id: number; document_id: string }>(
      (await getApp()).db.system,
      sql`select organization_id, id, document_id from import_jobs
          where organization_id = (select id from organizations where slug = ${t.slug}) order by id desc limit 1`,
    );
    expect(broken.document_id).not.toBe(job.document_id);
    expect(
      await runContactImport(
        { db: (await getApp()).db, config, jobs: { send: async () => 'next' } as never },
        { orgId: Number(broken.organization_id), importId: Number(broken.id) },
      ),
    ).toBe('failed');
    await dialog.locator('[data-testid=import-progress][data-status=failed]').waitFor();
    expect(await progress.locator('p').first().textContent()).toMatch(
      /Falhou A importação falhou\. O CSV está malformado depois da linha \d+/,
    );
    expect((await t.api.get(`/contacts/imports/${broken.document_id}`)).body.status).toBe('failed');

    // One more, stopped before the job runs: cancelled, nothing written.
    await dialog.getByRole('button', { name: 'Importar outro arquivo' }).click();
    await fileInput.setInputFiles({
      name: 'parado.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('nome;email\nParado Um;p1@exemplo.com.br\n'),
    });
    await dialog.getByRole('button', { name: 'Importar', exact: true }).click();
    await dialog.locator('[data-testid=import-progress][data-status=queued]').waitFor();
    await dialog.getByRole('button', { name: 'Parar importação' }).click();
    await dialog.locator('[data-testid=import-progress][data-status=cancelled]').waitFor();
    expect(await progress.locator('.ds-badge').first().textContent()).toBe('Cancelada');
    expect(await contactsNamed('Parado Um')).toHaveLength(0);

    // Closed: the list has them.
    await dialog.getByRole('button', { name: 'Fechar' }).last().click();
    await search(p, 'Importado');
    await p.locator(`tr[data-contact-id="${imported.documentId}"]`).waitFor();
    expect(errors).toEqual([]);
    await p.context().close();
  }, 90_000);

  test('a viewer reads without write controls; a member acts on the selected rows but cannot delete many', async () => {
    const c = (await t.api.post('/contacts', { data: { name: 'Otávio Reis', email: 'otavio@reis.com.br' } }))
      .body;
    const viewer = await addMember(t, 'viewer');
    const v = await signedIn(false, { user: viewer.user, slug: t.slug });
    const errors = watchConsole(v);
    await v.goto(`${base}/app/contacts/${c.documentId}`);
    await v.getByTestId('contact-detail').getByRole('heading', { name: 'Otávio Reis' }).waitFor();
    await v.locator(`tr[data-contact-id="${c.documentId}"]`).waitFor();
    expect(await v.locator('[data-testid=contacts-table] input[type=checkbox]').count()).toBe(0);
    expect(await v.getByRole('button', { name: 'Importar CSV' }).count()).toBe(0);
    expect(await v.locator('form.ct-quick').count()).toBe(0);
    expect(await v.getByTestId('contact-detail').getByRole('button').count()).toBe(0);
    expect(errors).toEqual([]);
    await v.context().close();

    const member = await addMember(t, 'member');
    const m = await signedIn(false, { user: member.user, slug: t.slug });
    await m.goto(`${base}/app/contacts`);
    await m.getByRole('checkbox', { name: 'Selecionar Otávio Reis' }).check();
    const bar = m.getByTestId('bulk-bar');
    await bar.getByRole('button', { name: 'Aplicar' }).waitFor();
    expect(await bar.getByRole('button', { name: 'Excluir selecionados' }).count()).toBe(0);
    expect((await member.api.post('/contacts/bulk-delete', { ids: [c.documentId] })).status).toBe(403);
    await m.context().close();
  }, 60_000);

  test('in English: the words, dates in month-first order, no Portuguese string of the area', async () => {
    const c = (
      await t.api.post('/contacts', {
        data: {
          name: 'Helena Duarte',
          birthdate: '1985-03-04',
          contact_type: 'empresa',
          owner: t.membershipId,
        },
      })
    ).body;
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.getByLabel('Idioma').selectOption('en');
    await p.goto(`${base}/app/contacts/${c.documentId}`);
    const detail = p.getByTestId('contact-detail');
    await detail.getByRole('heading', { name: 'Helena Duarte' }).waitFor();
    await p.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor();
    expect(await detail.locator('dd[data-field=birthdate]').textContent()).toBe('03/04/1985');
    expect(await detail.locator('dd[data-field=contact_type]').textContent()).toBe('Company');
    await detail.getByRole('button', { name: 'Edit' }).click();
    await p.locator('dialog[open]').getByRole('heading', { name: 'Edit contact' }).waitFor();
    expect(await p.locator('dialog[open] input[name=contact-birthdate]').inputValue()).toBe('03/04/1985');
    const english = new Set(Object.values(contactWords.en));
    const portuguese = Object.values(contactWords.ptBR)
      .map((v) => v.replace(/\{\w+\}.*$/, '').trim())
      .filter((v) => v.length >= 6 && !english.has(v));
    const texts = (await pageTexts(p)).join('\n');
    expect(portuguese.filter((v) => texts.includes(v))).toEqual([]);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('audited on a desktop and a phone: the list, a contact, the editor, the import', async () => {
    const c = (
      await t.api.post('/contacts', {
        data: { name: 'Júlia Prado', email: 'julia@prado.com.br', city: 'Natal', owner: t.membershipId },
      })
    ).body;
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    const allowed = [
      'Renata Alves',
      'Júlia Prado',
      'Beatriz Nogueira',
      'Carlos Pereira',
      'Importado',
      'varejo',
      'segmento',
    ];
    for (const phone of [false, true]) {
      const p = await signedIn(phone);
      const errors = watchConsole(p);
      const where = phone ? 'phone' : 'desktop';
      await p.goto(`${base}/app/contacts/${c.documentId}`);
      await p.locator('[data-testid=contacts-table] tbody tr').first().waitFor();
      await p.getByTestId('contact-detail').locator('.timeline li').first().waitFor();
      await p.waitForTimeout(200);
      const found = [
        ...untranslated(await pageTexts(p), english, allowed),
        ...(await a11y(p)),
        ...(phone ? await tooWide(p) : []),
      ];
      await shot(p, `contacts-${where}`);
      await p.getByTestId('contact-detail').getByRole('button', { name: 'Editar' }).click();
      await p.locator('dialog[open] input[name=contact-name]').waitFor();
      found.push(
        ...untranslated(await pageTexts(p), english, allowed).map((x) => `editor: ${x}`),
        ...(await a11y(p)).map((x) => `editor: ${x}`),
        ...(phone ? await tooWide(p) : []).map((x) => `editor: ${x}`),
      );
      await shot(p, `contacts-editor-${where}`);
      await p.locator('dialog[open]').getByRole('button', { name: 'Cancelar' }).click();
      await p.getByRole('button', { name: 'Importar CSV' }).click();
      await p.locator('dialog[open]').getByRole('heading', { name: 'Importar contatos de um CSV' }).waitFor();
      found.push(
        ...untranslated(await pageTexts(p), english, allowed).map((x) => `import: ${x}`),
        ...(await a11y(p)).map((x) => `import: ${x}`),
        ...(phone ? await tooWide(p) : []).map((x) => `import: ${x}`),
      );
      if (found.length) problems[where] = found;
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 90_000);
});
