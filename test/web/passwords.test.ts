import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { queryRows } from '../../src/platform/db/client.js';
import { queueNameIn } from '../../src/platform/jobs/jobs.js';
import { type MailJob, openMail } from '../../src/platform/mail/mailer.js';
import { secretBox } from '../../src/platform/secrets/encryption.js';
import { apiClient, getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { auditPage, englishCatalogue } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, newPage, shot, watchConsole } from './helpers.js';

/**
 * Passwords in pt-BR, end to end: "Esqueci minha senha" e-mails a link (taken from the mail queue, its body
 * opened as the mail worker does), the link's page sets a new password and signs in; Settings changes it with the
 * current one. Each change read back through the API (the new password signs in, older sessions are over).
 * Audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: forgotten and changed passwords (Chromium)', () => {
  let ctx: Awaited<ReturnType<typeof getApp>>;
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let browser: Browser;
  const anon = () => apiClient(app, {});
  const signInWith = (password: string) => anon().post('/auth/local', { identifier: t.user.email, password });

  beforeAll(async () => {
    await ensureWebBuild();
    ctx = await getApp();
    app = await buildApp({ config: testConfig(), db: ctx.db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const newContext = (phone = false) => newPage(browser, { phone });

  /** The reset link e-mailed to the tenant's owner, taken out of the mail queue. */
  async function resetLink() {
    const [job] = await queryRows<{ data: MailJob }>(
      ctx.db.system,
      sql`delete from pgboss.job where name = ${queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', 'mail-send')}
            and data->>'to' = ${t.user.email} returning data`,
    );
    expect(job, 'a reset mail').toBeDefined();
    const mail = await openMail(job.data, () => secretBox(ctx.config, ctx.db));
    const link = /(https?:\/\/\S+\/app\/reset-password\?code=crm_pwr_\w+)/.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();
    return new URL(link!);
  }

  async function audit(p: Page, name: string, phone: boolean) {
    const found = await auditPage(p, {
      english: englishCatalogue(),
      allowed: [t.user.email, t.user.username, t.slug],
      phone,
    });
    await shot(p, name);
    return found.length ? { [name]: found } : {};
  }

  test('a forgotten password: the e-mailed link sets a new one and signs in; the old one is over', async () => {
    const before = (await signInWith(t.user.password)).body.jwt as string;
    await new Promise((r) => setTimeout(r, 1100));
    const p = await newContext();
    const errors = watchConsole(p, [400]);
    await p.goto(`${base}/app/`);
    await p.getByRole('link', { name: 'Esqueci minha senha' }).click();
    await p.getByRole('heading', { name: 'Redefinir a senha' }).waitFor();
    await p.getByLabel('E-mail').fill(t.user.email);
    await p.getByRole('button', { name: 'Enviar link' }).click();
    await p.locator('[data-testid=forgot-sent]', { hasText: t.user.email }).waitFor();
    // The link names PUBLIC_URL (the tests' own); its path and code are opened on this server.
    const link = await resetLink();

    await p.goto(`${base}${link.pathname}${link.search}`);
    await p.getByRole('heading', { name: 'Escolha uma nova senha' }).waitFor();
    await p.getByLabel('Nova senha', { exact: true }).fill('senha-nova-123');
    await p.getByLabel('Repita a nova senha').fill('senha-diferente');
    await p.getByRole('button', { name: 'Salvar e entrar' }).click();
    await p.getByText('As duas senhas não são iguais.').waitFor();
    await p.getByLabel('Repita a nova senha').fill('senha-nova-123');
    await p.getByRole('button', { name: 'Salvar e entrar' }).click();
    await p.getByRole('heading', { name: 'Escolha uma organização' }).waitFor();
    expect((await signInWith('senha-nova-123')).status).toBe(200);
    expect((await signInWith(t.user.password)).status).toBe(400);
    expect((await apiClient(app, { authorization: `Bearer ${before}` }).get('/users/me')).status).toBe(401);

    // The link works once: opened again, the service's refusal is shown.
    const again = await newContext();
    await again.goto(`${base}${link.pathname}${link.search}`);
    await again.getByLabel('Nova senha', { exact: true }).fill('outra-senha-456');
    await again.getByLabel('Repita a nova senha').fill('outra-senha-456');
    await again.getByRole('button', { name: 'Salvar e entrar' }).click();
    await again
      .getByRole('alert')
      .getByText(/Incorrect code provided|link/)
      .waitFor();
    await again.context().close();
    expect(errors).toEqual([]);
    await p.context().close();
  });

  test('Settings: the password is changed with the current one; the page goes on signed in', async () => {
    const p = await newContext();
    const errors = watchConsole(p, [400]);
    await p.goto(`${base}/app/`);
    await p.fill('input[type=email]', t.user.email);
    await p.fill('input[type=password]', 'senha-nova-123');
    await p.click('button[type=submit]');
    await p.click(`button[data-org="${t.slug}"]`);
    await p.getByRole('heading', { name: 'Quadros' }).waitFor();
    await p.getByRole('link', { name: 'Configurações' }).click();
    const block = p.locator('[data-testid=change-password]');
    await block.getByLabel('Senha atual').fill('nao-e-esta');
    await block.getByLabel('Nova senha', { exact: true }).fill('terceira-senha-789');
    await block.getByLabel('Repita a nova senha').fill('terceira-senha-789');
    await block.getByRole('button', { name: 'Trocar senha' }).click();
    await block.getByRole('alert').getByText('A senha atual não confere.').waitFor();
    expect((await signInWith('senha-nova-123')).status).toBe(200);

    await block.getByLabel('Senha atual').fill('senha-nova-123');
    await block.getByRole('button', { name: 'Trocar senha' }).click();
    await block.getByText('Senha trocada.').waitFor();
    expect((await signInWith('terceira-senha-789')).status).toBe(200);
    expect((await signInWith('senha-nova-123')).status).toBe(400);
    // The page kept its session: it still reads the organization's boards.
    await p.getByRole('link', { name: 'Quadros' }).click();
    await p.getByRole('heading', { name: 'Quadros' }).waitFor();
    expect(errors).toEqual([]);
    await p.context().close();
  });

  test('the pages are audited on a desktop and a phone', async () => {
    let problems: Record<string, string[]> = {};
    for (const phone of [false, true]) {
      const p = await newContext(phone);
      const suffix = phone ? 'phone' : 'desktop';
      await p.goto(`${base}/app/forgot-password`);
      await p.getByRole('heading', { name: 'Redefinir a senha' }).waitFor();
      problems = { ...problems, ...(await audit(p, `password-forgot-${suffix}`, phone)) };
      await p.goto(`${base}/app/reset-password?code=crm_pwr_example`);
      await p.getByRole('heading', { name: 'Escolha uma nova senha' }).waitFor();
      problems = { ...problems, ...(await audit(p, `password-reset-${suffix}`, phone)) };
      await p.goto(`${base}/app/`);
      await p.fill('input[type=email]', t.user.email);
      await p.fill('input[type=password]', 'terceira-senha-789');
      await p.click('button[type=submit]');
      await p.click(`button[data-org="${t.slug}"]`);
      await p.goto(`${base}/app/settings`);
      await p.locator('[data-testid=change-password]').scrollIntoViewIfNeeded();
      problems = { ...problems, ...(await audit(p, `password-change-${suffix}`, phone)) };
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 90_000);
});
