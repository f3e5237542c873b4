import { createHash, createHmac } from 'node:crypto';
import type { Config } from '../../../config.js';
import { ProviderError, providerRequest } from '../provider-error.js';

/**
 * Lead ads over the Graph-style protocol, against CRM_LEAD_ADS_API_URL (and the dialog at CRM_LEAD_ADS_OAUTH_URL):
 * the OAuth 2 code flow with PKCE (authorization URL, code → token, long-lived exchange `fb_exchange_token`),
 * the user's pages and their page tokens (`/me/accounts`), a page's lead forms (`/{page}/leadgen_forms`), the
 * page's app subscription (`/{page}/subscribed_apps`, field `leadgen`) and one lead (`/{leadgen-id}`).
 * Every call carries `appsecret_proof` (HMAC-SHA256 of the token with the app secret), as Graph asks of
 * server-side callers. Errors carry Graph's `error.message` and `code` (`190:463` when a subcode comes too).
 */

export const LEAD_ADS_SCOPES = [
  'pages_show_list',
  'pages_read_engagement',
  'pages_manage_metadata',
  'leads_retrieval',
  'ads_management',
];

export interface LeadAdsToken {
  accessToken: string;
  /** Seconds from now; null when the provider does not say (a token that does not expire). */
  expiresIn: number | null;
}

export interface LeadAdsPage {
  id: string;
  name: string;
  accessToken: string;
}

export interface LeadAdsForm {
  id: string;
  name: string;
  status: string;
  questions: { key: string; label: string | null; type: string | null }[];
}

export interface LeadAdsLead {
  id: string;
  createdTime: string | null;
  fieldData: { name: string; values: string[] }[];
  adId: string | null;
  adsetId: string | null;
  campaignId: string | null;
  formId: string | null;
}

export interface LeadAdsClient {
  authorizationUrl(p: { redirectUri: string; state: string; codeChallenge: string }): string;
  exchangeCode(p: { code: string; redirectUri: string; codeVerifier: string }): Promise<LeadAdsToken>;
  exchangeLongLived(shortLivedToken: string): Promise<LeadAdsToken>;
  me(userToken: string): Promise<{ id: string; name: string | null }>;
  listPages(userToken: string): Promise<LeadAdsPage[]>;
  listForms(pageId: string, pageToken: string): Promise<LeadAdsForm[]>;
  subscribePage(pageId: string, pageToken: string): Promise<void>;
  unsubscribePage(pageId: string, pageToken: string): Promise<void>;
  getLead(leadgenId: string, pageToken: string): Promise<LeadAdsLead>;
}

type LeadAdsConfig = Pick<
  Config,
  | 'CRM_LEAD_ADS_API_URL'
  | 'CRM_LEAD_ADS_API_VERSION'
  | 'CRM_LEAD_ADS_OAUTH_URL'
  | 'CRM_LEAD_ADS_APP_ID'
  | 'CRM_LEAD_ADS_APP_SECRET'
  | 'CRM_PROVIDER_TIMEOUT_MS'
>;

const graphError = (body: any) => {
  const e = body?.error;
  const code = e?.error_subcode !== undefined ? `${e?.code}:${e.error_subcode}` : e?.code;
  return { message: e?.message ?? body?.error_description, code };
};

/** Graph's code 190: the token expired (subcode 463) or was revoked (any other subcode). */
export function tokenProblem(err: unknown): 'expired' | 'revoked' | null {
  if (!(err instanceof ProviderError) || err.provider !== 'lead_ads') return null;
  const code = String(err.code ?? '');
  if (code === '190:463') return 'expired';
  if (code === '190' || code.startsWith('190:')) return 'revoked';
  return null;
}

