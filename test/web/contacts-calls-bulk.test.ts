import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { addMember, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * A contact's calls and the bulk actions on everything a search matches, in pt-BR, end to end: a call logged
 * from the contact's page (an empty "Como foi" refused at its field by the service, a double submit logging one
 * call) shows on the timeline at once with its duration or reason in words, and reads back through the API with
 * its fields; with 32 contacts matching a search (25 a page) "every match" is selected, an owner set on all of
 * them by the search (the request carries `q`, no ids) after a confirmation naming 32, page 2 included and the
 * others untouched; a member has both but not the delete, a viewer neither; an admin deletes every match; the
 * pages audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: contact calls and bulk actions on every match (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let browser: Browser;
  let member: Awaited<ReturnType<typeof addMember>>;
  let viewer: Awaited<ReturnType<typeof addMember>>;
  let contactId = '';
  const matchIds: string[] = [];
  const otherIds: string[] = [];

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    expect((await t.userApi.put('/users/me', { name: 'Renata Alves' })).status).toBe(200);
    member = await addMember(t, 'member');
    expect((await member.api.put('/users/me', { name: 'Paulo Mendes' })).status).toBe(200);
    viewer = await addMember(t, 'viewer');
    const c = await t.api.post('/contacts', { data: { name: 'Beatriz Nogueira', phone: '+5581987654321' } });
    expect(c.status).toBe(201);
    contactId = c.body.documentId;
    // 32 contacts the search "Lote Azul" matches (two pages of 25), 5 it does not.
    for (let i = 1; i <= 32; i++) {
      const r = await t.api.post('/contacts', { data: { name: `Lote Azul ${String(i).padStart(2, '0')}` } });
      expect(r.status).toBe(201);
      matchIds.push(r.body.documentId);
    }
    for (let i = 1; i <= 5; i++) {
      const r = await t.api.post('/contacts', { data: { name: `Grupo Verde ${i}`, owner: t.membershipId } });
      expect(r.status).toBe(201);
      otherIds.push(r.body.documentId);
    }
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const signedIn = (who: { email: string; password: string } = t.user, phone = false) =>
    signedInPage(browser, base, who, t.slug, { phone });
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
  const calls = async () =>
    (
      await t.api.get(`/contacts/${contactId}/activities`, {
        'filters[activityType][$in][0]': 'call_completed',
        'filters[activityType][$in][1]': 'call_attempted',
      })
    ).body.data as Record<string, any>[];
  const search = async (p: Page, q: string, total: string) => {
    await p.locator('input[name=q]').fill(q);
    await p.locator('.ct-foot', { hasText: total }).waitFor();
  };
  const contact = async (id: string) => (await t.api.get(`/contacts/${id}`)).body as Record<string, any>;

  test('a call logged from the contact page: refused at its field, sent once, on the timeline in words', async () => {
    const p = await signedIn();
    const errors = watchConsole(p, [400]);
    const posts: string[] = [];
    p.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith(`/contacts/${contactId}/activities`))
        posts.push(r.headers()['idempotency-key'] ?? '');
    });
    await p.goto(`${base}/app/contacts/${contactId}`);
    const detail = p.getByTestId('contact-detail');
    await detail.getByRole('heading', { name: 'Beatriz Nogueira' }).waitFor();
    await detail.getByRole('button', { name: 'Registrar ligação' }).click();
    const form = p.getByTestId('call-form');
    await form.locator('select[name=call-type]').waitFor();
    expect(await form.locator('select[name=call-type] option').allTextContents()).toEqual([
      'Atendida',
      'Não atendida',
    ]);

    // A duration that is not one is refused before anything is sent; an empty "Como foi" by the service.
    await form.locator('input[name=call-duration]').fill('4:75');
    await form.getByRole('button', { name: 'Registrar' }).click();
    const durationField = form.locator('.ds-field.has-error', {
      has: p.locator('input[name=call-duration]'),
    });
    expect(await durationField.locator('.ds-error').textContent()).toBe(
      'Escreva minutos e segundos, como 4:05, ou só os minutos',
    );
    expect(posts).toHaveLength(0);
    await form.locator('input[name=call-duration]').fill('4:05');
    await form.getByRole('button', { name: 'Registrar' }).click();
    const notesField = form.locator('.ds-field.has-error', { has: p.locator('textarea[name=call-notes]') });
    await notesField.waitFor();
    expect(await notesField.locator('.ds-error').textContent()).toBe(
      'Conte em poucas palavras como foi a ligação',
    );
    expect(await form.locator('textarea[name=call-notes]').getAttribute('aria-invalid')).toBe('true');
    expect(posts).toHaveLength(1);
    await shot(p, 'web-160-call-refused');
    expect(await calls()).toHaveLength(0);

    // A double submit (two submits in one go, before the page can redraw) logs one call.
    await form.locator('textarea[name=call-notes]').fill('Pediu a proposta por e-mail');
    await form.evaluate((f: HTMLFormElement) => {
      f.requestSubmit();
      f.requestSubmit();
    });
    await toast(p, 'Ligação registrada.');
    const entry = detail.locator('.timeline li', {
      hasText: 'Ligação feita (4 minutos e 5 segundos): Pediu a proposta por e-mail',
    });
    await entry.waitFor();
    expect(posts).toHaveLength(2);
    expect(posts[1]).toMatch(/^web-[0-9a-f]{32}$/);
    const [made, ...more] = await calls();
    expect(more).toEqual([]);
    expect(made).toMatchObject({
      activityType: 'call_completed',
      description: 'Pediu a proposta por e-mail',
      metadata: { direction: 'outbound', durationSeconds: 245 },
      actor: { documentId: t.membershipId },
    });
    expect(Date.now() - new Date(made.performedAt).getTime()).toBeLessThan(10 * 60_000);

    // A call the contact made that no one answered, at a moment in the past (São Paulo time).
    await detail.getByRole('button', { name: 'Registrar ligação' }).click();
    await form.locator('select[name=call-type]').selectOption('call_attempted');
    await form.locator('select[name=call-direction]').selectOption('inbound');
    expect(await form.locator('input[name=call-duration]').count()).toBe(0);
    await form.locator('select[name=call-outcome]').selectOption({ label: 'Ocupado' });
    // The date as pt-BR writes it and the time in 24 h, whatever the browser's own language (DateTimeInput).
    await form.locator('input[name=call-when]').fill('05/03/2025');
    await form.locator('input[name=call-when-time]').fill('14:30');
    await form.locator('textarea[name=call-notes]').fill('Retornar amanhã cedo');
    await form.getByRole('button', { name: 'Registrar' }).click();
    await detail
      .locator('.timeline li', { hasText: 'Ligação perdida (ocupado): Retornar amanhã cedo' })
      .waitFor();
    const missed = (await calls()).find((a) => a.activityType === 'call_attempted');
    expect(missed).toMatchObject({
      description: 'Retornar amanhã cedo',
      performedAt: '2025-03-05T17:30:00.000Z',
      metadata: { direction: 'inbound', outcome: 'busy' },
    });
    // Newest first: the older call is below the one made now.
    const lines = await detail.locator('.timeline li').allTextContents();
    expect(lines.findIndex((l) => l.includes('Ligação feita'))).toBeLessThan(
      lines.findIndex((l) => l.includes('Ligação perdida')),
    );
    await shot(p, 'web-160-call-logged');

    // In English the same entries read in English, the duration by Intl.
    await p.getByLabel('Idioma').selectOption('en');
    await detail.locator('.timeline li', { hasText: 'Call made (4 minutes and 5 seconds)' }).waitFor();
    await detail.locator('.timeline li', { hasText: 'Missed call (busy)' }).waitFor();
    await p.getByLabel('Language').selectOption('pt-BR');
    expect(errors).toEqual([]);
    await p.context().close();
  }, 90_000);

  test('every contact a search matches: an owner set on all 32 by the search, after a confirmation', async () => {
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.goto(`${base}/app/contacts`);
    await search(p, 'Lote Azul', '32 no total');
    // No offer until the whole page is selected.
    expect(await p.getByTestId('select-all-matching').count()).toBe(0);
    await p.getByRole('checkbox', { name: 'Selecionar todos desta página' }).check();
    const offer = p.getByTestId('select-all-matching');
    await offer.getByText('Os 25 contatos desta página estão selecionados.').waitFor();
    await offer
      .getByRole('button', { name: 'Selecionar todos os 32 contatos que correspondem à busca' })
      .click();
    await p
      .getByTestId('all-matching')
      .getByText('Todos os 32 contatos que correspondem à busca estão selecionados.')
      .waitFor();
    const bar = p.getByTestId('bulk-bar');
    await bar.getByText('Todos os 32 da busca').waitFor();
    // A merge needs contacts picked one by one.
    expect(await bar.getByRole('button', { name: 'Mesclar' }).count()).toBe(0);

    await bar.locator('select[name=bulk-action]').selectOption('owner');
    await bar.locator('select[name=bulk-value]').selectOption({ label: 'Paulo Mendes' });
    await bar.getByRole('button', { name: 'Aplicar' }).click();
    const confirm = p.locator('dialog[open]');
    await confirm.getByRole('heading', { name: 'Alterar 32 contatos?' }).waitFor();
    expect(await confirm.textContent()).toContain(
      'A mudança vale para os 32 contatos que correspondem à busca “Lote Azul”, inclusive os das outras páginas. Responsável: Paulo Mendes.',
    );
    await shot(p, 'web-160-bulk-confirm');
    const sent = p.waitForRequest((r) => r.url().endsWith('/api/contacts/bulk-update'));
    await confirm.getByRole('button', { name: 'Alterar 32 contatos' }).click();
    expect((await sent).postDataJSON()).toEqual({ q: 'Lote Azul', data: { owner: member.membershipId } });
    await toast(p, '32 contatos atualizados.');

    // Every match changed, those of page 2 (the oldest, 01…07) too; the others kept their owner.
    for (const id of matchIds) expect((await contact(id)).owner?.documentId).toBe(member.membershipId);
    for (const id of otherIds) expect((await contact(id)).owner?.documentId).toBe(t.membershipId);
    expect((await contact(contactId)).owner?.documentId).not.toBe(member.membershipId);
    // The selection is gone after the action.
    await p.getByTestId('bulk-bar').waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
    await p.context().close();
  }, 90_000);

  test('leaving "every match" on page 2 keeps the rows on screen selected, not page 1\'s', async () => {
    const p = await signedIn();
    await p.goto(`${base}/app/contacts`);
    await search(p, 'Lote Azul', '32 no total');
    await p.getByRole('checkbox', { name: 'Selecionar todos desta página' }).check();
    await p.getByRole('button', { name: 'Selecionar todos os 32 contatos que correspondem à busca' }).click();
    await p.getByTestId('all-matching').waitFor();
    await p.getByRole('button', { name: 'Próxima página' }).first().click();
    await p.getByTestId('all-matching').getByRole('button', { name: 'Só os desta página' }).click();
    // Page 2 holds the 7 oldest matches: they, and only they, are selected.
    const bar = p.getByTestId('bulk-bar');
    await bar.getByText('7 selecionados').waitFor();
    const ticked = await p
      .locator('[data-testid=contacts-table] tbody input[type=checkbox]:checked')
      .evaluateAll((els) => els.length);
    expect(ticked).toBe(7);
    // Unticking one of them leaves the other six (none of page 1 comes back).
    await p.locator('[data-testid=contacts-table] tbody input[type=checkbox]').first().uncheck();
    await bar.getByText('6 selecionados').waitFor();
    await p.context().close();
  }, 90_000);

  test('a member logs calls and acts on every match but cannot delete; a viewer has neither', async () => {
    const v = await signedIn(viewer.user);
    const errors = watchConsole(v);
    await v.goto(`${base}/app/contacts/${contactId}`);
    const detail = v.getByTestId('contact-detail');
    await detail.locator('.timeline li', { hasText: 'Ligação feita' }).waitFor();
    expect(await detail.getByRole('button', { name: 'Registrar ligação' }).count()).toBe(0);
    expect(await v.getByTestId('call-form').count()).toBe(0);
    await search(v, 'Lote Azul', '32 no total');
    expect(await v.locator('[data-testid=contacts-table] input[type=checkbox]').count()).toBe(0);
    expect(await v.getByRole('checkbox', { name: 'Selecionar todos desta página' }).count()).toBe(0);
    expect(await v.getByTestId('select-all-matching').count()).toBe(0);
    expect(errors).toEqual([]);
    await v.context().close();
    const asViewer = await viewer.api.post(`/contacts/${contactId}/activities`, {
      data: { activityType: 'call_completed', description: 'x' },
    });
    expect(asViewer.status).toBe(403);

    const m = await signedIn(member.user);
    await m.goto(`${base}/app/contacts/${contactId}`);
    await m.getByTestId('contact-detail').getByRole('button', { name: 'Registrar ligação' }).waitFor();
    await search(m, 'Lote Azul', '32 no total');
    await m.getByRole('checkbox', { name: 'Selecionar todos desta página' }).check();
    await m.getByRole('button', { name: 'Selecionar todos os 32 contatos que correspondem à busca' }).click();
    const bar = m.getByTestId('bulk-bar');
    await bar.getByText('Todos os 32 da busca').waitFor();
    await bar.getByRole('button', { name: 'Aplicar' }).waitFor();
    expect(await bar.getByRole('button', { name: 'Excluir selecionados' }).count()).toBe(0);
    await m.context().close();
    expect((await member.api.post('/contacts/bulk-delete', { q: 'Lote Azul' })).status).toBe(403);
    expect((await t.api.get('/contacts', { q: 'Lote Azul' })).body.meta.pagination.total).toBe(32);
  }, 60_000);

  test('audited on a desktop and a phone: the call form and timeline, every match selected', async () => {
    const english = englishCatalogue();
    const allowed = ['Renata Alves', 'Paulo Mendes', 'Beatriz Nogueira', t.user.username, t.slug];
    const problems: Record<string, string[]> = {};
    for (const phone of [false, true]) {
      const where = phone ? 'phone' : 'desktop';
      const p = await signedIn(t.user, phone);
      const errors = watchConsole(p);
      await p.goto(`${base}/app/contacts/${contactId}`);
      const detail = p.getByTestId('contact-detail');
      await detail.locator('.timeline li', { hasText: 'Ligação perdida' }).waitFor();
      await detail.getByRole('button', { name: 'Registrar ligação' }).click();
      await p.getByTestId('call-form').locator('select[name=call-type]').waitFor();
      const found = (await auditPage(p, { english, allowed, phone })).map((x) => `call: ${x}`);
      await p.getByTestId('call-form').scrollIntoViewIfNeeded();
      await shot(p, `web-160-call-form-${where}`);

      await p.goto(`${base}/app/contacts`);
      await search(p, 'Lote Azul', '32 no total');
      await p.getByRole('checkbox', { name: 'Selecionar todos desta página' }).check();
      await p
        .getByRole('button', { name: 'Selecionar todos os 32 contatos que correspondem à busca' })
        .click();
      await p.getByTestId('all-matching').waitFor();
      found.push(
        ...(await auditPage(p, { english, allowed: [...allowed, 'Lote Azul'], phone })).map(
          (x) => `bulk: ${x}`,
        ),
      );
      await shot(p, `web-160-all-matching-${where}`);
      if (found.length) problems[where] = found;
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 90_000);

  test('an admin deletes every contact a search matches, after a confirmation naming them', async () => {
    const p = await signedIn();
    const errors = watchConsole(p);
    await p.goto(`${base}/app/contacts`);
    await search(p, 'Lote Azul', '32 no total');
    await p.getByRole('checkbox', { name: 'Selecionar todos desta página' }).check();
    await p.getByRole('button', { name: 'Selecionar todos os 32 contatos que correspondem à busca' }).click();
    await p.getByTestId('bulk-bar').getByRole('button', { name: 'Excluir selecionados' }).click();
    const confirm = p.locator('dialog[open]');
    await confirm.getByRole('heading', { name: 'Excluir 32 contatos?' }).waitFor();
    expect(await confirm.textContent()).toContain(
      'Os 32 contatos que correspondem à busca “Lote Azul”, inclusive os das outras páginas, saem da lista',
    );
    const sent = p.waitForRequest((r) => r.url().endsWith('/api/contacts/bulk-delete'));
    await confirm.getByRole('button', { name: 'Excluir 32 contatos' }).click();
    expect((await sent).postDataJSON()).toEqual({ q: 'Lote Azul' });
    await toast(p, '32 contatos excluídos.');
    await p.getByText('Nenhum contato com essa busca.').waitFor();
    expect((await t.api.get('/contacts', { q: 'Lote Azul' })).body.meta.pagination.total).toBe(0);
    for (const id of otherIds) expect((await t.api.get(`/contacts/${id}`)).status).toBe(200);
    expect((await t.api.get(`/contacts/${contactId}`)).status).toBe(200);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);
});
