import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { sweepOauthRecords } from '../../../src/modules/oauth/adapter.js';
import type { Database } from '../../../src/platform/db/client.js';
import { newTenant, type Tenant, testConfig, testDatabase } from '../../helpers/app.js';
import {
  authorizeUrl,
  CookieJar,
  follow,
  pkcePair,
  type Registered,
  registerClient,
  signInAndConsent,
  tokenRequest,
} from './oauth-client.js';

const RESOURCE = 'http://127.0.0.1:7/mcp';
let app: FastifyInstance;
let db: Database;
let base: string;
let a: Tenant;
let b: Tenant;
let client: Registered;

beforeAll(async () => {
  db = await testDatabase();
  app = await buildApp({ config: testConfig(), db });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  [a, b] = [await newTenant(app), await newTenant(app)];
  const redirectUri = 'http://127.0.0.1:9/callback';
  const reg = await registerClient(base, redirectUri);
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  client = { clientId: reg.body.client_id, redirectUri };
});
afterAll(async () => {
  await app?.close();
  await db?.close();
});

const api = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${base}/api${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

describe('OAuth authorization server', () => {
  it('publishes RFC 8414 metadata: code + PKCE S256, CIMD, registration, refresh', async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const m = (await res.json()) as Record<string, any>;
    expect(m.issuer).toBe(base);
    expect(m.authorization_endpoint).toBe(`${base}/oauth/authorize`);
    expect(m.token_endpoint).toBe(`${base}/oauth/token`);
    expect(m.registration_endpoint).toBe(`${base}/oauth/register`);
    expect(m.code_challenge_methods_supported).toEqual(['S256']);
    expect(m.response_types_supported).toEqual(['code']);
    expect(m.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(m.client_id_metadata_document_supported).toBe(true);
    expect(m.token_endpoint_auth_methods_supported).toEqual(['none']);
  });

  it('refuses an authorization request without PKCE or with plain PKCE', async () => {
    for (const extra of [{ code_challenge_method: 'plain' }, { code_challenge: '' }]) {
      const url = new URL(authorizeUrl(base, client, pkcePair().challenge, { resource: RESOURCE }));
      for (const [k, v] of Object.entries(extra)) v ? url.searchParams.set(k, v) : url.searchParams.delete(k);
      if ('code_challenge_method' in extra) url.searchParams.set('code_challenge', 'x'.repeat(43));
      const out = await follow(new CookieJar(), url.href, base);
      const back = new URL(out.url);
      expect(back.origin + back.pathname).toBe(client.redirectUri);
      expect(back.searchParams.get('error')).toBe('invalid_request');
    }
  });

  it('refuses a resource that is not an agent server of the service', async () => {
    const url = authorizeUrl(base, client, pkcePair().challenge, { resource: 'https://evil.example/mcp' });
    const out = await follow(new CookieJar(), url, base);
    expect(new URL(out.url).searchParams.get('error')).toBe('invalid_target');
  });

  it('issues a token bound to the resource and the organization; the REST API accepts it', async () => {
    const { request, tokens } = await signInAndConsent(base, client, {
      jwt: a.user.jwt,
      organization: a.slug,
      resource: RESOURCE,
      scope: 'contacts:read',
    });
    expect(request.client.name).toBe('Test agent');
    expect(request.scopes).toEqual(['contacts:read']);
    expect(request.organizations.map((o: { slug: string }) => o.slug)).toEqual([a.slug]);
    expect(tokens.status).toBe(200);
    expect(tokens.body.token_type).toBe('Bearer');
    expect(tokens.body.scope).toBe('contacts:read');
    expect(tokens.body.refresh_token).toBeTruthy();
    const token = tokens.body.access_token as string;
    // Without x-tenant-id: the token's organization.
    expect((await api(token, '/contacts')).status).toBe(200);
    expect((await api(token, '/contacts', { headers: { 'x-tenant-id': a.slug } })).status).toBe(200);
    // Another organization's data: refused, whatever the header says.
    expect((await api(token, '/contacts', { headers: { 'x-tenant-id': b.slug } })).status).toBe(403);
    // A scope it was not granted.
    const write = await api(token, '/contacts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: { name: 'X' } }),
    });
    expect(write.status).toBe(403);
    const info = await api(token, '/oauth/token-info');
    expect(await info.json()).toMatchObject({
      resource: RESOURCE,
      organization: a.slug,
      scopes: ['contacts:read'],
    });
  });

  it('an OAuth token is not a session: it cannot approve agent changes, mint API tokens or act beyond its organization', async () => {
    const { tokens } = await signInAndConsent(base, client, {
      jwt: a.user.jwt,
      organization: a.slug,
      resource: RESOURCE,
      scope: 'account:read account:write contacts:write',
    });
    expect(tokens.status).toBe(200);
    const token = tokens.body.access_token as string;
    const json = { 'content-type': 'application/json' };
    expect((await api(token, '/users/tokens/current')).status).toBe(200);
    expect((await api(token, '/users/me')).status).toBe(200);
    // What the agent holding the token asks the person, it cannot answer itself.
    const asked = await api(token, '/agent-confirmations', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        data: { tool: 'crm.create_contact', arguments: { name: 'X' }, summary: 'Create X' },
      }),
    });
    expect(asked.status).toBe(201);
    const confirmation = (await asked.json()) as { documentId: string };
    const approve = await api(token, `/agent-confirmations/${confirmation.documentId}/approve`, {
      method: 'POST',
    });
    expect(approve.status).toBe(403);
    // No long-lived API token from a delegated one; no account or organization-wide route.
    const minted = await api(token, '/users/generate-token', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'escape', expiresIn: '365d' }),
    });
    expect(minted.status).toBe(403);
    expect((await api(token, '/users/tokens')).status).toBe(403);
    const orgs = await a.userApi.get('/organizations');
    const own = orgs.body.data.find((o: { slug: string }) => o.slug === a.slug);
    expect((await api(token, `/organizations/${own.documentId}/export`, { method: 'POST' })).status).toBe(
      403,
    );
    expect((await api(token, `/organizations/${own.documentId}/deletion`, { method: 'POST' })).status).toBe(
      403,
    );
  });

  it('rotates refresh tokens: the old one is refused', async () => {
    const { tokens } = await signInAndConsent(base, client, {
      jwt: a.user.jwt,
      organization: a.slug,
      resource: RESOURCE,
    });
    const first = tokens.body.refresh_token as string;
    const refreshed = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: first,
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toBeTruthy();
    expect(refreshed.body.refresh_token).not.toBe(first);
    expect((await api(refreshed.body.access_token, '/contacts')).status).toBe(200);
    const again = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: first,
      client_id: client.clientId,
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('lists connected applications to their user only; revoking one gives its tokens 401 at once', async () => {
    const { tokens } = await signInAndConsent(base, client, {
      jwt: b.user.jwt,
      organization: b.slug,
      resource: RESOURCE,
    });
    const token = tokens.body.access_token as string;
    expect((await api(token, '/contacts')).status).toBe(200);
    const mine = await api(b.user.jwt, '/oauth/applications');
    const apps = ((await mine.json()) as { data: { id: string; organization: { slug: string } }[] }).data;
    expect(apps).toHaveLength(1);
    expect(apps[0].organization.slug).toBe(b.slug);
    // Another person neither sees nor revokes it.
    const theirs = (await (await api(a.user.jwt, '/oauth/applications')).json()) as {
      data: { id: string }[];
    };
    expect(theirs.data.map((x) => x.id)).not.toContain(apps[0].id);
    expect((await api(a.user.jwt, `/oauth/applications/${apps[0].id}`, { method: 'DELETE' })).status).toBe(
      404,
    );
    expect((await api(token, '/contacts')).status).toBe(200);
    expect((await api(b.user.jwt, `/oauth/applications/${apps[0].id}`, { method: 'DELETE' })).status).toBe(
      200,
    );
    expect((await api(token, '/contacts')).status).toBe(401);
    const refresh = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      client_id: client.clientId,
    });
    expect(refresh.status).toBe(400);
  });

  it('only a web session answers a sign-in request, from the browser that started it', async () => {
    const jar = new CookieJar();
    const at = await follow(
      jar,
      authorizeUrl(base, client, pkcePair().challenge, { resource: RESOURCE }),
      base,
    );
    const uid = new URL(at.url).searchParams.get('uid');
    const url = `${base}/api/oauth/interactions/${uid}/consent`;
    // Without the interaction cookie (another browser): not found.
    expect((await api(a.user.jwt, `/oauth/interactions/${uid}/consent`)).status).toBe(404);
    // An API token is not the person.
    const pat = await fetch(`${base}/api/users/generate-token`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.user.jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { name: 'x', expiresIn: '1d' } }),
    });
    const patToken = (await pat.json()) as { token?: string; data?: { token: string } } as Record<
      string,
      any
    >;
    const value = patToken.token ?? patToken.data?.token;
    if (value)
      expect(
        (await fetch(url, { headers: { authorization: `Bearer ${value}`, cookie: jar.header(url) } })).status,
      ).toBe(403);
    // Approving for an organization the person is not in: 400.
    const wrong = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${a.user.jwt}`,
        cookie: jar.header(url),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ approve: true, organization: b.slug }),
    });
    expect(wrong.status).toBe(400);
    const declined = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${a.user.jwt}`,
        cookie: jar.header(url),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ approve: false }),
    });
    const back = await follow(
      jar,
      new URL(((await declined.json()) as { redirectTo: string }).redirectTo, base).href,
      base,
    );
    expect(new URL(back.url).searchParams.get('error')).toBe('access_denied');
  });

  it('stores no bearer value in clear', async () => {
    const { tokens, request } = await signInAndConsent(base, client, {
      jwt: a.user.jwt,
      organization: a.slug,
      resource: RESOURCE,
      scope: 'tasks:read',
    });
    expect(request.scopes).toEqual(['tasks:read']);
    const token = tokens.body.access_token as string;
    const refresh = tokens.body.refresh_token as string;
    const dump = JSON.stringify(await db.system.execute(sql`select id, payload from oauth_records`));
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(refresh);
    // Expired records go with the maintenance.
    await db.system.execute(
      sql`insert into oauth_records (kind, id, payload, expires_at) values ('AccessToken', 'gone', '{}', now() - interval '1 second')`,
    );
    expect(await sweepOauthRecords(db.system)).toBeGreaterThanOrEqual(1);
    expect(
      JSON.stringify(await db.system.execute(sql`select id from oauth_records where id = 'gone'`)),
    ).not.toContain('"gone"');
    // A garbage bearer that looks like an OAuth token: 401, never a 500.
    expect((await api('x'.repeat(43), '/contacts')).status).toBe(401);
  });

  it('refuses a code exchanged with the wrong PKCE verifier, and revokes the grant when a code is replayed', async () => {
    const jar = new CookieJar();
    const { verifier, challenge } = pkcePair();
    const at = await follow(
      jar,
      authorizeUrl(base, client, challenge, { resource: RESOURCE, scope: 'contacts:read' }),
      base,
    );
    const uid = new URL(at.url).searchParams.get('uid')!;
    const url = `${base}/api/oauth/interactions/${uid}/consent`;
    const decided = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${a.user.jwt}`,
        cookie: jar.header(url),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ approve: true, organization: a.slug }),
    });
    const back = await follow(
      jar,
      new URL(((await decided.json()) as { redirectTo: string }).redirectTo, base).href,
      base,
    );
    const code = new URL(back.url).searchParams.get('code')!;
    const exchange = (code_verifier: string) =>
      tokenRequest(base, {
        grant_type: 'authorization_code',
        code,
        code_verifier,
        redirect_uri: client.redirectUri,
        client_id: client.clientId,
      });
    const wrong = await exchange(pkcePair().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const right = await exchange(verifier);
    expect(right.status).toBe(200);
    expect((await api(right.body.access_token, '/contacts')).status).toBe(200);
    // A code used twice was stolen: refused, and the tokens it gave are revoked.
    const replayed = await exchange(verifier);
    expect(replayed.status).toBe(400);
    expect((await api(right.body.access_token, '/contacts')).status).toBe(401);
  });
});