/** The app's client, or null when CRM_LEAD_ADS_APP_ID / CRM_LEAD_ADS_APP_SECRET are not set. */
export function leadAdsClient(config: LeadAdsConfig): LeadAdsClient | null {
  const appId = config.CRM_LEAD_ADS_APP_ID;
  const appSecret = config.CRM_LEAD_ADS_APP_SECRET;
  if (!appId || !appSecret) return null;
  const base = `${config.CRM_LEAD_ADS_API_URL.replace(/\/+$/, '')}/${config.CRM_LEAD_ADS_API_VERSION}`;
  const timeoutMs = config.CRM_PROVIDER_TIMEOUT_MS;
  const proof = (token: string) => createHmac('sha256', appSecret).update(token).digest('hex');

  const call = <T>(
    path: string,
    token: string | null,
    query: Record<string, string> = {},
    method = 'GET',
  ) => {
    const q = new URLSearchParams(query);
    if (token) q.set('appsecret_proof', proof(token));
    const qs = q.toString();
    return providerRequest<T>(
      'lead_ads',
      `${base}/${path}${qs ? `?${qs}` : ''}`,
      { method, headers: token ? { authorization: `Bearer ${token}` } : {}, timeoutMs },
      graphError,
    );
  };

  const token = (res: { access_token?: string; expires_in?: number }): LeadAdsToken => {
    if (!res?.access_token) throw new ProviderError('lead_ads', 'no access_token in the answer', 200, true);
    return { accessToken: res.access_token, expiresIn: res.expires_in ?? null };
  };

  /** Follows Graph cursors; a bound keeps a misbehaving provider from looping us forever. */
  async function paged<T>(path: string, tok: string, query: Record<string, string>): Promise<T[]> {
    const out: T[] = [];
    let after: string | undefined;
    for (let page = 0; page < 50; page++) {
      const res = await call<{ data?: T[]; paging?: { cursors?: { after?: string }; next?: string } }>(
        path,
        tok,
        { limit: '100', ...query, ...(after ? { after } : {}) },
      );
      out.push(...(res?.data ?? []));
      after = res?.paging?.next ? res.paging.cursors?.after : undefined;
      if (!after) break;
    }
    return out;
  }

  return {
    authorizationUrl({ redirectUri, state, codeChallenge }) {
      const url = new URL(config.CRM_LEAD_ADS_OAUTH_URL);
      url.searchParams.set('client_id', appId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      url.searchParams.set('scope', LEAD_ADS_SCOPES.join(','));
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('code_challenge', codeChallenge);
      url.searchParams.set('code_challenge_method', 'S256');
      return url.toString();
    },
    async exchangeCode({ code, redirectUri, codeVerifier }) {
      return token(
        await call('oauth/access_token', null, {
          client_id: appId,
          client_secret: appSecret,
          redirect_uri: redirectUri,
          code,
          code_verifier: codeVerifier,
        }),
      );
    },
    async exchangeLongLived(shortLivedToken) {
      return token(
        await call('oauth/access_token', null, {
          grant_type: 'fb_exchange_token',
          client_id: appId,
          client_secret: appSecret,
          fb_exchange_token: shortLivedToken,
        }),
      );
    },
    async me(userToken) {
      const res = await call<{ id: string; name?: string }>('me', userToken, { fields: 'id,name' });
      return { id: String(res.id), name: res.name ?? null };
    },
    async listPages(userToken) {
      const rows = await paged<{ id: string; name?: string; access_token?: string }>(
        'me/accounts',
        userToken,
        {
          fields: 'id,name,access_token',
        },
      );
      return rows
        .filter((p) => p.access_token)
        .map((p) => ({ id: String(p.id), name: p.name ?? String(p.id), accessToken: p.access_token! }));
    },
    async listForms(pageId, pageToken) {
      const rows = await paged<{
        id: string;
        name?: string;
        status?: string;
        questions?: { key?: string; label?: string; type?: string }[];
      }>(`${enc(pageId)}/leadgen_forms`, pageToken, { fields: 'id,name,status,questions' });
      return rows.map((f) => ({
        id: String(f.id),
        name: f.name ?? String(f.id),
        status: f.status ?? 'ACTIVE',
        questions: (f.questions ?? []).flatMap((q) =>
          q.key ? [{ key: q.key, label: q.label ?? null, type: q.type ?? null }] : [],
        ),
      }));
    },
    async subscribePage(pageId, pageToken) {
      await call(`${enc(pageId)}/subscribed_apps`, pageToken, { subscribed_fields: 'leadgen' }, 'POST');
    },
    async unsubscribePage(pageId, pageToken) {
      await call(`${enc(pageId)}/subscribed_apps`, pageToken, {}, 'DELETE');
    },
    async getLead(leadgenId, pageToken) {
      const res = await call<{
        id: string;
        created_time?: string;
        field_data?: { name?: string; values?: unknown[] }[];
        ad_id?: string;
        adset_id?: string;
        campaign_id?: string;
        form_id?: string;
      }>(enc(leadgenId), pageToken, {
        fields: 'id,created_time,field_data,ad_id,adset_id,campaign_id,form_id',
      });
      return {
        id: String(res.id),
        createdTime: res.created_time ?? null,
        fieldData: (res.field_data ?? []).flatMap((f) =>
          f.name ? [{ name: f.name, values: (f.values ?? []).map((v) => String(v)) }] : [],
        ),
        adId: res.ad_id ?? null,
        adsetId: res.adset_id ?? null,
        campaignId: res.campaign_id ?? null,
        formId: res.form_id ?? null,
      };
    },
  };
}

/** PKCE (RFC 7636): the S256 challenge of a verifier. */
export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** X-Hub-Signature-256 of a webhook body: `sha256=<hex HMAC-SHA256 of the raw body with the app secret>`. */
export const hubSignature = (appSecret: string, raw: Buffer | string) =>
  `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;

// Ids come from stored rows and webhook bodies: never let one add a path segment or query.
const enc = (s: string) => encodeURIComponent(s);
