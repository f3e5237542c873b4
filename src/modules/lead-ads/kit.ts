import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Database } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { type LeadAdsClient, leadAdsClient } from '../../platform/providers/lead-ads/client.js';
import { type SecretBox, secretBox } from '../../platform/secrets/encryption.js';
import { instanceSecret } from '../../platform/secrets/secrets.js';

/**
 * What lead ads code needs from the process: the provider client (null when the app's credentials are not
 * configured), the secret box for tokens and the key that signs OAuth states. Made on first use (building the
 * OpenAPI document needs no database) and awaited before any transaction opens (on PGlite the first use reads
 * the instance secrets over the one connection).
 */
export interface LeadAdsKit {
  config: Config;
  db: Database;
  box: SecretBox;
  client: LeadAdsClient | null;
  stateKey: Buffer;
}

export function lazyLeadAdsKit(config: Config, db: Database): () => Promise<LeadAdsKit> {
  let kit: Promise<LeadAdsKit> | undefined;
  return () => {
    kit ??= (async () => ({
      config,
      db,
      box: await secretBox(config, db),
      client: leadAdsClient(config),
      stateKey: Buffer.from(await instanceSecret(db, 'lead-ads-oauth-state')),
    }))();
    kit.catch(() => {
      kit = undefined;
    });
    return kit;
  };
}

/** The client, or a 503 saying which settings are missing. */
export function requireClient(kit: LeadAdsKit): LeadAdsClient {
  if (!kit.client)
    throw new AppError(
      'ServiceUnavailableError',
      'Lead ads are not configured on this server: set CRM_LEAD_ADS_APP_ID and CRM_LEAD_ADS_APP_SECRET',
      { missing: ['CRM_LEAD_ADS_APP_ID', 'CRM_LEAD_ADS_APP_SECRET'] },
    );
  return kit.client;
}

// Sealed values are bound to their row: a ciphertext copied elsewhere does not open.
export const integrationAad = (orgId: number, documentId: string) =>
  `org:${orgId}:lead_integration:${documentId}`;
export const pageAad = (orgId: number, integrationDocumentId: string, pageId: string) =>
  `org:${orgId}:lead_integration:${integrationDocumentId}:page:${pageId}`;

// ---- OAuth state

export const STATE_TTL_SECONDS = 600;

export interface OAuthState {
  orgId: number;
  userId: number;
  redirectUri: string;
  integration: string | null;
  nonce: string;
  expiresAt: number;
}

const mac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();

/** The state is `<payload>.<HMAC>` (base64url): who started, where to return, until when. */
export function signState(kit: LeadAdsKit, s: OAuthState): string {
  const payload = Buffer.from(
    JSON.stringify({
      o: s.orgId,
      u: s.userId,
      r: s.redirectUri,
      i: s.integration,
      n: s.nonce,
      e: s.expiresAt,
    }),
  ).toString('base64url');
  return `${payload}.${mac(kit.stateKey, `state:${payload}`).toString('base64url')}`;
}

/** The state's content when its signature holds (expiry and binding are the caller's checks); else null. */
export function readState(kit: LeadAdsKit, state: string): OAuthState | null {
  const [payload, sig, extra] = state.split('.');
  if (!payload || !sig || extra !== undefined) return null;
  const expected = mac(kit.stateKey, `state:${payload}`);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return {
      orgId: p.o,
      userId: p.u,
      redirectUri: p.r,
      integration: p.i ?? null,
      nonce: p.n,
      expiresAt: p.e,
    };
  } catch {
    return null;
  }
}

/**
 * The PKCE code verifier of a state: derived from its nonce with the server's key, so it never leaves the
 * server (only its S256 challenge goes into the authorization URL) and needs no storage between the two steps.
 */
export const codeVerifier = (kit: LeadAdsKit, nonce: string) =>
  mac(kit.stateKey, `pkce:${nonce}`).toString('base64url');
