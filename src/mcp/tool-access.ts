import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { missingScopes, type Scope } from '../platform/auth/scopes.js';
import { ApiError, unwrap } from './api-client.js';
import { errorResult, type Tool, type ToolEnv } from './tool-kit.js';
import { type Route, TOOL_ROUTES } from './tool-routes.js';

/**
 * Which tools a client is listed and may call (issue 32 item 3): the operator's choice (MCP_CRM_TOOL_GROUPS,
 * MCP_CRM_READ_ONLY), then what the client's token may do. A tool needs the scopes the service's OpenAPI document
 * declares for the operations it makes (tool-routes.ts); a token narrowed to some scopes (GET
 * /api/users/tokens/current) is listed only the tools those scopes grant. The service still checks every call.
 */

/** Why a tool is not offered to this client. */
type Refusal =
  | { kind: 'read-only' }
  | { kind: 'scope'; missing: Scope[]; has: string[] }
  | { kind: 'service'; message: string };

export interface ToolAccess {
  /** The tools this client is listed, in listing order. */
  tools: Tool[];
  /** The tools of the served groups it may not call, and why. */
  refused: Map<string, Refusal>;
}

const SCOPES_TTL_MS = 60_000;

/** A token's scopes by credential (ToolEnv.credentialKey; else by environment), for a minute. */
const tokenScopesCache = new Map<unknown, { at: number; scopes: Promise<string[] | null> }>();

/** The operation scopes of the service's OpenAPI document (`x-required-scopes`), once per service. */
const routeScopesCache = new Map<string, Promise<Map<string, string[]>>>();

const serviceOrigin = (apiUrl: string) => apiUrl.replace(/\/+$/, '').replace(/\/api$/, '');

type LooseGet = (path: string) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * The scopes of the token this client acts with: null when it has all of its role's (a session, an unscoped
 * token, or a service older than the route). A token the service refuses is an ApiError 401.
 */
async function fetchTokenScopes(env: ToolEnv): Promise<string[] | null> {
  // Typed loosely: the route is newer than generated/api-types.d.ts until `npm run mcp:types` runs again.
  const get = env.api.GET as unknown as LooseGet;
  try {
    const me = await unwrap(get('/api/users/tokens/current'), env.apiUrl);
    return (me as { scopes: string[] | null }).scopes;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

export function tokenScopes(env: ToolEnv): Promise<string[] | null> {
  const key = env.credentialKey ?? env;
  const now = Date.now();
  const cached = tokenScopesCache.get(key);
  if (cached && now - cached.at < SCOPES_TTL_MS) return cached.scopes;
  if (tokenScopesCache.size > 10_000)
    for (const [k, v] of tokenScopesCache) if (now - v.at >= SCOPES_TTL_MS) tokenScopesCache.delete(k);
  const scopes = fetchTokenScopes(env);
  tokenScopesCache.set(key, { at: now, scopes });
  scopes.catch(() => tokenScopesCache.delete(key));
  return scopes;
}

async function fetchRouteScopes(apiUrl: string): Promise<Map<string, string[]>> {
  const res = await fetch(`${serviceOrigin(apiUrl)}/api/openapi.json`);
  if (!res.ok) throw new ApiError(503, 'ServiceUnavailableError', `HTTP ${res.status}`);
  const doc = (await res.json()) as {
    paths?: Record<string, Record<string, { 'x-required-scopes'?: string[] }>>;
  };
  const scopes = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    for (const [method, op] of Object.entries(item ?? {}))
      if (op && typeof op === 'object')
        scopes.set(`${method.toUpperCase()} ${path}`, op['x-required-scopes'] ?? []);
  return scopes;
}

/** Scopes by operation (`GET /api/contacts`) as the service's OpenAPI document declares them. */
export function routeScopes(apiUrl: string): Promise<Map<string, string[]>> {
  const key = serviceOrigin(apiUrl);
  let cached = routeScopesCache.get(key);
  if (!cached) {
    cached = fetchRouteScopes(apiUrl);
    routeScopesCache.set(key, cached);
    cached.catch(() => routeScopesCache.delete(key));
  }
  return cached;
}

/** The scopes a tool needs (union over its operations); undefined when the service lacks one of them. */
export function scopesOfTool(name: string, operations: Map<string, string[]>): Scope[] | undefined {
  const routes: readonly Route[] = TOOL_ROUTES[name] ?? [];
  if (!routes.length || routes.some((r) => !operations.has(r))) return undefined;
  return [...new Set(routes.flatMap((r) => operations.get(r) ?? []))] as Scope[];
}

const isReadOnly = (tool: Tool) => tool.annotations.readOnlyHint === true;

/**
 * The tools of `served` (the operator's groups) this client is listed: read-only ones only with `readOnly`, and
 * those the token's scopes grant. When the service cannot say (down, or an older version), the scope filter is
 * skipped for this request (the service refuses what the token may not do anyway).
 */
export async function toolAccess(
  env: ToolEnv,
  served: readonly Tool[],
  readOnly = false,
): Promise<ToolAccess> {
  const refused = new Map<string, Refusal>();
  const candidates = served.filter((t) => {
    if (!readOnly || isReadOnly(t)) return true;
    refused.set(t.name, { kind: 'read-only' });
    return false;
  });
  let scopes: string[] | null;
  let operations: Map<string, string[]>;
  try {
    scopes = await tokenScopes(env);
    if (scopes === null) return { tools: candidates, refused };
    operations = await routeScopes(env.apiUrl);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) return { tools: candidates, refused };
    for (const t of candidates)
      refused.set(t.name, {
        kind: 'service',
        message: 'the CRM service refused the API token (401): it is unknown, revoked or expired',
      });
    return { tools: [], refused };
  }
  const tools = candidates.filter((t) => {
    const needs = scopesOfTool(t.name, operations);
    if (!needs) {
      refused.set(t.name, {
        kind: 'service',
        message: 'the CRM service does not offer what it needs (is it older than this tool server?)',
      });
      return false;
    }
    const missing = missingScopes(scopes, needs);
    if (missing.length) refused.set(t.name, { kind: 'scope', missing, has: scopes ?? [] });
    return !missing.length;
  });
  return { tools, refused };
}

/** The tool error a call to a tool this client is not listed gets, naming why and what to do; else undefined. */
export function refusalResult(
  access: ToolAccess,
  tool: Tool,
  servedName: string,
): CallToolResult | undefined {
  const why = access.refused.get(tool.name);
  if (!why) return undefined;
  const details: Record<string, unknown> = { tool: servedName, reason: why.kind };
  let message: string;
  if (why.kind === 'read-only') {
    message = `${servedName} changes data, and this agent server is read-only (MCP_CRM_READ_ONLY=1): it offers only the tools that read. tools/list shows them.`;
  } else if (why.kind === 'scope') {
    details.missingScopes = why.missing;
    details.tokenScopes = why.has;
    message = `${servedName} is not available to this client: it needs the ${why.missing.join(', ')} scope${why.missing.length > 1 ? 's' : ''}, and the token has ${why.has.join(', ') || 'none'}. Use the tools tools/list shows, or connect with a token that has ${why.missing.join(', ')}.`;
  } else {
    message = `${servedName} is not available: ${why.message}.`;
  }
  return errorResult(new ApiError(403, 'ForbiddenError', message, details));
}
