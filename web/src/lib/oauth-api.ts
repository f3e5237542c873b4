import { ApiError } from '../api';
import { getSession } from '../session';

/**
 * The OAuth routes of the service (/api/oauth/…), called with the session JWT. Plain fetch: the consent calls
 * also carry the browser's interaction cookie, which only the browser that started the sign-in has.
 */
export async function oauthCall<T>(method: string, path: string, body?: unknown): Promise<T> {
  const s = getSession();
  const res = await fetch(`/api/oauth${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      ...(s ? { authorization: `Bearer ${s.jwt}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as { error?: { name: string; message: string } };
  if (!res.ok)
    throw new ApiError(res.status, json.error?.name ?? 'Error', json.error?.message ?? `HTTP ${res.status}`);
  return json as T;
}

export interface ConsentRequest {
  uid: string;
  client: { clientId: string; name: string | null; uri: string | null; logoUri: string | null };
  resource: string | null;
  scopes: string[];
  organizations: { slug: string; name: string; role: string }[];
}

export interface ConnectedApplication {
  id: string;
  clientId: string;
  name: string | null;
  uri: string | null;
  resource: string | null;
  scopes: string[];
  organization: { slug: string; name: string } | null;
  createdAt: string;
}
