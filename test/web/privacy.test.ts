import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import * as privacyWords from '../../web/src/words/privacy.js';
import { addMember, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { createPerson, type Person, person, runRequest, unzip } from '../modules/privacy/helpers.js';
import { a11y, englishCatalogue, pageTexts, tooWide, untranslated } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * A contact's consents and LGPD rights from its page (docs/lgpd.md), in pt-BR, end to end against the real
 * service, each step done in the page and checked through the API: a withdrawal recorded with its reason and seen
 * in the state and the ledger, a grant with its legal basis; an export requested, its status followed while its job
 * runs, its one-time link downloaded; an erasure asked behind a confirmation, after which the page shows none of
 * the erased data; what a viewer and a member see; the blocks audited (axe-core) on a desktop and a 390 px phone,
 * and in English. The privacy jobs are run here as the worker runs them (the test app runs no workers).
 */
describe.skipIf(!hasChromium)('web app: consents and LGPD rights on a contact (Chromium)', () => {
  const config = testConfig();
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let browser: Browser;

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config, db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    expect((await t.userApi.put('/users/me', { name: 'Renata Alves' })).status).toBe(200);
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  function signedIn(phone = false, who?: { user: { email: string; password: string }; slug: string }) {
    const as = who ?? t;
    return signedInPage(browser, base, as.user, as.slug, { phone, acceptDownloads: true });
  }
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();
  /** A contact's page, its consents loaded. */
  async function openContact(p: Page, id: string, name: string) {
    await p.goto(`${base}/app/contacts/${id}`);
    const detail = p.getByTestId('contact-detail');
    await detail.getByRole('heading', { name, exact: true }).waitFor();
    await detail.locator('[data-consent="whatsapp.marketing"]').waitFor();
    return detail;
  }
  /** A person with a grant of WhatsApp marketing from the public form (the ledger's first entry). */
  async function personWithConsent(): Promise<{ p: Person; id: string }> {
    const p = person();
    const id = await createPerson(t.api, p);
    const granted = await t.api.post(`/contacts/${id}/consents`, {
      data: {
        channel: 'whatsapp',
        purpose: 'marketing',
        status: 'granted',
        source: 'form',
        proof: { text: 'Aceito receber ofertas por WhatsApp.' },
      },
    });
    expect(granted.status).toBe(201);
    return { p, id };
  }
  const dateTimePtBR = /\d{2}\/\d{2}\/\d{4},? \d{2}:\d{2}/;

  test('consents: a withdrawal recorded with its reason, seen in the state and the ledger; a grant with its basis', async () => {
    const { p: who, id } = await personWithConsent();
    const p = await signedIn();
    const errors = watchConsole(p);
    const detail = await openContact(p, id, who.name);
    const consents = detail.getByTestId('consents');
    await consents.getByRole('heading', { name: 'Consentimentos', exact: true }).waitFor();
    // Six rows, one per channel and purpose; the form's grant with its source and a pt-BR date.
    expect(await consents.locator('[data-consent]').count()).toBe(6);
    const whatsapp = consents.locator('[data-consent="whatsapp.marketing"]');
    expect(await whatsapp.locator('[data-status]').getAttribute('data-status')).toBe('granted');
    expect(await whatsapp.textContent()).toContain('WhatsApp · MarketingConcedidoformulário, ');
    expect(await whatsapp.textContent()).toMatch(dateTimePtBR);
    expect(await consents.locator('[data-consent="sms.transactional"]').textContent()).toContain(
      'Sem registro',
    );

    // Withdrawn with a reason, in a dialog.
    await consents.getByRole('button', { name: 'Retirar WhatsApp · Marketing' }).click();
    const dialog = p.locator('dialog[open]');
    await dialog.getByRole('heading', { name: 'Registrar retirada: WhatsApp · Marketing' }).waitFor();
    expect(await dialog.locator('select[name=consent-basis]').count()).toBe(0);
    await dialog.getByLabel('Motivo ou comprovação').fill('Pediu por telefone para não receber ofertas');
    await dialog.getByRole('button', { name: 'Registrar' }).click();
    await toast(p, 'Retirada registrada.');
    await dialog.waitFor({ state: 'detached' });
    await whatsapp.locator('[data-status=withdrawn]', { hasText: 'Retirado' }).waitFor();
    expect(await whatsapp.textContent()).toContain('registro manual, ');
    // The ledger, newest first: the withdrawal with its basis, source, who and why; then the form's grant.
    const ledger = consents.getByTestId('consent-ledger').locator('li');
    await expect.poll(() => ledger.count()).toBe(2);
    const latest = (await ledger.nth(0).textContent()) ?? '';
    expect(latest).toMatch(dateTimePtBR);
    expect(latest).toContain('WhatsApp · Marketing: Retirado');
    expect(latest).toContain('Consentimento (art. 7º, I) · registro manual · por Renata Alves');
    expect(latest).toContain('Motivo: Pediu por telefone para não receber ofertas');
    expect(await ledger.nth(1).textContent()).toContain('Texto aceito: Aceito receber ofertas por WhatsApp.');
    await shot(p, 'privacy-consents');
    const after = (await t.api.get(`/contacts/${id}/consents`)).body;
    expect(after.history[0]).toMatchObject({
      channel: 'whatsapp',
      purpose: 'marketing',
      status: 'withdrawn',
      source: 'manual',
      proof: { note: 'Pediu por telefone para não receber ofertas' },
      recordedBy: t.membershipId,
    });

    // A grant of e-mail marketing on a contract, asked for its legal basis.
    await consents.getByRole('button', { name: 'Conceder E-mail · Marketing' }).click();
    await dialog.getByRole('heading', { name: 'Registrar consentimento: E-mail · Marketing' }).waitFor();
    await dialog.getByLabel('Base legal').selectOption({ label: 'Execução de contrato (art. 7º, V)' });
    await dialog.getByRole('button', { name: 'Registrar' }).click();
    await toast(p, 'Consentimento registrado.');
    await consents.locator('[data-consent="email.marketing"] [data-status=granted]').waitFor();
    expect((await t.api.get(`/contacts/${id}/consents`)).body.history[0]).toMatchObject({
      channel: 'email',
      status: 'granted',
      legalBasis: 'contract',
      proof: {},
    });
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('an export: requested, its status followed while its job runs, its one-time link downloaded', async () => {
    const { p: who, id } = await personWithConsent();
    const p = await signedIn();
    const errors = watchConsole(p);
    const detail = await openContact(p, id, who.name);
    const privacy = detail.getByTestId('privacy');
    await privacy.getByRole('heading', { name: 'Privacidade (LGPD) Beta' }).waitFor();
    const [answer] = await Promise.all([
      p.waitForResponse((r) => r.url().endsWith(`/api/contacts/${id}/data-export`)),
      privacy.getByRole('button', { name: 'Exportar dados' }).click(),
    ]);
    const request = await answer.json();
    expect(answer.status()).toBe(202);
    await toast(p, 'Exportação pedida.');
    const box = privacy.getByTestId('export-request');
    await box.locator('[data-request-status=queued]', { hasText: 'Na fila' }).waitFor();
    // The link, shown this once and said so; not downloadable before the job is done.
    expect(await box.textContent()).toContain('ele aparece só desta vez');
    const link = await box.getByLabel('Link do arquivo').inputValue();
    expect(link).toBe(`${base}${request.downloadUrl}`);
    expect(await box.getByText('O download é liberado quando a exportação terminar.').count()).toBe(1);
    expect(await box.getByRole('link').count()).toBe(0);

    await runRequest(t, request.documentId, { config });
    await box.locator('[data-request-status=done]', { hasText: 'Concluído' }).waitFor();
    const download = box.getByRole('link', { name: 'Baixar o arquivo (.zip)' });
    await download.waitFor();
    expect(await box.textContent()).toMatch(/Válido até \d{2}\/\d{2}\/\d{4},? \d{2}:\d{2}; [\d,]+ kB\./);
    await box.scrollIntoViewIfNeeded();
    await shot(p, 'privacy-export');
    const [file] = await Promise.all([p.waitForEvent('download'), download.click()]);
    expect(file.suggestedFilename()).toBe(`data-export-${request.documentId}.zip`);
    const zip = unzip(readFileSync((await file.path())!));
    expect(zip.json('contact.json')).toEqual([
      expect.objectContaining({ document_id: id, email: who.email }),
    ]);
    expect(zip.json('consents.json')).toHaveLength(1);
    // Used once: the page no longer offers it, the service says so, and the link does not work again.
    await box.getByText('Arquivo baixado: este link já foi usado.', { exact: false }).waitFor();
    expect(await box.getByRole('link').count()).toBe(0);
    expect(await box.getByLabel('Link do arquivo').count()).toBe(0);
    expect((await t.api.get(`/privacy-requests/${request.documentId}`)).body.downloadedAt).not.toBeNull();
    expect((await fetch(link)).status).toBe(404);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('an erasure: asked behind a confirmation that says what goes and that it is final; then the data is gone', async () => {
    const { p: who, id } = await personWithConsent();
    await t.api.post(`/contacts/${id}/consents`, {
      data: {
        channel: 'sms',
        purpose: 'marketing',
        status: 'granted',
        proof: { note: `Ligou de ${who.phone}` },
      },
    });
    const p = await signedIn();
    const errors = watchConsole(p);
    const detail = await openContact(p, id, who.name);
    await detail.locator('dd[data-field=email]', { hasText: who.email }).waitFor();
    await p.locator(`tr[data-contact-id="${id}"]`, { hasText: who.name }).waitFor();
    const privacy = detail.getByTestId('privacy');
    const requests = async () =>
      (await t.api.get('/audit-logs', { action: 'contact.erasure_requested', target: id })).body.data;

    // Asked first: what will be erased and that it cannot be undone. Cancelled, nothing is asked of the service.
    await privacy.getByRole('button', { name: 'Apagar dados pessoais' }).click();
    const confirm = p.locator('dialog[open]');
    await confirm.getByRole('heading', { name: `Apagar os dados pessoais de ${who.name}?` }).waitFor();
    const text = (await confirm.textContent()) ?? '';
    expect(text).toContain('Serão apagados: nome, e-mail, telefone, CPF/CNPJ, endereço');
    expect(text).toContain('suas conversas e mensagens');
    expect(text).toContain('Isto não pode ser desfeito.');
    await shot(p, 'privacy-erase-confirm');
    await confirm.getByRole('button', { name: 'Cancelar' }).click();
    expect(await requests()).toHaveLength(0);

    await privacy.getByRole('button', { name: 'Apagar dados pessoais' }).click();
    const [answer] = await Promise.all([
      p.waitForResponse((r) => r.url().endsWith(`/api/contacts/${id}/erase`)),
      confirm.getByRole('button', { name: 'Apagar para sempre' }).click(),
    ]);
    expect(answer.status()).toBe(202);
    const request = await answer.json();
    await toast(p, 'Apagamento pedido.');
    const box = privacy.getByTestId('erasure-request');
    await box.locator('[data-request-status=queued]', { hasText: 'Na fila' }).waitFor();

    await runRequest(t, request.documentId, { config });
    await box.locator('[data-request-status=done]', { hasText: 'Concluído' }).waitFor();
    // The page asked again: the contact, its list row, its timeline and consents show nothing of the person.
    await detail.getByRole('heading', { name: 'Contato apagado', exact: true }).waitFor();
    await p.locator(`tr[data-contact-id="${id}"]`, { hasText: 'Contato apagado' }).waitFor();
    await privacy.getByText('Os dados pessoais deste contato foram apagados (LGPD).').waitFor();
    expect(await privacy.getByRole('button').count()).toBe(0);
    for (const field of ['email', 'phone', 'cpf', 'city'])
      expect(await detail.locator(`dd[data-field=${field}]`).count()).toBe(0);
    await expect.poll(() => detail.getByTestId('consent-ledger').locator('li').count()).toBe(2);
    // Every query is asked again at once: the consents and the timeline may answer after the contact.
    const page = async () => (await pageTexts(p)).join('\n');
    const phoneShown = who.phone.replace(/^\+55(\d{2})(\d{5})(\d{4})$/, '+55 ($1) $2-$3');
    for (const gone of [who.name, who.email, phoneShown, who.cpfFormatted, 'Ligou de', 'Aceito receber'])
      await expect.poll(page).not.toContain(gone);
    await box.scrollIntoViewIfNeeded();
    await shot(p, 'privacy-erased');
    expect((await t.api.get(`/contacts/${id}`)).body).toMatchObject({ name: 'Erased contact', email: null });
    expect(await requests()).toHaveLength(1);
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('a viewer reads the consents without controls; a member records them; neither sees the LGPD rights', async () => {
    const { p: who, id } = await personWithConsent();
    const viewer = await addMember(t, 'viewer');
    const v = await signedIn(false, { user: viewer.user, slug: t.slug });
    const errors = watchConsole(v);
    const detail = await openContact(v, id, who.name);
    await detail.getByTestId('consent-ledger').locator('li', { hasText: 'Concedido' }).waitFor();
    expect(await detail.getByTestId('consents').getByRole('button').count()).toBe(0);
    expect(await detail.getByTestId('privacy').count()).toBe(0);
    expect(errors).toEqual([]);
    await v.context().close();

    const member = await addMember(t, 'member');
    const m = await signedIn(false, { user: member.user, slug: t.slug });
    const mDetail = await openContact(m, id, who.name);
    await mDetail.getByRole('button', { name: 'Retirar WhatsApp · Marketing' }).waitFor();
    expect(await mDetail.getByTestId('privacy').count()).toBe(0);
    expect((await member.api.post(`/contacts/${id}/data-export`)).status).toBe(403);
    expect((await member.api.post(`/contacts/${id}/erase`, { confirm: id })).status).toBe(403);
    await m.context().close();
  }, 60_000);

  test('audited on a desktop and a 390 px phone: the blocks, the consent dialog; in English no pt-BR word', async () => {
    const { p: who, id } = await personWithConsent();
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    const allowed = [who.name, 'Renata Alves', 'Aceito receber ofertas por WhatsApp.'];
    for (const phone of [false, true]) {
      const p = await signedIn(phone);
      const errors = watchConsole(p);
      const where = phone ? 'phone' : 'desktop';
      const detail = await openContact(p, id, who.name);
      const privacy = detail.getByTestId('privacy');
      await privacy.getByRole('button', { name: 'Exportar dados' }).click();
      await privacy.getByTestId('export-request').waitFor();
      await detail.getByTestId('consent-ledger').locator('li').first().waitFor();
      await p.waitForTimeout(200);
      const found = [
        ...untranslated(await pageTexts(p), english, allowed),
        ...(await a11y(p)),
        ...(phone ? await tooWide(p) : []),
      ];
      await detail.getByTestId('consents').scrollIntoViewIfNeeded();
      await shot(p, `privacy-${where}`);
      await privacy.scrollIntoViewIfNeeded();
      await shot(p, `privacy-${where}-rights`);
      await detail.getByRole('button', { name: 'Conceder E-mail · Marketing' }).click();
      await p.locator('dialog[open] select[name=consent-basis]').waitFor();
      found.push(
        ...untranslated(await pageTexts(p), english, allowed).map((x) => `dialog: ${x}`),
        ...(await a11y(p)).map((x) => `dialog: ${x}`),
        ...(phone ? await tooWide(p) : []).map((x) => `dialog: ${x}`),
      );
      if (phone) await shot(p, 'privacy-phone-dialog');
      if (found.length) problems[where] = found;
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});

    // In English: the words and the month-first dates, none of the area's pt-BR strings.
    const p = await signedIn();
    await p.getByLabel('Idioma').selectOption('en');
    const detail = await openContact(p, id, who.name);
    await detail.getByRole('heading', { name: 'Consents' }).waitFor();
    const whatsapp = detail.locator('[data-consent="whatsapp.marketing"]');
    expect(await whatsapp.textContent()).toMatch(/WhatsApp · MarketingGrantedform, \d{1,2}\/\d{1,2}\/\d{2},/);
    const englishWords = new Set(Object.values(privacyWords.en));
    const portuguese = Object.values(privacyWords.ptBR)
      .map((s) => s.replace(/\{\w+\}.*$/, '').trim())
      .filter((s) => s.length >= 6 && !englishWords.has(s));
    const texts = (await pageTexts(p)).join('\n');
    expect(portuguese.filter((s) => texts.includes(s))).toEqual([]);
    await p.context().close();
  }, 90_000);
});
