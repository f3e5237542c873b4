import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { DEMO_MEMBERS } from '../../src/demo/data.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { findOrganizationBySlug } from '../../src/modules/organizations/repo.js';
import { sessionSigner } from '../../src/platform/auth/tokens.js';
import { instanceSecret } from '../../src/platform/secrets/secrets.js';
import { startJobs, type WorkerDeps } from '../../src/workers.js';
import { getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { ensureWebBuild, hasChromium, launchBrowser, newPage, shot, watchConsole } from './helpers.js';

/** People by name (issue 31 item 4): the Kanban shows the demo's members by name and initials, never usernames. */
describe.skipIf(!hasChromium)('web app: people by name (Chromium)', () => {
  let app: FastifyInstance;
  let background: WorkerDeps;
  let base: string;
  let t: Tenant;
  let boardId: string;
  let browser: Browser;
  const names = DEMO_MEMBERS.map((m) => `${m.first} ${m.last}`);

  beforeAll(async () => {
    await ensureWebBuild();
    const { db } = await getApp();
    const config = testConfig();
    background = await startJobs(config, db, false);
    app = await buildApp({ config, db, background });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt')));
    const org = (await findOrganizationBySlug(db.system, t.slug))!;
    boardId = (await seedDemoData({ ...background, signer }, org)).board.documentId;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await background?.jobs.stop();
  });

  async function signIn(p: Page) {
    await p.goto(`${base}/app/`);
    await p.fill('input[type=email]', t.user.email);
    await p.fill('input[type=password]', t.user.password);
    await p.click('button[type=submit]');
    await p.click(`button[data-org="${t.slug}"]`);
    await p.getByRole('heading', { name: 'Quadros' }).waitFor();
  }

  test("the Kanban names the demo's members and shows their initials, not their usernames", async () => {
    const members = (await t.api.get('/memberships')).body.data as {
      user: { username: string; name: string };
    }[];
    const usernames = members.filter((m) => names.includes(m.user.name)).map((m) => m.user.username);
    expect(usernames).toHaveLength(names.length);

    const page = await newPage(browser);
    const errors = watchConsole(page);
    await signIn(page);
    await page.goto(`${base}/app/boards/${boardId}`);
    await page.locator('[data-card-id] .assignees .avatar').first().waitFor();
    const avatars = await page
      .locator('[data-card-id] .assignees .avatar')
      .evaluateAll((els) => els.map((e) => ({ title: e.getAttribute('title'), text: e.textContent })));
    const shown = new Set(avatars.map((a) => a.title));
    expect(names.some((n) => shown.has(n))).toBe(true);
    for (const a of avatars) {
      // A demo member by name with initials; the owner, who set no name, by username.
      if (a.title === t.user.username) continue;
      expect(names).toContain(a.title);
      const [first, last] = a.title!.split(' ');
      expect(a.text).toBe(`${first[0]}${last[0]}`);
    }
    const board = await page.locator('main').evaluate((m) => m.outerHTML);
    for (const u of usernames) expect(board).not.toContain(u);
    await shot(page, 'people-kanban');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('the profile in Settings sets the display name the header shows; clearing it shows the username', async () => {
    const page = await newPage(browser);
    const errors = watchConsole(page);
    await signIn(page);
    await page.goto(`${base}/app/settings`);
    const field = page.locator('[data-testid=profile] input[name=display-name]');
    await field.fill('  Dona Teresa  ');
    await page.locator('[data-testid=profile] button[type=submit]').click();
    await page.locator('[data-testid=profile] [role=status]').waitFor();
    await expect
      .poll(() => page.locator('header .who').textContent(), { timeout: 10_000 })
      .toContain('Dona Teresa');
    expect((await t.userApi.get('/users/me')).body.name).toBe('Dona Teresa');
    await expect
      .poll(
        () => page.locator(`[data-testid=members] tr[data-membership-id="${t.membershipId}"]`).textContent(),
        { timeout: 10_000 },
      )
      .toContain('Dona Teresa');

    await field.fill('');
    await page.locator('[data-testid=profile] button[type=submit]').click();
    await expect
      .poll(() => page.locator('header .who').textContent(), { timeout: 10_000 })
      .toContain(t.user.username);
    expect((await t.userApi.get('/users/me')).body.name).toBeNull();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('the profile turns mention e-mails off and on, saved with the name and shown so after a reload', async () => {
    const page = await newPage(browser);
    const errors = watchConsole(page);
    await signIn(page);
    await page.goto(`${base}/app/settings`);
    const box = page.getByRole('checkbox', {
      name: 'Receber um e-mail quando alguém me mencionar num comentário',
    });
    await expect.poll(() => box.isChecked()).toBe(true);
    await box.uncheck();
    await shot(page, 'web-174-profile-mention-emails');
    await page.locator('[data-testid=profile] button[type=submit]').click();
    await expect.poll(async () => (await t.userApi.get('/users/me')).body.mentionEmails).toBe(false);
    await page.reload();
    await expect.poll(() => box.isChecked()).toBe(false);
    await box.check();
    await page.locator('[data-testid=profile] button[type=submit]').click();
    await expect.poll(async () => (await t.userApi.get('/users/me')).body.mentionEmails).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
