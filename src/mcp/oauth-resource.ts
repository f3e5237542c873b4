/**
 * crm-mcp as an OAuth protected resource (RFC 9728, docs/mcp.md "Sign-in"): its metadata names the CRM service
 * as the authorization server, and an OAuth access token is accepted only when it was issued for this server
 * (RFC 8707 audience); its organization is the token's own.
 */
import { SCOPES } from '../platform/auth/scopes.js';

export const PRM_PATH = '/.well-known/oauth-protected-resource';

/** An OAuth access token of the service: neither an API token (`crm_pat_`) nor a session JWT (dotted). */
export const isOauthAccessToken = (token: string) => !token.startsWith('crm_pat_') && !token.includes('.');

/** RFC 9728 metadata; `scopes_supported` is the service's closed catalogue (MCP clients ask for these). */
export function protectedResourceMetadata(resource: string, service: string) {
  return {
    resource,
    authorization_servers: [service],
    bearer_methods_supported: ['header'],
    scopes_supported: SCOPES,
    resource_name: 'CRM agent tools',
    resource_documentation: `${service}/api/docs`,
  };
}

export type OauthCheck =
  | { ok: true; tenant: string; scopes: string[] }
  | { ok: false; status: 401 | 503; message: string };

/**
 * Asks the service what the token is for (GET /api/oauth/token-info) on every request, so a revoked
 * application is refused at once. A token for another resource is refused here even though the service
 * would accept it: it was not given to this server.
 */
export async function checkOauthToken(service: string, token: string, resource: string): Promise<OauthCheck> {
  let res: Response;
  try {
    res = await fetch(`${service}/api/oauth/token-info`, { headers: { authorization: `Bearer ${token}` } });
  } catch (err) {
    return { ok: false, status: 503, message: `The CRM service is unreachable: ${String(err)}` };
  }
  if (res.status === 401 || res.status === 404)
    return {
      ok: false,
      status: 401,
      message: 'The access token is unknown, expired or revoked: sign in again',
    };
  if (!res.ok) return { ok: false, status: 503, message: `The CRM service answered HTTP ${res.status}` };
  const info = (await res.json()) as { resource: string; organization: string; scopes: string[] };
  if (info.resource.replace(/\/+$/, '') !== resource.replace(/\/+$/, ''))
    return {
      ok: false,
      status: 401,
      message: `This access token was issued for ${info.resource}, not for this server (${resource}): ask for one with resource=${resource}`,
    };
  return { ok: true, tenant: info.organization, scopes: info.scopes };
}
