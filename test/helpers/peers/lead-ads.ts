import { createHash, createHmac, randomBytes } from 'node:crypto';
import { closeServer, startJsonServer } from './http.js';

/**
 * A local lead ads provider speaking the Graph-style protocol: the OAuth 2 code flow with PKCE (the dialog is
 * `authorize(url)`: what the user's consent would do, checked like the real dialog), `oauth/access_token` for the
 * code exchange (client secret, redirect_uri and code_verifier checked) and the long-lived `fb_exchange_token`
 * exchange, `/me`, `/me/accounts` with page tokens, `/{page}/leadgen_forms`, `/{page}/subscribed_apps` (POST,
 * DELETE) and `/{leadgen-id}`. Tokens are Bearer, each call's `appsecret_proof` is checked, errors are Graph
 * error bodies (190 for bad tokens). It also builds the leadgen webhooks the provider would send, signed with
 * `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the app secret).
 */

export interface PeerLead {
  id: string;
  pageId: string;
  formId: string;
  createdTime: string;
  fieldData: { name: string; values: string[] }[];
  adId: string;
  adsetId: string;
  campaignId: string;
}

interface PeerPage {
  id: string;
  name: string;
  token: string;
  ownerUserId: string;
  forms: {
    id: string;
    name: string;
    status: string;
    questions: { key: string; label: string; type: string }[];
  }[];
}

export interface LeadAdsPeer {
  url: string;
  oauthUrl: string;
  appId: string;
  appSecret: string;
  /** A provider user with pages (each with forms); returns the user id. */
  addUser(pages: { id: string; name?: string; forms: { id: string; name?: string }[] }[]): string;
  /**
   * The user consents in the dialog: checks client_id, redirect_uri and the PKCE challenge, then answers the
   * redirect the browser would follow (`code` and `state` on the redirect_uri).
   */
  authorize(authorizationUrl: string, userId: string): { redirect: string; code: string; state: string };
  /** A lead the provider holds for a page's form; returns its leadgen id. */
  addLead(pageId: string, formId: string, fields: Record<string, string>): PeerLead;
  /** The leadgen webhook for leads, signed with the app secret (or `secret`). */
  leadgenWebhook(
    leads: Pick<PeerLead, 'id' | 'pageId' | 'formId' | 'adId'>[],
    secret?: string,
  ): { body: string; headers: Record<string, string> };
  /** Every token of the user stops working with Graph's 190 (subcode 463: expired; else revoked). */
  invalidateUser(userId: string, how: 'expired' | 'revoked'): void;
  /** The next `count` lead fetches answer `status`. */
  failLeadFetches(count: number, status?: number, message?: string): void;
  subscriptions: Map<string, string[]>;
  /** Every access token handed out so far (user, long-lived and page tokens): what the service must never store in clear. */
  issuedTokens(): string[];
  requests: { method: string; path: string }[];
  close(): Promise<void>;
}

const graphError = (status: number, message: string, code = 100, subcode?: number) => ({
  status,
  body: {
    error: {
      message,
      type: 'OAuthException',
      code,
      ...(subcode ? { error_subcode: subcode } : {}),
      fbtrace_id: randomBytes(6).toString('hex'),
    },
  },
});

const rand = () => randomBytes(9).toString('base64url');

