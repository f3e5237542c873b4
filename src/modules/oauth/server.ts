import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../../config.js';
import type { DelegatedBearer } from '../../platform/auth/plugin.js';
import { type Database, preparedRows } from '../../platform/db/client.js';
import { sharedSafeFetch } from '../../platform/outbound/safe-fetch.js';
import { parseAccountId } from './adapter.js';
import { providerKeys } from './keys.js';
import { createProvider } from './provider.js';
import { resourceMatcher } from './resources.js';

/** An access token as the REST API and the agent server see it. */
export interface AccessTokenInfo extends DelegatedBearer {
  clientId: string;
  grantId: string;
  /** The agent server (RFC 8707 resource) the token was issued for. */
  resource: string;
  expiresAt: string;
}

export interface OauthServer {
  /** The authorization server whose issuer is the request's origin (PUBLIC_URL's when set). */
  providerFor(req: FastifyRequest): Promise<Provider>;
  issuerOf(req: FastifyRequest): string;
  /** The live access token of that value (unexpired, its grant not revoked), or undefined. */
  accessToken(token: string): Promise<AccessTokenInfo | undefined>;
}

/** At most this many issuers (the request's own origin when PUBLIC_URL is unset) keep a provider each. */
const MAX_ISSUERS = 8;

export function createOauthServer(config: Config, db: Database): OauthServer {
  // Read (or generated) with the first OAuth request: building the app must not touch the database, which may
  // not be migrated yet (scripts/generate-api-types.ts, a start before its migrations).
  let keys: ReturnType<typeof providerKeys> | undefined;
  const providers = new Map<string, Promise<Provider>>();
  const resourceAllowed = resourceMatcher(config.CRM_OAUTH_RESOURCES);
  const fetch = sharedSafeFetch(config.CRM_OUTBOUND_ALLOWLIST, {
    timeoutMs: 5_000,
    maxResponseBytes: 64 * 1024,
    extraCa: config.CRM_OUTBOUND_CA_FILE ? readFileSync(config.CRM_OUTBOUND_CA_FILE, 'utf8') : undefined,
  });
  const issuerOf = (req: FastifyRequest) =>
    config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : `${req.protocol}://${req.host}`;
  return {
    issuerOf,
    providerFor(req) {
      const issuer = issuerOf(req);
      let p = providers.get(issuer);
      if (!p) {
        if (providers.size >= MAX_ISSUERS) providers.delete(providers.keys().next().value as string);
        keys ??= providerKeys(config, db);
        p = keys.then((k) => createProvider(issuer, { db, keys: k, fetch, resourceAllowed }));
        providers.set(issuer, p);
      }
      return p;
    },
    accessToken: (token) => findAccessToken(db, token),
  };
}

interface TokenRow {
  payload: {
    accountId?: string;
    clientId?: string;
    grantId?: string;
    scope?: string;
    aud?: string | string[];
  };
  expires_at: Date;
}

async function findAccessToken(db: Database, token: string): Promise<AccessTokenInfo | undefined> {
  if (!/^[A-Za-z0-9_-]{20,128}$/.test(token)) return undefined;
  const id = createHash('sha256').update(token).digest('base64url');
  // The grant must still exist: revoking an application deletes it (and its tokens) at once.
  const [row] = await preparedRows<TokenRow>(
    db.system,
    sql`select t.payload, t.expires_at from oauth_records t
        join oauth_records g on g.kind = 'Grant' and g.id = t.grant_id and (g.expires_at is null or g.expires_at > now())
        where t.kind = 'AccessToken' and t.id = ${id} and t.expires_at > now() and t.consumed_at is null`,
  );
  const account = parseAccountId(row?.payload.accountId);
  const aud = [row?.payload.aud ?? []].flat();
  if (!row || !account || aud.length !== 1) return undefined;
  return {
    ...account,
    scopes: (row.payload.scope ?? '').split(' ').filter(Boolean),
    clientId: row.payload.clientId ?? '',
    grantId: row.payload.grantId ?? '',
    resource: aud[0],
    expiresAt: new Date(row.expires_at).toISOString(),
  };
}
