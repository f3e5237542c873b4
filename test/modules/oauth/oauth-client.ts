import { createHash, randomBytes } from 'node:crypto';

/**
 * A public OAuth client as an MCP client is one (authorization code + PKCE S256, RFC 8707 resource), speaking
 * real HTTP to the service; the browser's part (cookies, redirects) is played by a small cookie jar unless a
 * real browser does it (test/web/oauth.test.ts).
 */
export const b64url = (b: Buffer) => b.toString('base64url');
export const pkcePair = () => {
  const verifier = b64url(randomBytes(32));
  return { verifier, challenge: b64url(createHash('sha256').update(verifier).digest()) };
};

export class CookieJar {
  private cookies = new Map<string, { value: string; path: string }>();
  store(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      const path =
        attrs
          .map((a) => a.trim())
          .find((a) => a.toLowerCase().startsWith('path='))
          ?.slice(5) ?? '/';
      const expired = attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || !value) this.cookies.delete(`${name}|${path}`);
      else this.cookies.set(`${name}|${path}`, { value, path });
    }
  }
  header(url: string) {
    const path = new URL(url).pathname;
    return [...this.cookies.entries()]
      .filter(([, c]) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([k, c]) => `${k.split('|')[0]}=${c.value}`)
      .join('; ');
  }
}

export interface Registered {
  clientId: string;
  redirectUri: string;
}

export async function registerClient(base: string, redirectUri: string, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test agent',
      redirect_uris: [redirectUri],
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...extra,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

export function authorizeUrl(
  base: string,
  c: Registered,
  challenge: string,
  extra: Record<string, string> = {},
) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: c.clientId,
    redirect_uri: c.redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: b64url(randomBytes(8)),
    ...extra,
  });
  return `${base}/oauth/authorize?${q}`;
}

/** GETs following redirects by hand with the jar, until one leaves `base` or is not a redirect. */
export async function follow(jar: CookieJar, url: string, base: string) {
  let next = url;
  for (let i = 0; i < 10; i++) {
    const res = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header(next) } });
    jar.store(res);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { url: next, res };
    next = new URL(location, next).href;
    if (!next.startsWith(base)) return { url: next, res };
  }
  throw new Error('too many redirects');
}

export async function tokenRequest(base: string, params: Record<string, string>) {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/**
 * The whole flow for a signed-in person (session JWT) in a browser-like jar: authorize, consent for
 * `organization`, back to the client with a code, exchanged for tokens.
 */
export async function signInAndConsent(
  base: string,
  c: Registered,
  opts: { jwt: string; organization: string; resource: string; scope?: string },
) {
  const jar = new CookieJar();
  const { verifier, challenge } = pkcePair();
  const start = authorizeUrl(base, c, challenge, {
    resource: opts.resource,
    ...(opts.scope ? { scope: opts.scope } : {}),
  });
  const atConsent = await follow(jar, start, base);
  const uid = new URL(atConsent.url).searchParams.get('uid');
  if (!uid)
    throw new Error(
      `no consent page: ${atConsent.url} ${atConsent.res.status} ${await atConsent.res.text()}`,
    );
  const consentUrl = `${base}/api/oauth/interactions/${uid}/consent`;
  const headers = { authorization: `Bearer ${opts.jwt}`, 'content-type': 'application/json' };
  const shown = await fetch(consentUrl, { headers: { ...headers, cookie: jar.header(consentUrl) } });
  const request = (await shown.json()) as Record<string, any>;
  const decided = await fetch(consentUrl, {
    method: 'POST',
    headers: { ...headers, cookie: jar.header(consentUrl) },
    body: JSON.stringify({ approve: true, organization: opts.organization }),
  });
  const outcome = (await decided.json()) as Record<string, any>;
  if (decided.status !== 200) throw new Error(`consent failed: ${decided.status} ${JSON.stringify(outcome)}`);
  const back = await follow(jar, new URL(outcome.redirectTo, base).href, base);
  const code = new URL(back.url).searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.url} ${back.res.status} ${await back.res.text()}`);
  const tokens = await tokenRequest(base, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: c.redirectUri,
    client_id: c.clientId,
    resource: opts.resource,
  });
  return { request, tokens, jar, uid };
}
