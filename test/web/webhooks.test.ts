import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { dispatchOrganization } from '../../src/events.js';
import { deliverDue } from '../../src/modules/webhooks/delivery.js';
import { queryRows } from '../../src/platform/db/client.js';
import { getApp, newTenant, type Tenant, testConfig } from '../helpers/app.js';
import { createCard, createPipeline } from '../modules/cards/factory.js';
import { a11y, englishCatalogue, pageTexts, tooWide, untranslated } from './audit.js';
import { ensureWebBuild, hasChromium, launchBrowser, shot, watchConsole } from './helpers.js';

/**
 * The webhooks page (issue 31 item 1) in pt-BR, end to end: a private address refused as the API says, a
 * subscription to a local receiver created (its secret shown once), edited, its deliveries in the log after
 * a card event, re-enabled after the service disabled it; audited on a desktop and a 390 px phone.
 */
describe.skipIf(!hasChromium)('web app: webhooks (Chromium)', () => {
  const config = testConfig({ CRM_OUTBOUND_ALLOWLIST: '127.0.0.1' });
  let app: FastifyInstance;
  let base: string;
  let t: Tenant;
  let orgId: number;
  let browser: Browser;
  let server: Server;
  let receiverUrl: string;
  const got: string[] = [];

  beforeAll(async () => {
    await ensureWebBuild();
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    app = await buildApp({ config, db: (await getApp()).db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    t = await newTenant(app);
    const [row] = await queryRows<{ id: number }>(
      (await getApp()).db.system,
      sql`select id from organizations where slug = ${t.slug}`,
    );
    orgId = Number(row.id);
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await new Promise((r) => server?.close(r));
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
  const toast = (p: Page, text: string) => p.locator('.ds-toast', { hasText: text }).first().waitFor();

  test('a private address refused; a subscription created, edited, delivered to, re-enabled', async () => {
    const p = await signedIn();
    const errors = watchConsole(p, [400]);
    await p.goto(`${base}/app/more`);
    await p.getByRole('link', { name: /Webhooks/ }).click();
    await p.getByRole('heading', { name: /Webhooks/ }).waitFor();

    // A private address: refused beside the field as the API says (public_address).
    await p.getByRole('button', { name: 'Nova assinatura' }).click();
    const dialog = p.locator('dialog[open]');
    await dialog.locator('input[name=webhook-url]').fill('http://10.0.0.5/hook');
    await dialog.locator('input[name="webhook-event-card.created"]').check();
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    const refused = dialog.locator('.ds-field.has-error .ds-error, [role=alert]').first();
    await refused.waitFor();
    const refusal = (await refused.textContent()) ?? '';
    expect(refusal.length).toBeGreaterThan(0);
    await shot(p, 'webhooks-refused');
    expect((await t.api.get('/webhook-subscriptions')).body.data).toHaveLength(0);

    // The local receiver (allow-listed for this service): created, the secret shown once.
    await dialog.locator('input[name=webhook-url]').fill(receiverUrl);
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Assinatura salva.');
    const secret = await p.getByTestId('webhook-secret').textContent();
    expect(secret).toMatch(/^whsec_/);
    await shot(p, 'webhooks-secret');
    await p.locator('dialog[open]').getByRole('button', { name: 'Fechar' }).first().click();
    const subs = (await t.api.get('/webhook-subscriptions')).body.data;
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({ url: receiverUrl, events: ['card.created'], enabled: true });
    expect(JSON.stringify(subs[0])).not.toContain(secret);
    const id = subs[0].documentId as string;

    // Edited: another event (as words in the list).
    await p.getByRole('button', { name: `Editar ${receiverUrl}` }).click();
    await dialog.locator('input[name="webhook-event-card.won"]').check();
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toast(p, 'Assinatura salva.');
    await p.locator('tr', { hasText: 'Card ganho' }).waitFor();
    expect((await t.api.get(`/webhook-subscriptions/${id}`)).body.events.sort()).toEqual([
      'card.created',
      'card.won',
    ]);

    // A card event, dispatched and delivered to the receiver: it appears in the log.
    const { boardId } = await createPipeline(t.api);
    await createCard(t.api, boardId, { title: 'Negócio do webhook' });
    const { db } = await getApp();
    await dispatchOrganization(db, orgId);
    await deliverDue({ db, config });
    expect(got.some((b) => b.includes('card.created'))).toBe(true);
    await p.getByRole('button', { name: `Entregas de ${receiverUrl}` }).click();
    const log = p.getByTestId('webhook-deliveries');
    await log.locator('tr', { hasText: 'Entregue' }).waitFor();
    expect(await log.locator('tbody tr').first().textContent()).toContain('Card criado');
    expect(await log.locator('tbody tr').first().textContent()).toContain('204');
    await shot(p, 'webhooks-deliveries');
    await p.keyboard.press('Escape');

    // The service disabled it after failures: re-enabled from the page.
    await db.system.execute(
      sql`update webhook_subscriptions set enabled = false, consecutive_failures = 20,
          disabled_reason = 'HTTP 500' where organization_id = ${orgId} and document_id = ${id}`,
    );
    await p.reload();
    await p.locator('tr', { hasText: 'Desativada' }).waitFor();
    await p.getByRole('button', { name: `Reativar ${receiverUrl}` }).click();
    await toast(p, 'Assinatura reativada');
    expect((await t.api.get(`/webhook-subscriptions/${id}`)).body).toMatchObject({ enabled: true });
    await shot(p, 'webhooks-list');
    expect(errors).toEqual([]);
    await p.context().close();
  }, 60_000);

  test('audited on a desktop and a phone', async () => {
    const problems: Record<string, string[]> = {};
    const english = englishCatalogue();
    for (const phone of [false, true]) {
      const p = await signedIn(phone);
      const errors = watchConsole(p);
      await p.goto(`${base}/app/webhooks`);
      await p.getByTestId('webhooks').waitFor();
      await p.waitForTimeout(200);
      const found = [
        ...untranslated(await pageTexts(p), english, [receiverUrl]),
        ...(await a11y(p)),
        ...(phone ? await tooWide(p) : []),
      ];
      if (found.length) problems[phone ? 'phone' : 'desktop'] = found;
      await shot(p, `webhooks-${phone ? 'phone' : 'desktop'}`);
      expect(errors).toEqual([]);
      await p.context().close();
    }
    expect(problems).toEqual({});
  }, 60_000);
});
