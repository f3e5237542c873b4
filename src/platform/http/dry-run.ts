import type { FastifyInstance, FastifyRequest } from 'fastify';
import { routeAuthMode } from '../auth/plugin.js';
import { AppError } from './errors.js';

/**
 * `?dryRun=true` on a write route (docs/dry-run.md): the request runs in full (validation, access, rules) and
 * answers what the real call would, without writing anything. The mechanism is the tenant context: in a dry
 * run every `ctx.transaction` is rolled back (tenancy/context.ts) and code acting outside the database checks
 * `ctx.dryRun`; this hook only reads the parameter and reshapes a successful answer (200, `meta.dryRun`, the
 * `Dry-Run` header).
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * false: the route cannot honour a dry run faithfully (an effect outside the database that has no would-be
     * answer), so `?dryRun=true` is a 400 and the parameter is not documented on it.
     */
    dryRun?: boolean;
  }
  interface FastifyRequest {
    /** `?dryRun=true` on a route that supports it. */
    dryRun: boolean;
  }
}

export const DRY_RUN_PARAMETER = 'dryRun';
export const DRY_RUN_HEADER = 'dry-run';
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether a route takes `?dryRun=true`: tenant write routes, unless they opt out (`config.dryRun: false`). */
export function supportsDryRun(method: string, config: { auth?: string; dryRun?: boolean } | undefined) {
  return (
    WRITE_METHODS.has(method.toUpperCase()) &&
    (config?.auth ?? 'tenant') === 'tenant' &&
    config?.dryRun !== false
  );
}

function dryRunOf(req: FastifyRequest): boolean {
  const query = req.query as Record<string, unknown> | undefined;
  if (!query || !Object.hasOwn(query, DRY_RUN_PARAMETER)) return false;
  const value = query[DRY_RUN_PARAMETER];
  // Taken out of the query: the route's own query schema neither sees nor refuses it.
  delete query[DRY_RUN_PARAMETER];
  if (value !== 'true' && value !== 'false') {
    throw new AppError('ValidationError', 'dryRun must be true or false', {
      errors: [
        { path: [DRY_RUN_PARAMETER], message: 'accepted values: true, false', name: 'ValidationError' },
      ],
    });
  }
  // An unknown route answers its 404.
  if (value === 'false' || !routeAuthMode(req)) return false;
  if (!supportsDryRun(req.method, req.routeOptions.config)) {
    throw new AppError('BadRequestError', 'dryRun is not supported on this route', {
      parameter: DRY_RUN_PARAMETER,
    });
  }
  return true;
}

/**
 * The record a delete's dry run would remove, as the caller reads it (`GET` on the same path, with the same
 * credentials: the same access rules), so the answer names it; the transaction was rolled back, so it is still
 * there. Undefined when the path has no read or the read fails.
 */
async function wouldBeDeleted(req: FastifyRequest): Promise<unknown> {
  const path = req.url.split('?')[0];
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'x-tenant-id']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const res = await req.server.inject({ method: 'GET', url: path, headers });
  if (res.statusCode !== 200 || !String(res.headers['content-type'] ?? '').includes('json')) return undefined;
  const read = JSON.parse(res.body) as unknown;
  // A `{ data, meta }` envelope or the record itself, as the route answers it.
  const envelope =
    read &&
    typeof read === 'object' &&
    'data' in read &&
    Object.keys(read).every((k) => k === 'data' || k === 'meta');
  return envelope ? (read as { data: unknown }).data : read;
}

/**
 * Registered before the HTTP conventions, so the answer is reshaped before it is tagged and compressed; the
 * tenant context (made by the auth hook, which runs after this onRequest) is flagged in preValidation.
 */
export function installDryRun(app: FastifyInstance) {
  app.decorateRequest('dryRun', false);
  app.addHook('onRequest', async (req) => {
    // Reads keep their own query handling: a dry run is a property of writes.
    if (!WRITE_METHODS.has(req.method)) return;
    req.dryRun = dryRunOf(req);
  });
  app.addHook('preValidation', async (req) => {
    if (req.dryRun && req.tenant) req.tenant.dryRun = true;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.dryRun) return payload;
    reply.header(DRY_RUN_HEADER, 'true');
    if (reply.statusCode < 200 || reply.statusCode >= 300) return payload;
    // 201/202/204 promise something that now does not exist: a dry run's success is a 200, with no Location.
    reply.code(200);
    reply.removeHeader('location');
    if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').includes('json'))
      return payload;
    const body = JSON.parse(payload) as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return payload;
    const { meta } = body as { meta?: unknown };
    const merged = meta && typeof meta === 'object' && !Array.isArray(meta) ? meta : {};
    const data =
      req.method === 'DELETE' && (body as { deleted?: unknown }).deleted === true
        ? await wouldBeDeleted(req)
        : undefined;
    return JSON.stringify({ ...body, ...(data ? { data } : {}), meta: { ...merged, dryRun: true } });
  });
}
