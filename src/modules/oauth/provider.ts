import { sql } from 'drizzle-orm';
import type Provider from 'oidc-provider';
import { SCOPES } from '../../platform/auth/scopes.js';
import { type Database, queryRows } from '../../platform/db/client.js';
import type { SafeFetch } from '../../platform/outbound/safe-fetch.js';
import { DatabaseAdapter, parseAccountId } from './adapter.js';
import type { ProviderKeys } from './keys.js';

/** The authorization server's endpoints (the service's origin is the issuer; metadata at RFC 8414's path). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/session/end',
  pushed_authorization_request: '/oauth/par',
} as const;

/** Where oidc-provider sends the browser to sign in and consent: this redirects on to /app/oauth/consent. */
export const interactionPath = (uid: string) => `/api/oauth/interactions/${uid}`;

export const TOKEN_TTL = {
  AccessToken: 60 * 60,
  AuthorizationCode: 60,
  RefreshToken: 30 * 24 * 60 * 60,
  Interaction: 60 * 60,
  Session: 24 * 60 * 60,
  Grant: 365 * 24 * 60 * 60,
};

interface KoaContext {
  path: string;
  method: string;
  query: Record<string, unknown>;
}

export interface ProviderOptions {
  db: Database;
  keys: ProviderKeys;
  /** The SSRF-safe outbound fetch (Client ID Metadata Documents are fetched through it). */
  fetch: SafeFetch;
  /** Whether a resource indicator (an agent server's URL) may be a token's audience. */
  resourceAllowed: (resource: string) => boolean;
}

/** Whether the account (`<userId>.<orgId>`) still stands: the user is not blocked and is still a member. */
async function accountStands(db: Database, accountId: string): Promise<boolean> {
  const account = parseAccountId(accountId);
  if (!account) return false;
  const rows = await queryRows<{ ok: boolean }>(
    db.system,
    sql`select true as ok from memberships m join users u on u.id = m.user_id
        where m.user_id = ${account.userId} and m.organization_id = ${account.orgId} and not u.blocked`,
  );
  return rows.length > 0;
}

/**
 * The library is loaded with the first OAuth request, not at start: oidc-provider 9 prints a warning when it is
 * imported on Node.js 20 (its own support policy names 22 LTS and later). This service supports Node.js 20
 * (package.json engines) and its OAuth tests run there; loaded lazily, the warning never precedes the output of
 * `crm` commands or of a start that does not serve OAuth (docs/decisions.md).
 */
export async function createProvider(issuer: string, opts: ProviderOptions): Promise<Provider> {
  const { default: Provider, errors } = await import('oidc-provider');
  const { db, keys } = opts;
  const resourceScope = SCOPES.join(' ');
  const provider = new Provider(issuer, {
    adapter: (name: string) => new DatabaseAdapter(db, name),
    jwks: { keys: [keys.signingKey] },
    cookies: { keys: keys.cookieKeys },
    clients: [],
    scopes: ['offline_access'],
    claims: {},
    responseTypes: ['code'],
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    pkce: { required: () => true },
    routes: OAUTH_ROUTES,
    ttl: TOKEN_TTL,
    fetch: opts.fetch,
    rotateRefreshToken: () => true,
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => interactionPath(interaction.uid) },
    findAccount: async (_ctx: unknown, sub: string) =>
      (await accountStands(db, sub)) ? { accountId: sub, claims: async () => ({ sub }) } : undefined,
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true, initialAccessToken: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (!opts.resourceAllowed(resource))
            throw new errors.InvalidTarget(
              `${resource} is not an agent server of this service (CRM_OAUTH_RESOURCES lists them)`,
            );
          return {
            scope: resourceScope,
            audience: resource,
            accessTokenFormat: 'opaque',
            accessTokenTTL: TOKEN_TTL.AccessToken,
          };
        },
      },
    },
  });
  provider.proxy = true;
  // A client that names no scope (the MCP spec lets it omit one) asks for the whole catalogue: the consent page
  // shows every scope, and the person's role still bounds what the token can do.
  provider.use(async (ctx: KoaContext, next: () => Promise<void>) => {
    if (ctx.path === OAUTH_ROUTES.authorization && ctx.method === 'GET' && !ctx.query.scope)
      ctx.query = { ...ctx.query, scope: resourceScope };
    await next();
  });
  return provider;
}
