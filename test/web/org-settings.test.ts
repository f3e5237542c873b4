import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { addMember, getApp, newTenant, type Tenant, type TestUser, testConfig } from '../helpers/app.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, signedInPage, watchConsole } from './helpers.js';

/**
 * The organization's settings in pt-BR, end to end: an owner renames it and picks another time zone (searched by
 * name), sees a blank name refused at the field as the API says, and the header follows the new name; each change
 * read back through the API. A member sees the values read-only. Audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: organization settings (Chromium)', () => {
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let orgId: string;
  let member: TestUser;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const form = () => page.locator('[data-testid=org-form]');
  const stored = async () => (await t.userApi.get(`/organizations/${orgId}`)).body;

  beforeAll(async () => {
    await ensureWebBuild();
    app = await buildApp({ config: testConfig(), db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    const orgs = (await t.userApi.get('/organizations')).body.data as { slug: string; documentId: string }[];
    orgId = orgs.find((o) => o.slug === t.slug)!.documentId;
    member = (await addMember(t, 'member')).user;
    browser = await launchBrowser();
    page = await signedIn(t.user);
    errors = watchConsole(page, [400]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const signedIn = (user: TestUser, phone = false) => signedInPage(browser, base, user, t.slug, { phone });

  test('an owner renames the organization and picks a time zone; a blank name is refused at the field', async () => {
    await page.getByRole('link', { name: 'Configurações' }).click();
    const name = form().getByLabel('Nome da organização');
    await expect.poll(() => name.inputValue()).toBe(`Org ${t.slug}`);
    const zone = form().locator('select[name=org-time-zone]');
    expect(await zone.inputValue()).toBe('America/Sao_Paulo');
    expect(await zone.locator('option:checked').textContent()).toBe('America/Sao Paulo (GMT-03:00)');

    // The API's refusal, shown at the field it names.
    await name.fill('   ');
    await form().getByRole('button', { name: 'Salvar' }).click();
    await form()
      .locator('.ds-field.has-error', { hasText: 'Nome da organização' })
      .getByText('curto demais')
      .waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect((await stored()).name).toBe(`Org ${t.slug}`);

    await name.fill('Acme Vendas Lisboa');
    await form().getByLabel('Buscar fuso horário').fill('lisb');
    expect(await zone.locator('option').allTextContents()).toEqual([
      'America/Sao Paulo (GMT-03:00)',
      expect.stringMatching(/^Europe\/Lisbon \(GMT\+0[01]:00\)$/),
    ]);
    await zone.selectOption('Europe/Lisbon');
    await form().getByRole('button', { name: 'Salvar' }).click();
    await page.locator('.ds-toast', { hasText: 'Organização salva.' }).waitFor();
    expect(await name.getAttribute('aria-invalid')).toBeNull();
    await expect.poll(async () => (await stored()).timeZone).toBe('Europe/Lisbon');
    expect((await stored()).name).toBe('Acme Vendas Lisboa');
    // The header names the organization anew, and after a reload too.
    await page.locator('header a.org', { hasText: 'Acme Vendas Lisboa' }).waitFor();
    await page.reload();
    await page.locator('header a.org', { hasText: 'Acme Vendas Lisboa' }).waitFor();
    expect(await form().locator('select[name=org-time-zone]').inputValue()).toBe('Europe/Lisbon');
    await shot(page, 'org-settings-desktop');
  });

  test('a member sees the name and time zone read-only and cannot change them', async () => {
    const p = await signedIn(member);
    const consoleErrors = watchConsole(p);
    await p.getByRole('link', { name: 'Configurações' }).click();
    const facts = p.locator('[data-testid=org-read-only]');
    await facts.getByText('Acme Vendas Lisboa').waitFor();
    await facts.getByText(/^Europe\/Lisbon \(GMT/).waitFor();
    await p.getByText('Só proprietários e administradores mudam o nome e o fuso horário.').waitFor();
    expect(await p.locator('[data-testid=org-form]').count()).toBe(0);
    expect(await p.locator('select[name=org-time-zone]').count()).toBe(0);
    expect(consoleErrors).toEqual([]);
    await p.context().close();
  });

  test('audited on a desktop and a phone, as an owner and as a member', async () => {
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    for (const [who, user] of [
      ['owner', t.user],
      ['member', member],
    ] as const)
      for (const phone of [false, true]) {
        const p = await signedIn(user, phone);
        const consoleErrors = watchConsole(p);
        await p.goto(`${base}/app/settings`);
        await p.locator('[data-testid=org-settings] dl, [data-testid=org-form]').first().waitFor();
        await p.locator('[data-testid=members] tbody tr').first().waitFor();
        const name = `org-settings-${who}-${phone ? 'phone' : 'desktop'}`;
        const found = await auditPage(p, {
          english,
          allowed: [t.user.username, member.username, t.slug],
          phone,
        });
        if (found.length) problems[name] = found;
        await p.locator('[data-testid=org-settings]').scrollIntoViewIfNeeded();
        await shot(p, name);
        expect(consoleErrors).toEqual([]);
        await p.context().close();
      }
    expect(problems).toEqual({});
  }, 90_000);

  test('no console errors on the way', () => {
    expect(errors).toEqual([]);
  });
});
