import { ApiError } from './api-client.js';
import { TOOL_ROUTES } from './tool-routes.js';

/**
 * The service's error messages are written for REST clients: some name a route to call instead (`switch it (POST
 * /conversations/{id}/card/switch)`, `GET /api/boards?filters[slug][$eq]=…`). A model calls tools, so a route is
 * rewritten to the tool that makes it (`crm.switch_conversation_card`), or to the web application when no tool
 * does; body paths (`data.email`) become the tool's argument (`email`). Issue 32 item 4.
 */

const ROUTE_IN_TEXT = /\b(GET|POST|PUT|PATCH|DELETE) (\/[^\s,;)`'"]*)/g;

/** Each tool's operations as patterns, reads first (a GET names the tool that reads, not one that also writes). */
const patterns = Object.entries(TOOL_ROUTES)
  .flatMap(([tool, routes]) =>
    routes.map((route) => {
      const [method, path] = route.split(' ');
      const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      return { tool, method, path, regex: new RegExp(`^${source}$`), first: routes[0] === route };
    }),
  )
  .sort((a, b) => Number(b.first) - Number(a.first));

/** The tool that makes `METHOD path` (a template or a filled path, with or without /api and a query). */
export function toolForRoute(method: string, rawPath: string): string | undefined {
  const path = rawPath.split('?')[0].replace(/\/+$/, '');
  const full = path.startsWith('/api/') ? path : `/api${path}`;
  const exact = patterns.find((p) => p.method === method && p.path === full);
  const match = exact ?? patterns.find((p) => p.method === method && p.regex.test(full));
  return match && `crm.${match.tool}`;
}

/** A text with every REST route in it replaced by the tool that makes it, or by the web application. */
export function withoutRoutes(text: string): string {
  return text
    .replace(ROUTE_IN_TEXT, (_, method: string, raw: string) => {
      // A sentence's full stop is not part of the path.
      const [path, stop] = raw.endsWith('.') ? [raw.slice(0, -1), '.'] : [raw, ''];
      return `${toolForRoute(method, path) ?? 'the CRM web application'}${stop}`;
    })
    .replace(/\bthe path takes\b/g, 'the argument takes')
    .replace(/\bdata\.([A-Za-z_])/g, '$1');
}

function rewrite(value: unknown): unknown {
  if (typeof value === 'string') return withoutRoutes(value);
  if (Array.isArray(value)) return value.map(rewrite);
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([k, v]) => {
    // A body field's path (`['data', 'email']`) names the tool's argument (`['email']`).
    if (k === 'path' && Array.isArray(v) && v[0] === 'data' && v.length > 1) return [k, v.slice(1)];
    return [k, rewrite(v)];
  });
  return Object.fromEntries(entries);
}

/** The same error, told in tools and arguments rather than REST routes and bodies. */
export function forModel(err: ApiError): ApiError {
  return new ApiError(
    err.status,
    err.errorName,
    withoutRoutes(err.message),
    rewrite(err.details) as Record<string, unknown>,
  );
}
