import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/platform/db/client.js';
import { newTenant, type Tenant, testConfig, testDatabase } from '../helpers/app.js';
import { startOauthClientPeer } from '../helpers/peers/oauth-client-peer.js';
import { connectHttp, startHttpMcp } from '../mcp/harness.js';
import { authorizeUrl, pkcePair, registerClient, tokenRequest } from '../modules/oauth/oauth-client.js';
import { ensureWebBuild, hasChromium, launchBrowser, newPage, watchConsole } from './helpers.js';

/**
 * Sign-in for remote agents end to end (docs/mcp.md "Sign-in"): a real Chromium, the listening service as
 * authorization server, crm-mcp as the protected resource, and an agent of the test's own that registers
 * (Client ID Metadata Document over HTTPS, or dynamic registration), sends the person to consent, exchanges the
 * code with PKCE and calls tools with the token.
 */
describe.skipIf(!hasChromium)('OAuth sign-in for agents (Chromium)', () => {
  let app: FastifyInstance;
  let db: Database;
  let base: string;
  let mcp: Awaited<ReturnType<typeof startHttpMcp>>;
  let peer: Awaited<ReturnType<typeof startOauthClientPeer>>;
  let t: Tenant;
  let other: Tenant;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const clients: Client[] = [];
  const resource = () => `${mcp.url}/mcp`;

  beforeAll(async () => {
    await ensureWebBuild();
    peer = await startOauthClientPeer('Agente de Teste');
    db = await testDatabase();
    const config = testConfig({ CRM_OUTBOUND_ALLOWLIST: '127.0.0.1', CRM_OUTBOUND_CA_FILE: peer.caFile });
    app = await buildApp({ config, db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    mcp = await startHttpMcp({ MCP_CRM_API_URL: base });
    t = await newTenant(app);
    other = await newTenant(app);
    browser = await launchBrowser();
    page = await newPage(browser);
    errors = watchConsole(page, [401, 404]);
  }, 240_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await browser?.close();
    await mcp?.stop();
    await app?.close();
    await db?.close();
    await peer?.close();
  });

  /** Browser part: from the authorization URL through consent (signing in first when asked) to the code. */
  async function consentInBrowser(url: string, opts: { signIn: boolean; org: string }) {
    const callback = peer.nextCallback();
    await page.goto(url);
    if (opts.signIn) {
      await page.fill('input[type=email]', t.user.email);
      await page.fill('input[type=password]', t.user.password);
      await page.click('button[type=submit]');
    }
    await page.waitForURL(/\/app\/oauth\/consent\?uid=/);
    await page.locator('[data-testid=oauth-client]').waitFor();
    await page.selectOption('select[name=organization]', opts.org);
    await page.getByRole('button', { name: 'Permitir' }).click();
    const back = await callback;
    // The peer answers before the browser has finished arriving there: let the navigation end, so the next
    // page.goto is not interrupted by it.
    await page.waitForURL((u) => u.pathname === '/callback', { waitUntil: 'load' });
    expect(back.searchParams.get('error')).toBeNull();
    return back.searchParams.get('code')!;
  }

  async function mcpCall(token: string, body: unknown) {
    return fetch(`${mcp.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(body),
    });
  }
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  };

  test('the agent server leads an unauthenticated client to the authorization server', async () => {
    const res = await fetch(`${mcp.url}/mcp`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${mcp.url}/.well-known/oauth-protected-resource`);
    const prm = (await (await fetch(metadataUrl!)).json()) as Record<string, any>;
    expect(prm.resource).toBe(resource());
    expect(prm.authorization_servers).toEqual([base]);
    expect(prm.scopes_supported).toContain('contacts:read');
    const as = await fetch(`${prm.authorization_servers[0]}/.well-known/oauth-authorization-server`);
    expect(((await as.json()) as { issuer: string }).issuer).toBe(base);
  });

  let cimdRefresh = '';
  let cimdToken = '';

  test('a CIMD client: the person signs in and consents in pt-BR; the agent calls tools with the token', async () => {
    const contact = await t.api.post('/contacts', {
      data: { name: 'Bianca Prado', email: 'bianca@prado.com.br' },
    });
    expect(contact.status).toBe(201);
    const { verifier, challenge } = pkcePair();
    const c = { clientId: peer.clientId, redirectUri: peer.redirectUri };
    const url = authorizeUrl(base, c, challenge, {
      resource: resource(),
      scope: 'contacts:read tasks:write',
    });
    const callback = peer.nextCallback();
    await page.goto(url);
    // Not signed in: the web application's sign-in, then back to the consent page.
    await page.fill('input[type=email]', t.user.email);
    await page.fill('input[type=password]', t.user.password);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/app\/oauth\/consent\?uid=/);
    await expect.poll(() => page.locator('[data-testid=oauth-client]').textContent()).toBe('Agente de Teste');
    const scopes = await page.locator('[data-testid=oauth-scopes] li').allTextContents();
    expect(scopes).toEqual(['Ver contatos e seu histórico', 'Ver e alterar tarefas']);
    expect(await page.locator('select[name=organization] option').allTextContents()).toEqual([
      `Org ${t.slug}`,
    ]);
    await page.getByRole('button', { name: 'Permitir' }).click();
    const back = await callback;
    // The peer answers before the browser has finished arriving there: let the navigation end, so the next
    // page.goto is not interrupted by it.
    await page.waitForURL((u) => u.pathname === '/callback', { waitUntil: 'load' });
    const code = back.searchParams.get('code')!;
    expect(code).toBeTruthy();
    const tokens = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: peer.redirectUri,
      client_id: peer.clientId,
      resource: resource(),
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    cimdToken = tokens.body.access_token;
    cimdRefresh = tokens.body.refresh_token;

    const client = await connectHttp(mcp.url, undefined, { authorization: `Bearer ${cimdToken}` });
    clients.push(client);
    const found = await client.callTool({
      name: 'crm.search_contacts',
      arguments: { email: 'bianca@prado.com.br' },
    });
    expect(found.isError).toBeFalsy();
    expect(JSON.stringify(found.structuredContent ?? found.content)).toContain('Bianca Prado');
  });

  test('a token issued for another resource is refused by the agent server', async () => {
    const c = { clientId: peer.clientId, redirectUri: peer.redirectUri };
    const { verifier, challenge } = pkcePair();
    const elsewhere = 'http://127.0.0.1:1/mcp';
    const code = await consentInBrowser(
      authorizeUrl(base, c, challenge, { resource: elsewhere, scope: 'contacts:read' }),
      {
        signIn: false,
        org: t.slug,
      },
    );
    const tokens = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: peer.redirectUri,
      client_id: peer.clientId,
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    const res = await mcpCall(tokens.body.access_token, initialize);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  test('a DCR client: refresh tokens rotate (the old one is refused)', async () => {
    const reg = await registerClient(base, peer.redirectUri, { client_name: 'Registrado' });
    expect(reg.status).toBe(201);
    const c = { clientId: reg.body.client_id as string, redirectUri: peer.redirectUri };
    const { verifier, challenge } = pkcePair();
    const code = await consentInBrowser(authorizeUrl(base, c, challenge, { resource: resource() }), {
      signIn: false,
      org: t.slug,
    });
    const tokens = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: peer.redirectUri,
      client_id: c.clientId,
      resource: resource(),
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    const rotated = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      client_id: c.clientId,
    });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(tokens.body.refresh_token);
    expect((await mcpCall(rotated.body.access_token, initialize)).status).toBe(200);
    const old = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      client_id: c.clientId,
    });
    expect(old.status).toBe(400);
    expect(old.body.error).toBe('invalid_grant');
    // A refresh token used twice means it leaked: the whole grant is revoked, the rotated tokens too.
    expect((await mcpCall(rotated.body.access_token, initialize)).status).toBe(401);
  });

  test('the token acts in its organization only', async () => {
    const res = await fetch(`${base}/api/contacts`, {
      headers: { authorization: `Bearer ${cimdToken}`, 'x-tenant-id': other.slug },
    });
    expect(res.status).toBe(403);
    const viaMcp = await fetch(`${mcp.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cimdToken}`,
        'x-tenant-id': other.slug,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });
    // The agent server takes the token's organization, whatever the header says.
    expect(viaMcp.status).toBe(200);
  });

  test('Settings lists connected applications; disconnecting one gives its token 401 at once', async () => {
    await page.goto(`${base}/app/orgs`);
    await page.click(`button[data-org="${t.slug}"]`);
    await page.goto(`${base}/app/settings`);
    // The CIMD client twice (two tool servers); the DCR client's grant went with its reused refresh token.
    const apps = page.locator('[data-testid=connected-apps] li[data-app]');
    await expect.poll(() => apps.count()).toBe(2);
    const cimd = apps.filter({ hasText: 'Agente de Teste' }).first();
    expect(await cimd.textContent()).toContain(`Org ${t.slug}`);
    expect((await mcpCall(cimdToken, initialize)).status).toBe(200);
    const rows = (await (
      await fetch(`${base}/api/oauth/applications`, { headers: { authorization: `Bearer ${t.user.jwt}` } })
    ).json()) as { data: { id: string; name: string; scopes: string[] }[] };
    const target = rows.data.find((a) => a.name === 'Agente de Teste' && a.scopes.includes('tasks:write'))!;
    await page.locator(`li[data-app="${target.id}"] button`).click();
    await page.getByRole('status').filter({ hasText: 'Aplicativo desconectado.' }).waitFor();
    const refused = await mcpCall(cimdToken, initialize);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect(
      (await fetch(`${base}/api/contacts`, { headers: { authorization: `Bearer ${cimdToken}` } })).status,
    ).toBe(401);
    const refresh = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: cimdRefresh,
      client_id: peer.clientId,
    });
    expect(refresh.status).toBe(400);
    expect(errors).toEqual([]);
  });
});
