import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { addMember, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { a11y, englishCatalogue, pageTexts, tooWide, untranslated } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, watchConsole } from './helpers.js';

/**
 * Segments and tasks (issue 31 items 1, 2, 7) in pt-BR, end to end: a segment's rules built as words with the live
 * count following them, a nameless one refused as the API says, saved, edited with a person by name, sorted,
 * deleted after confirming; a task created with every field (due date in pt-BR, a card, a person, recurrence), a
 * nameless one refused, filtered, its status changed (the next occurrence follows), edited, deleted; each read back
 * through the API and absent from another organization; both pages audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: segments and tasks (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let other: Tenant;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let bruno: Awaited<ReturnType<typeof addMember>>;
  let boardId: string;
  let cardId: string;
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
  const dialog = () => page.locator('dialog[open]').first();
  const count = () =>
    page.locator('[data-testid=segment-count] strong[data-count]').getAttribute('data-count');

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    other = await newTenant(app);
    expect((await t.userApi.put('/users/me', { name: 'Ana Lima' })).status).toBe(200);
    bruno = await addMember(t, 'member');
    expect((await bruno.api.put('/users/me', { name: 'Bruno Costa' })).status).toBe(200);
    const people: [string, string, string | null, boolean][] = [
      ['Carla Souza', 'Recife', 'carla@souza.com.br', true],
      ['Davi Rocha', 'Recife', 'davi@rocha.com.br', false],
      ['Elisa Prado', 'Recife', null, false],
      ['Fábio Nunes', 'São Paulo', 'fabio@nunes.com.br', false],
      ['Gabriela Melo', 'São Paulo', null, false],
    ];
    for (const [name, city, email, byBruno] of people) {
      const r = await t.api.post('/contacts', {
        data: { name, city, ...(email ? { email } : {}), ...(byBruno ? { owner: bruno.membershipId } : {}) },
      });
      expect(r.status).toBe(201);
    }
    const board = await t.api.post('/boards', {
      data: { name: 'Vendas', phases: [{ name: 'Novo', slug: 'novo' }] },
    });
    expect(board.status).toBe(201);
    boardId = board.body.documentId;
    const card = await t.api.post(`/boards/${boardId}/cards`, { data: { title: 'Renovação Acme' } });
    expect(card.status).toBe(201);
    cardId = card.body.documentId;
    browser = await launchBrowser();
    page = await signedIn();
    errors = watchConsole(page, [400, 422]);
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

  test('a segment: rules as words with a live count, refused without a name, saved, edited, sorted, deleted', async () => {
    await page.getByRole('link', { name: 'Segmentos' }).click();
    await page.getByRole('heading', { name: 'Segmentos', level: 1 }).waitFor();
    await page.getByText('Nenhum segmento ainda').waitFor();

    await page.getByRole('button', { name: 'Novo segmento' }).click();
    const d = dialog();
    // allTextContents does not wait: the dialog opens a moment after the click.
    await d.locator('select[name=field-0]').waitFor();
    // Fields and operators as words, never codes.
    const fieldOptions = await d.locator('select[name=field-0] option').allTextContents();
    expect(fieldOptions).toEqual(
      expect.arrayContaining(['Cidade', 'E-mail', 'CEP', 'Responsável', 'Equipe']),
    );
    expect(fieldOptions.join()).not.toMatch(/postal_code|contact_type|city/);
    const opOptions = await d.locator('select[name=op-0] option').allTextContents();
    expect(opOptions).toEqual([
      'contém',
      'é igual a',
      'começa com',
      'termina com',
      'está vazio',
      'está preenchido',
    ]);
    expect(await d.locator('select[name=segment-logic] option').allTextContents()).toEqual([
      'todas as condições',
      'qualquer uma das condições',
    ]);
    await d.getByText('Complete uma condição para ver a contagem.').waitFor();

    // The count follows the rules as they change (POST /segments/preview).
    await d.locator('input[name=value-0]').fill('recife');
    await expect.poll(count).toBe('3');
    expect(await d.locator('[data-testid=segment-count] strong').textContent()).toBe(
      '3 contatos atendem às regras',
    );
    await d.getByRole('button', { name: 'Adicionar condição' }).click();
    await d.locator('select[name=field-1]').selectOption({ label: 'E-mail' });
    await d.locator('select[name=op-1]').selectOption({ label: 'está preenchido' });
    await expect.poll(count).toBe('2');
    await d.locator('select[name=segment-logic]').selectOption({ label: 'qualquer uma das condições' });
    await expect.poll(count).toBe('4');
    await d.locator('select[name=segment-logic]').selectOption({ label: 'todas as condições' });
    await expect.poll(count).toBe('2');
    expect(await d.locator('[data-testid=segment-count]').textContent()).toMatch(/Carla Souza|Davi Rocha/);

    // No name: the API refuses; its message beside the field, in pt-BR.
    await d.getByRole('button', { name: 'Salvar' }).click();
    const refusal = d.locator('.ds-field.has-error .ds-error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('obrigatório');
    await shot(page, 'segments-refused');
    expect((await t.api.get('/segments')).body.data).toHaveLength(0);

    await d.locator('input[name=segment-name]').fill('Recife com e-mail');
    await shot(page, 'segments-editor');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(page, 'Segmento salvo.');
    const row = page.locator('[data-testid=segments-table] tbody tr', { hasText: 'Recife com e-mail' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Cidade contém "recife" e E-mail está preenchido');
    expect(await row.locator('[data-count]').getAttribute('data-count')).toBe('2');
    const saved = (await t.api.get('/segments')).body.data;
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({
      name: 'Recife com e-mail',
      contactCount: 2,
      filters: {
        logic: 'AND',
        conditions: [
          { field: 'city', op: 'contains', value: 'recife' },
          { field: 'email', op: 'notEmpty' },
        ],
      },
    });
    const id = saved[0].documentId as string;

    // Edited: a third rule, the owner picked by name.
    await page.getByRole('button', { name: 'Editar Recife com e-mail' }).click();
    await dialog().getByRole('button', { name: 'Adicionar condição' }).click();
    await dialog().locator('select[name=field-2]').selectOption({ label: 'Responsável' });
    expect(await dialog().locator('select[name=op-2] option').allTextContents()).toEqual([
      'é',
      'está vazio',
      'está preenchido',
    ]);
    await dialog().locator('select[name=value-2]').selectOption({ label: 'Bruno Costa' });
    await expect.poll(count).toBe('1');
    expect(await dialog().locator('[data-testid=segment-count] strong').textContent()).toBe(
      '1 contato atende às regras',
    );
    await dialog().getByRole('button', { name: 'Salvar' }).click();
    await toast(page, 'Segmento salvo.');
    await row.filter({ hasText: 'Responsável é Bruno Costa' }).waitFor();
    const edited = (await t.api.get(`/segments/${id}`)).body;
    expect(edited.filters.conditions[2]).toMatchObject({
      kind: 'relation',
      field: 'owner',
      op: 'eq',
      documentId: bruno.membershipId,
    });
    expect(edited.contactCount).toBe(1);

    // Sorted by name, both ways.
    expect(
      (
        await t.api.post('/segments', {
          data: {
            name: 'Capital paulista',
            filters: { logic: 'AND', conditions: [{ field: 'city', op: 'eq', value: 'São Paulo' }] },
          },
        })
      ).status,
    ).toBe(201);
    await page.reload();
    const names = () =>
      page.locator('[data-testid=segments-table] tbody tr td:first-child strong').allTextContents();
    await expect.poll(names).toEqual(['Capital paulista', 'Recife com e-mail']);
    await page.getByRole('button', { name: 'Nome', exact: true }).click();
    await expect.poll(names).toEqual(['Recife com e-mail', 'Capital paulista']);
    expect(
      await page.locator('[data-testid=segments-table] th[aria-sort=descending]').textContent(),
    ).toContain('Nome');
    await shot(page, 'segments-list');

    // Not seen by another organization.
    expect((await other.api.get('/segments')).body.data).toHaveLength(0);
    expect((await other.api.get(`/segments/${id}`)).status).toBe(404);

    // Deleted after confirming.
    await page.getByRole('button', { name: 'Excluir Recife com e-mail' }).click();
    await dialog().getByText('O segmento "Recife com e-mail" deixa de existir').waitFor();
    await page.getByTestId('confirm-yes').click();
    await toast(page, 'Segmento excluído.');
    await expect.poll(names).toEqual(['Capital paulista']);
    expect((await t.api.get(`/segments/${id}`)).status).toBe(404);

    // A segment another one requires: its delete refused, the dependent named, in pt-BR.
    const capital = (await t.api.get('/segments')).body.data[0].documentId as string;
    const dependent = await t.api.post('/segments', {
      data: {
        name: 'Paulistas com e-mail',
        filters: { logic: 'AND', conditions: [{ field: 'email', op: 'notEmpty' }] },
        requiredSegments: [capital],
      },
    });
    expect(dependent.status).toBe(201);
    await page.reload();
    await page.getByRole('button', { name: 'Excluir Capital paulista' }).click();
    await page.getByTestId('confirm-yes').click();
    await page
      .locator('main [role=alert]', {
        hasText: 'Outros segmentos dependem deste: Paulistas com e-mail. Mude-os antes.',
      })
      .waitFor();
    expect((await t.api.get(`/segments/${capital}`)).status).toBe(200);
    expect(errors).toEqual([]);
  }, 90_000);

  test('a task: refused without a title, created with every field, filtered, completed, edited, deleted', async () => {
    await page.getByRole('link', { name: 'Tarefas' }).click();
    await page.getByRole('heading', { name: 'Tarefas', level: 1 }).waitFor();
    await page.getByText('Nenhuma tarefa ainda').waitFor();

    await page.getByRole('button', { name: 'Nova tarefa' }).click();
    const d = dialog();
    await d.getByRole('button', { name: 'Salvar' }).click();
    const refusal = d.locator('.ds-field.has-error .ds-error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('obrigatório');
    expect((await t.api.get('/tasks')).body.data).toHaveLength(0);

    // Yesterday, 09:00 in São Paulo, typed as a pt-BR date: late once saved.
    const yesterday = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo' }).format(
      new Date(Date.now() - 86_400_000),
    );
    await d.locator('input[name=task-name]').fill('Ligar para a Acme');
    await d.locator('textarea[name=task-description]').fill('Confirmar a renovação do contrato');
    await d.locator('input[name=task-due]').fill(yesterday);
    await d.locator('input[name=task-due-time]').fill('09:00');
    expect(await d.locator('select[name=task-priority] option').allTextContents()).toEqual([
      'Baixa',
      'Média',
      'Alta',
      'Urgente',
    ]);
    await d.locator('select[name=task-priority]').selectOption({ label: 'Alta' });
    await d.locator('select[name=task-type]').selectOption({ label: 'Retorno' });
    await d.getByRole('checkbox', { name: 'Bruno Costa', exact: true }).check();
    await d.locator('select[name=task-card-board]').selectOption({ label: 'Vendas' });
    await d.locator('input[name=task-card-search]').fill('Acme');
    await d.getByRole('button', { name: 'Renovação Acme' }).click();
    await d.getByText('Ligada a: Renovação Acme').waitFor();
    await d.locator('select[name=task-recurrence]').selectOption({ label: 'Semanal' });
    await d.locator('input[name=task-interval]').fill('2');
    await shot(page, 'tasks-editor');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(page, 'Tarefa salva.');
    const rows = page.locator('[data-testid=tasks-table] tbody tr');
    const acme = rows.filter({ hasText: 'Ligar para a Acme' });
    await acme.waitFor();
    const text = (await acme.textContent()) ?? '';
    for (const word of ['Atrasada', 'Alta', 'Bruno Costa', 'Renovação Acme', 'Repete: Semanal, a cada 2'])
      expect(text).toContain(word);
    expect(text).toContain(yesterday);
    expect(await acme.getAttribute('data-late')).toBe('true');
    const [task] = (await t.api.get('/tasks')).body.data;
    expect(task).toMatchObject({
      name: 'Ligar para a Acme',
      priority: 'high',
      type: 'follow-up',
      taskStatus: 'pending',
      recurrence: 'weekly',
      recurrenceInterval: 2,
      card: { documentId: cardId, title: 'Renovação Acme' },
      assignees: [{ documentId: bruno.membershipId }],
    });
    // Typed as text, kept as the HTML the service stores rich text in.
    expect(task.description).toBe('<p>Confirmar a renovação do contrato</p>');
    expect(
      new Intl.DateTimeFormat('pt-BR', {
        timeZone: 'America/Sao_Paulo',
        dateStyle: 'short',
        timeStyle: 'short',
      }).format(new Date(task.dueDate)),
    ).toBe(`${yesterday}, 09:00`);

    // A second task, not late, for Ana (the owner).
    const second = await t.api.post('/tasks', {
      data: { name: 'Enviar proposta', priority: 'low', assignees: [t.membershipId] },
    });
    expect(second.status).toBe(201);
    await page.reload();
    await expect.poll(() => rows.count()).toBe(2);
    const shown = async () =>
      (
        await page.locator('[data-testid=tasks-table] tbody tr td:first-child strong').allTextContents()
      ).sort();

    // Filters: a person by name, late, priority as words; cleared. (The people come by a request of their own.)
    await expect
      .poll(() => page.locator('select[name=filter-assignee] option').allTextContents())
      .toEqual(expect.arrayContaining(['Qualquer pessoa', 'Ana Lima', 'Bruno Costa']));
    await page.locator('select[name=filter-assignee]').selectOption({ label: 'Bruno Costa' });
    await expect.poll(shown).toEqual(['Ligar para a Acme']);
    await page.locator('select[name=filter-assignee]').selectOption({ label: 'Ana Lima' });
    await expect.poll(shown).toEqual(['Enviar proposta']);
    await page.getByRole('button', { name: 'Limpar filtros' }).click();
    await page.locator('select[name=filter-due]').selectOption({ label: 'Atrasadas' });
    await expect.poll(shown).toEqual(['Ligar para a Acme']);
    await page.locator('select[name=filter-due]').selectOption({ label: 'Sem prazo' });
    await expect.poll(shown).toEqual(['Enviar proposta']);
    await page.getByRole('button', { name: 'Limpar filtros' }).click();
    await page.locator('select[name=filter-priority]').selectOption({ label: 'Alta' });
    await expect.poll(shown).toEqual(['Ligar para a Acme']);
    await page.getByRole('button', { name: 'Limpar filtros' }).click();
    await expect.poll(shown).toEqual(['Enviar proposta', 'Ligar para a Acme']);
    await shot(page, 'tasks-list');

    // Completed in place: the recurring task's next occurrence follows, two weeks later.
    await page.getByLabel('Situação de Ligar para a Acme').first().selectOption({ label: 'Concluída' });
    await toast(page, 'Situação alterada: Concluída.');
    expect((await t.api.get(`/tasks/${task.documentId}`)).body).toMatchObject({ taskStatus: 'completed' });
    const all = (await t.api.get('/tasks', { 'filters[name][$eq]': 'Ligar para a Acme' })).body.data;
    expect(all).toHaveLength(2);
    const next = all.find((x: { occurrenceNumber: number }) => x.occurrenceNumber === 2);
    expect(next.taskStatus).toBe('pending');
    expect(Date.parse(next.dueDate) - Date.parse(task.dueDate)).toBeGreaterThanOrEqual(13 * 86_400_000);
    await expect.poll(() => rows.count()).toBe(3);
    const done = page.locator(`[data-task-id="${task.documentId}"]`);
    expect(await done.getAttribute('data-late')).toBeNull();
    expect(await done.textContent()).not.toContain('Atrasada');

    // Edited: title and priority.
    await page.getByRole('button', { name: 'Editar Enviar proposta' }).click();
    await dialog().locator('input[name=task-name]').fill('Enviar a proposta revisada');
    await dialog().locator('select[name=task-priority]').selectOption({ label: 'Urgente' });
    await dialog().getByRole('button', { name: 'Salvar' }).click();
    await toast(page, 'Tarefa salva.');
    await rows.filter({ hasText: 'Enviar a proposta revisada' }).filter({ hasText: 'Urgente' }).waitFor();
    const secondId = second.body.documentId as string;
    expect((await t.api.get(`/tasks/${secondId}`)).body).toMatchObject({
      name: 'Enviar a proposta revisada',
      priority: 'urgent',
      assignees: [{ documentId: t.membershipId }],
    });

    // Not seen by another organization.
    expect((await other.api.get('/tasks')).body.data).toHaveLength(0);
    expect((await other.api.get(`/tasks/${secondId}`)).status).toBe(404);

    // Deleted after confirming.
    await page.getByRole('button', { name: 'Excluir Enviar a proposta revisada' }).click();
    await dialog().getByText('A tarefa "Enviar a proposta revisada" será excluída.').waitFor();
    await page.getByTestId('confirm-yes').click();
    await toast(page, 'Tarefa excluída.');
    await expect.poll(() => rows.count()).toBe(2);
    expect((await t.api.get(`/tasks/${secondId}`)).status).toBe(404);
    expect(errors).toEqual([]);
  }, 90_000);

  test('in English: the same words in English only', async () => {
    const p = await signedIn();
    await p.getByLabel('Idioma').selectOption('en');
    await p.goto(`${base}/app/segments`);
    await p.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
    await p.getByRole('button', { name: 'Edit Capital paulista' }).click();
    const d = p.locator('dialog[open]');
    // allTextContents does not wait: the dialog may open a moment after the click (seen on a loaded CI machine).
    await d.locator('select[name=op-0]').waitFor();
    expect(await d.locator('select[name=op-0] option').allTextContents()).toEqual([
      'contains',
      'equals',
      'starts with',
      'ends with',
      'is empty',
      'is filled in',
    ]);
    await expect
      .poll(() => d.locator('[data-testid=segment-count] strong').textContent())
      .toBe('2 contacts match the rules');
    expect(await d.textContent()).not.toMatch(/contém|Campo|Operador|condições/);
    await p.keyboard.press('Escape');
    await p.goto(`${base}/app/tasks`);
    await p.locator('[data-testid=tasks-table] tbody tr').first().waitFor();
    const body = (await p.locator('main').textContent()) ?? '';
    for (const word of ['Pending', 'High', 'Due', 'Repeats: Weekly, every 2']) expect(body).toContain(word);
    expect(body).not.toMatch(/Pendente|Alta|Prazo|Repete/);
    await p.context().close();
  }, 60_000);

  test('audited on a desktop and a phone: the lists and the editors', async () => {
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    for (const phone of [false, true]) {
      const p = await signedIn(phone);
      const consoleErrors = watchConsole(p);
      const check = async (name: string) => {
        await p.waitForTimeout(200);
        const found = [
          ...untranslated(await pageTexts(p), english, [t.user.username]),
          ...(await a11y(p)),
          ...(phone ? await tooWide(p) : []),
        ];
        if (found.length) problems[`${name}-${phone ? 'phone' : 'desktop'}`] = found;
        await shot(p, `${name}-${phone ? 'phone' : 'desktop'}`);
      };
      await p.goto(`${base}/app/segments`);
      await p.locator('[data-testid=segments-table] tbody tr').first().waitFor();
      await check('segments');
      await p.getByRole('button', { name: 'Editar Capital paulista' }).click();
      await p.locator('[data-testid=segment-count] strong[data-count]').waitFor();
      await check('segment-editor');
      await p.keyboard.press('Escape');
      await p.goto(`${base}/app/tasks`);
      await p.locator('[data-testid=tasks-table] tbody tr').first().waitFor();
      await check('tasks');
      await p.getByRole('button', { name: 'Nova tarefa' }).click();
      await p.locator('dialog[open] input[name=task-name]').waitFor();
      await check('task-editor');
      expect(consoleErrors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 90_000);
});