export async function startLeadAdsPeer(
  opts: { appId?: string; appSecret?: string } = {},
): Promise<LeadAdsPeer> {
  // A fresh app per peer: the lead queue is the app's (several test processes share one database).
  const appId = opts.appId ?? `4242${randomBytes(4).toString('hex')}`;
  const appSecret = opts.appSecret ?? 'lead-ads-app-secret';
  const users = new Map<string, { id: string; name: string }>();
  const pages = new Map<string, PeerPage>();
  const leads = new Map<string, PeerLead>();
  /** token → who it is: a user (short or long-lived) or a page. */
  const tokens = new Map<
    string,
    {
      kind: 'user' | 'page';
      userId: string;
      pageId?: string;
      long?: boolean;
      invalid?: 'expired' | 'revoked';
    }
  >();
  const codes = new Map<string, { userId: string; redirectUri: string; challenge: string; used: boolean }>();
  const subscriptions = new Map<string, string[]>();
  const requests: { method: string; path: string }[] = [];
  let leadFailures = { count: 0, status: 500, message: '' };
  let seq = 0;

  const { server, url } = await startJsonServer(async (req, _body, u) => {
    const method = req.method ?? 'GET';
    requests.push({ method, path: u.pathname });
    const parts = u.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const [version, node, edge] = parts;
    if (!/^v\d+\.\d+$/.test(version ?? '')) return graphError(400, 'Unknown path components');
    const q = u.searchParams;

    if (node === 'oauth' && edge === 'access_token') {
      if (q.get('client_id') !== appId || q.get('client_secret') !== appSecret)
        return graphError(400, 'Error validating client secret.', 1);
      if (q.get('grant_type') === 'fb_exchange_token') {
        const t = tokens.get(q.get('fb_exchange_token') ?? '');
        if (t?.kind !== 'user') return graphError(400, 'Invalid OAuth access token.', 190);
        const long = `lt_${rand()}`;
        tokens.set(long, { kind: 'user', userId: t.userId, long: true });
        return { status: 200, body: { access_token: long, token_type: 'bearer', expires_in: 5_184_000 } };
      }
      const c = codes.get(q.get('code') ?? '');
      if (!c || c.used) return graphError(400, 'This authorization code has been used.', 100, 36009);
      if (c.redirectUri !== q.get('redirect_uri'))
        return graphError(
          400,
          'Error validating verification code. Please make sure your redirect_uri is identical',
          100,
          36008,
        );
      const verifier = q.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== c.challenge)
        return graphError(400, 'Invalid code verifier', 100);
      c.used = true;
      const short = `st_${rand()}`;
      tokens.set(short, { kind: 'user', userId: c.userId });
      return { status: 200, body: { access_token: short, token_type: 'bearer', expires_in: 3600 } };
    }

    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const who = tokens.get(bearer);
    if (!who) return graphError(401, 'Invalid OAuth access token - Cannot parse access token', 190);
    const user = users.get(who.userId);
    if (who.invalid === 'expired')
      return graphError(401, 'Error validating access token: Session has expired.', 190, 463);
    if (who.invalid === 'revoked')
      return graphError(
        401,
        'Error validating access token: The user has not authorized application.',
        190,
        458,
      );
    if (q.get('appsecret_proof') !== createHmac('sha256', appSecret).update(bearer).digest('hex'))
      return graphError(400, 'Invalid appsecret_proof provided in the API argument', 100);

    if (node === 'me' && !edge && who.kind === 'user')
      return { status: 200, body: { id: who.userId, name: user?.name } };
    if (node === 'me' && edge === 'accounts' && who.kind === 'user') {
      const mine = [...pages.values()].filter((p) => p.ownerUserId === who.userId);
      return {
        status: 200,
        body: {
          data: mine.map((p) => ({ id: p.id, name: p.name, access_token: p.token, category: 'Business' })),
          paging: { cursors: { before: 'b', after: 'a' } },
        },
      };
    }
    const page = pages.get(node ?? '');
    if (page && edge) {
      if (who.kind !== 'page' || who.pageId !== page.id)
        return graphError(403, '(#190) This method must be called with a Page Access Token', 190);
      if (edge === 'leadgen_forms' && method === 'GET')
        return { status: 200, body: { data: page.forms, paging: { cursors: { before: 'b', after: 'a' } } } };
      if (edge === 'subscribed_apps' && method === 'POST') {
        const fields = (q.get('subscribed_fields') ?? '').split(',').filter(Boolean);
        if (!fields.includes('leadgen')) return graphError(400, 'subscribed_fields is required', 100);
        subscriptions.set(page.id, fields);
        return { status: 200, body: { success: true } };
      }
      if (edge === 'subscribed_apps' && method === 'DELETE') {
        subscriptions.delete(page.id);
        return { status: 200, body: { success: true } };
      }
    }
    const lead = leads.get(node ?? '');
    if (lead && !edge && method === 'GET') {
      if (who.kind !== 'page' || who.pageId !== lead.pageId)
        return graphError(403, '(#200) The page access token does not own this lead', 200);
      if (leadFailures.count > 0) {
        leadFailures.count--;
        return graphError(
          leadFailures.status,
          leadFailures.message || 'An unexpected error has occurred.',
          2,
        );
      }
      return {
        status: 200,
        body: {
          id: lead.id,
          created_time: lead.createdTime,
          field_data: lead.fieldData,
          ad_id: lead.adId,
          adset_id: lead.adsetId,
          campaign_id: lead.campaignId,
          form_id: lead.formId,
        },
      };
    }
    return graphError(400, `Unsupported get request. Object with ID '${node}' does not exist`, 100, 33);
  });

  return {
    url,
    oauthUrl: `${url}/v21.0/dialog/oauth`,
    appId,
    appSecret,
    subscriptions,
    requests,
    addUser(list) {
      const id = String(10_000 + ++seq);
      users.set(id, { id, name: `User ${id}` });
      for (const p of list) {
        const token = `pt_${p.id}_${rand()}`;
        pages.set(p.id, {
          id: p.id,
          name: p.name ?? `Page ${p.id}`,
          token,
          ownerUserId: id,
          forms: p.forms.map((f) => ({
            id: f.id,
            name: f.name ?? `Form ${f.id}`,
            status: 'ACTIVE',
            questions: [
              { key: 'full_name', label: 'Full name', type: 'FULL_NAME' },
              { key: 'email', label: 'Email', type: 'EMAIL' },
              { key: 'phone_number', label: 'Phone', type: 'PHONE' },
            ],
          })),
        });
        tokens.set(token, { kind: 'page', userId: id, pageId: p.id });
      }
      return id;
    },
    authorize(authorizationUrl, userId) {
      const u = new URL(authorizationUrl);
      if (u.searchParams.get('client_id') !== appId) throw new Error('dialog: unknown client_id');
      if (u.searchParams.get('response_type') !== 'code')
        throw new Error('dialog: response_type must be code');
      if (u.searchParams.get('code_challenge_method') !== 'S256')
        throw new Error('dialog: PKCE S256 required');
      const redirectUri = u.searchParams.get('redirect_uri');
      const state = u.searchParams.get('state');
      const challenge = u.searchParams.get('code_challenge');
      if (!redirectUri || !state || !challenge)
        throw new Error('dialog: redirect_uri, state and code_challenge required');
      if (!users.has(userId)) throw new Error('dialog: unknown user');
      const code = `code_${rand()}`;
      codes.set(code, { userId, redirectUri, challenge, used: false });
      const redirect = new URL(redirectUri);
      redirect.searchParams.set('code', code);
      redirect.searchParams.set('state', state);
      return { redirect: redirect.toString(), code, state };
    },
    addLead(pageId, formId, fields) {
      const lead: PeerLead = {
        id: String(900_000_000 + ++seq),
        pageId,
        formId,
        createdTime: new Date().toISOString().replace(/\.\d+Z$/, '+0000'),
        fieldData: Object.entries(fields).map(([name, v]) => ({ name, values: [v] })),
        adId: `ad_${seq}`,
        adsetId: `adset_${seq}`,
        campaignId: `camp_${seq}`,
      };
      leads.set(lead.id, lead);
      return lead;
    },
    leadgenWebhook(list, secret = appSecret) {
      const now = Math.floor(Date.now() / 1000);
      const byPage = new Map<string, typeof list>();
      for (const l of list) byPage.set(l.pageId, [...(byPage.get(l.pageId) ?? []), l]);
      const body = JSON.stringify({
        object: 'page',
        entry: [...byPage.entries()].map(([pageId, ls]) => ({
          id: pageId,
          time: now,
          changes: ls.map((l) => ({
            field: 'leadgen',
            value: {
              ad_id: l.adId,
              form_id: l.formId,
              leadgen_id: l.id,
              created_time: now,
              page_id: pageId,
              adgroup_id: l.adId,
            },
          })),
        })),
      });
      const sig = createHmac('sha256', secret).update(body).digest('hex');
      return {
        body,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${sig}` },
      };
    },
    invalidateUser(userId, how) {
      // Every token issued so far stops working; pages get fresh tokens (a new consent hands them out).
      for (const t of tokens.values()) if (t.userId === userId) t.invalid = how;
      for (const p of pages.values())
        if (p.ownerUserId === userId) {
          p.token = `pt_${p.id}_${rand()}`;
          tokens.set(p.token, { kind: 'page', userId, pageId: p.id });
        }
    },
    issuedTokens: () => [...tokens.keys()],
    failLeadFetches(count, status = 500, message = '') {
      leadFailures = { count, status, message };
    },
    close: () => closeServer(server),
  };
}
