import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { addMember, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { a11y, englishCatalogue, pageTexts, tooWide, untranslated } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, watchConsole } from './helpers.js';

/**
 * Boards created and edited in the browser (issue 31 item 1), in pt-BR, end to end: a board from a template and
 * an empty one (whose header follows showValue), the empty one built in the board editor (phases, fields, a
 * condition, allowed moves, a tag, people) with the Kanban following, new cards from the header and from a
 * column (a required field refused, then filled), a phase holding a card refused deletion, a filter saved,
 * shared and picked again; the editor audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: boards created and edited (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let colleague: Awaited<ReturnType<typeof addMember>>;
  let boardId: string;
  const board = async () => (await t.api.get(`/boards/${boardId}`)).body;
  const phaseId = async (name: string) =>
    ((await board()).phases as { name: string; documentId: string }[]).find((p) => p.name === name)!
      .documentId;
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    colleague = await addMember(t, 'member');
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

  test('a board from a template and an empty one (its header follows showValue)', async () => {
    await page.getByRole('button', { name: 'Novo quadro' }).click();
    const dialog = page.locator('dialog[open]');
    await dialog.getByRole('radio', { name: /Funil de vendas/ }).check();
    await shot(page, 'boards-new-template');
    await dialog.getByRole('button', { name: 'Criar quadro' }).click();
    await toast(page, 'Quadro “Funil de vendas” criado.');
    await page.locator('[data-phase-id]').first().waitFor();
    const fromTemplate = (await t.api.get('/boards')).body.data.find(
      (b: any) => b.template === 'funil-de-vendas',
    );
    expect(page.url()).toBe(`${base}/app/boards/${fromTemplate.documentId}`);
    expect(await page.locator('[data-phase-id]').count()).toBe(fromTemplate.phases.length);
    await page.locator('[data-stat="valueSum"]').waitFor();

    await page.getByRole('link', { name: 'Quadros' }).click();
    await page.getByRole('button', { name: 'Novo quadro' }).click();
    await dialog.getByRole('radio', { name: /Quadro vazio/ }).check();
    // No name: the API's refusal beside the field.
    await dialog.getByRole('button', { name: 'Criar quadro' }).click();
    await dialog.locator('.ds-field.has-error .ds-error').first().waitFor();
    await dialog.locator('input[name=board-name]').fill('Suporte');
    await dialog.locator('input[name=board-show-value]').uncheck();
    await dialog.getByRole('button', { name: 'Criar quadro' }).click();
    await page.getByTestId('board-editor').waitFor();
    boardId = page.url().split('/').at(-2)!;
    expect(page.url()).toBe(`${base}/app/boards/${boardId}/edit`);
    const b = await board();
    expect(b).toMatchObject({ name: 'Suporte', phases: [], boardSettings: { showValue: false } });
  }, 60_000);

  test('the editor builds the empty board: phases, fields, a condition, moves, a tag, people; the Kanban follows', async () => {
    const addPhase = async (name: string, sla = '') => {
      await page.locator('input[name=new-phase-name]').fill(name);
      await page.locator('input[name=new-phase-sla]').fill(sla);
      await page.getByRole('button', { name: 'Adicionar fase' }).click();
      await toast(page, `Fase “${name}” criada.`);
    };
    await addPhase('Aberto');
    await addPhase('Atendimento', '48');
    await addPhase('Resolvido');
    await page.locator('[data-phase]').nth(2).waitFor();
    // Renamed, then moved: "Em atendimento" up, above "Aberto", and back down.
    await page.locator('input[name=phase-name-1]').fill('Em atendimento');
    await page.getByRole('button', { name: 'Salvar a fase Atendimento' }).click();
    await toast(page, 'Fase “Em atendimento” salva.');
    await page.getByRole('button', { name: 'Subir a fase Em atendimento' }).click();
    await expect
      .poll(async () => (await board()).phases.map((p: any) => p.name))
      .toEqual(['Em atendimento', 'Aberto', 'Resolvido']);
    await page.getByRole('button', { name: 'Descer a fase Em atendimento' }).click();
    await expect
      .poll(async () => (await board()).phases.map((p: any) => p.name))
      .toEqual(['Aberto', 'Em atendimento', 'Resolvido']);
    expect((await board()).phases[1].maxTimeInPhaseHours).toBe(48);

    // Fields of the entry phase: a required text, a list, a text a condition shows only for "Alta".
    const addField = async (
      label: string,
      type: string,
      opts: { required?: boolean; options?: string } = {},
    ) => {
      await page.getByRole('button', { name: 'Novo campo em Aberto' }).click();
      const d = page.locator('dialog[open]');
      await d.locator('input[name=field-label]').fill(label);
      await d.locator('select[name=field-type]').selectOption(type);
      if (opts.required) await d.locator('input[name=field-required]').check();
      if (opts.options) await d.locator('textarea[name=field-options]').fill(opts.options);
      await d.getByRole('button', { name: 'Salvar' }).click();
    };
    await addField('Prioridade', 'select');
    // A list without options: refused beside the options as the API says.
    await page.locator('dialog[open] .ds-field.has-error .ds-error').waitFor();
    await shot(page, 'board-editor-field-refused');
    await page.locator('dialog[open] textarea[name=field-options]').fill('Baixa\nAlta');
    await page.locator('dialog[open]').getByRole('button', { name: 'Salvar' }).click();
    await toast(page, 'Campo “Prioridade” salvo.');
    await addField('Cliente', 'text', { required: true });
    await toast(page, 'Campo “Cliente” salvo.');
    await addField('Motivo da urgência', 'textarea');
    await toast(page, 'Campo “Motivo da urgência” salvo.');

    await page.getByRole('button', { name: 'Nova condição' }).click();
    const c = page.locator('dialog[open]');
    await c.locator('input[name=condition-name]').fill('Urgência só para Alta');
    await c.locator('select[name="cond-field-1.1"]').selectOption({ label: 'Prioridade' });
    await c.locator('select[name="cond-value-1.1"]').selectOption('Alta');
    await c.getByRole('checkbox', { name: 'Motivo da urgência' }).first().check();
    await c.getByRole('button', { name: /ação/ }).last().click();
    await c.locator('select[name=action-false-0]').selectOption('hide');
    await c.locator('input[name="target-false-0-motivo-da-urgencia"]').check();
    await shot(page, 'board-editor-condition');
    await c.getByRole('button', { name: 'Salvar' }).click();
    await toast(page, 'Condição “Urgência só para Alta” salva.');
    await page.getByText('Se Prioridade é igual a Alta → mostrar Motivo da urgência').waitFor();
    const conditions = (await t.api.get(`/boards/${boardId}/field-conditions`)).body.data;
    expect(conditions[0]).toMatchObject({
      scope: 'board',
      criteria: [{ expressions: [{ fieldSlug: 'prioridade', operator: 'eq', value: 'Alta' }] }],
      actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['motivo-da-urgencia'] }],
      actionsWhenFalse: [{ type: 'hide', targetFieldSlugs: ['motivo-da-urgencia'] }],
    });

    // Moves: Aberto may not go straight to Resolvido.
    await page.getByRole('checkbox', { name: 'Permitir mover de Aberto para Resolvido' }).uncheck();
    await page.getByRole('button', { name: 'Salvar movimentos' }).click();
    await toast(page, 'Movimentos salvos.');
    const [aberto, , resolvido] = (await board()).phases;
    expect(aberto.allowedTransitions).toContainEqual({
      phase: { documentId: resolvido.documentId },
      allowed: false,
    });

    // A light tag: its text black (contrast), as on the cards.
    await page.locator('input[name=tag-name-new]').fill('Urgente');
    await page.locator('input[name=tag-color-new]').evaluate((el: HTMLInputElement) => {
      el.value = '#ffeb3b';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(await page.locator('[data-tag=new] .be-chip').evaluate((el) => getComputedStyle(el).color)).toBe(
      'rgb(0, 0, 0)',
    );
    await page.getByRole('button', { name: 'Adicionar etiqueta' }).click();
    await toast(page, 'Etiqueta “Urgente” salva.');
    expect((await board()).tags).toMatchObject([{ name: 'Urgente', color: '#ffeb3b' }]);

    // People: the colleague sees the board.
    await page.getByRole('checkbox', { name: `${colleague.user.username} vê o quadro` }).check();
    await page.getByRole('button', { name: 'Salvar pessoas' }).click();
    await toast(page, 'Pessoas do quadro salvas.');
    expect((await board()).members.map((m: any) => m.documentId)).toContain(colleague.membershipId);
    await shot(page, 'board-editor');

    // The Kanban follows: the phases in order, the tag in the filter, no total value (showValue off).
    await page.getByRole('link', { name: 'Abrir o Kanban' }).click();
    await page.locator('[data-phase-id]').nth(2).waitFor();
    expect(await page.locator('.column h2').allTextContents()).toEqual([
      'Aberto',
      'Em atendimento',
      'Resolvido',
    ]);
    expect(await page.locator('select[name=tag] option').allTextContents()).toContain('Urgente');
    expect(await page.locator('[data-stat="valueSum"]').count()).toBe(0);
    expect(await page.locator('.board-head').textContent()).not.toContain('Valor total');
  }, 60_000);

  test('new cards from the header and from a column: a required field refused, then filled', async () => {
    await page.getByTestId('new-card').click();
    const d = page.locator('dialog[open]');
    await d.getByRole('heading', { name: 'Novo card em Aberto' }).waitFor();
    // The condition hides the urgency's reason until the priority is "Alta".
    expect(await d.locator('[name=motivo-da-urgencia]').count()).toBe(0);
    await d.locator('select[name=prioridade]').selectOption('Alta');
    await d.locator('[name=motivo-da-urgencia]').waitFor();
    await d.getByRole('button', { name: 'Criar card' }).click();
    const refusal = d.locator('[data-error-for=cliente]');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^Cliente: /);
    await shot(page, 'kanban-new-card-refused');
    expect((await t.api.get(`/boards/${boardId}/cards`)).body.data).toHaveLength(0);
    await d.locator('input[name=cliente]').fill('Ana Souza');
    await d.locator('[name=motivo-da-urgencia]').fill('Sistema parado');
    await d.getByRole('button', { name: 'Criar card' }).click();
    await toast(page, 'Card “Ana Souza” criado em Aberto.');
    const abertoId = await phaseId('Aberto');
    await page.locator(`[data-phase-id="${abertoId}"] [data-card-id]`, { hasText: 'Ana Souza' }).waitFor();
    const [first] = (await t.api.get(`/boards/${boardId}/cards`)).body.data;
    expect(first).toMatchObject({
      title: 'Ana Souza',
      currentPhase: { documentId: abertoId },
      fields: { cliente: 'Ana Souza', prioridade: 'Alta', 'motivo-da-urgencia': 'Sistema parado' },
    });

    // From the column "Em atendimento": created there.
    const emId = await phaseId('Em atendimento');
    await page.getByRole('button', { name: 'Novo card em Em atendimento' }).click();
    await d.locator('input[name=new-card-title]').fill('Bruno Lima — troca de senha');
    await d.locator('input[name=cliente]').fill('Bruno Lima');
    await d.getByRole('button', { name: 'Criar card' }).click();
    await page
      .locator(`[data-phase-id="${emId}"] [data-card-id]`, { hasText: 'Bruno Lima — troca de senha' })
      .waitFor();
    await expect.poll(() => page.locator(`[data-phase-id="${emId}"] [data-count]`).textContent()).toBe('1');
    const cards = (await t.api.get(`/boards/${boardId}/cards`)).body.data;
    expect(cards.find((x: any) => x.title.startsWith('Bruno')).currentPhase.documentId).toBe(emId);
    await shot(page, 'kanban-new-cards');

    // The phase holding that card: its deletion refused with the API's reason.
    await page.getByTestId('edit-board').click();
    await page.getByRole('button', { name: 'Excluir a fase Em atendimento' }).click();
    await page.getByTestId('confirm-yes').click();
    await expect
      .poll(() => page.getByTestId('phase-error').textContent())
      .toBe('A fase ainda tem 1 card(s): mova-os para outra fase antes de excluí-la.');
    expect((await board()).phases).toHaveLength(3);
    await page.getByRole('link', { name: 'Abrir o Kanban' }).click();
  }, 60_000);

  test('a filter saved, shared with the organization and picked again', async () => {
    await page.locator('input[name=q]').fill('Ana');
    await expect.poll(() => page.locator('[data-card-id]').count()).toBe(1);
    await page.getByRole('button', { name: 'Salvar filtro' }).click();
    const d = page.locator('dialog[open]');
    await d.locator('input[name=filter-name]').fill('Clientes Ana');
    await d.locator('input[name=filter-shared]').check();
    await d.getByRole('button', { name: 'Salvar' }).click();
    await toast(page, 'Filtro “Clientes Ana” salvo.');
    // Shared: the colleague's list has it.
    const theirs = (await colleague.api.get('/saved-filters?resource=cards')).body.data;
    expect(theirs).toMatchObject([
      { name: 'Clientes Ana', visibility: 'organization', board: { documentId: boardId } },
    ]);

    await page.reload();
    await page.locator('[data-card-id]').nth(1).waitFor();
    await page.locator('select[name=saved-filter]').selectOption({ label: 'Clientes Ana (compartilhado)' });
    await expect.poll(() => page.locator('input[name=q]').inputValue()).toBe('Ana');
    await expect.poll(() => page.locator('[data-card-id]').count()).toBe(1);
    expect(await page.locator('[data-card-id]').textContent()).toContain('Ana Souza');
    await shot(page, 'kanban-saved-filter');
    expect(errors).toEqual([]);
  }, 60_000);

  test('the editor audited on a desktop and a phone', async () => {
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    const names = [t.user.username, colleague.user.username];
    for (const phone of [false, true]) {
      const p = await signedIn(phone);
      const errs = watchConsole(p);
      await p.goto(`${base}/app/boards/${boardId}/edit`);
      await p.getByTestId('board-editor').waitFor();
      await p.getByText('Se Prioridade é igual a Alta').waitFor();
      await p.waitForTimeout(200);
      const found = [
        ...untranslated(await pageTexts(p), english, names),
        ...(await a11y(p)),
        ...(phone ? await tooWide(p) : []),
      ];
      if (found.length) problems[phone ? 'phone' : 'desktop'] = found;
      await shot(p, `board-editor-${phone ? 'phone' : 'desktop'}`);
      expect(errs).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 60_000);
});
