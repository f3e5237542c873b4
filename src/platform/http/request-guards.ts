import type { FastifyInstance, FastifyRequest } from 'fastify';
import qs from 'qs';
import { z } from 'zod';
import { AppError, type FieldError, validationError } from './errors.js';

/**
 * Platform-wide refusals of hostile input, before any route sees it, so no handler, query or database
 * column has to be ready for it: NUL bytes (PostgreSQL text and jsonb cannot hold them), unpaired UTF-16
 * surrogates (they would be stored as U+FFFD, silently changed), bodies nested deeper than any resource
 * needs, multipart bodies without a boundary, over-long URLs and query strings beyond qs's limits.
 */

/** Deepest JSON body accepted: far beyond any resource (filters, segment rules), far below stack trouble. */
export const MAX_BODY_DEPTH = 64;
/** Longest request target (path and query) accepted; Node's own header limit is 16 KiB. */
export const MAX_URL_LENGTH = 8192;

const QUERY_LIMITS = { depth: 10, arrayLimit: 100, parameterLimit: 500 };
const invalidQuery = Symbol('invalid query string');

/**
 * The router's query string parser. It may not throw (it runs inside the router's lookup), so a query
 * beyond the limits comes back marked, and the onRequest guard answers 400 for it. `plainObjects` keeps
 * keys such as `constructor` (qs would silently drop them), so a strict schema reports them.
 */
export function parseQueryString(str: string): Record<string, unknown> {
  try {
    return qs.parse(str, {
      ...QUERY_LIMITS,
      strictDepth: true,
      throwOnLimitExceeded: true,
      plainObjects: true,
    });
  } catch (err) {
    return { [invalidQuery]: err instanceof Error ? err.message : 'invalid query string' } as Record<
      string,
      unknown
    >;
  }
}

type Problem = { path: (string | number)[]; message: string };

function stringProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character';
  if (/\p{Cs}/u.test(s)) return 'contains invalid Unicode (an unpaired surrogate)';
  return null;
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** First NUL, unpaired surrogate or excess nesting in a parsed body; null when clean. Only plain data is walked. */
export function bodyProblem(value: unknown, path: (string | number)[] = []): Problem | null {
  if (typeof value === 'string') {
    const message = stringProblem(value);
    return message ? { path, message } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (!Array.isArray(value) && !isPlain(value)) return null;
  if (path.length >= MAX_BODY_DEPTH)
    return { path, message: `is nested deeper than ${MAX_BODY_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = bodyProblem(value[i], [...path, i]);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyMessage = stringProblem(key);
    if (keyMessage) return { path: [...path, key], message: `key ${keyMessage}` };
    const found = bodyProblem(item, [...path, key]);
    if (found) return found;
  }
  return null;
}

function headerProblem(req: FastifyRequest): string | null {
  for (const [name, value] of Object.entries(req.headers)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.includes('\u0000'))) return name;
  }
  return null;
}

function isStrictObject(schema: unknown): boolean {
  if (!(schema instanceof z.ZodObject)) return true; // not an object schema: nothing is dropped silently
  return schema._zod.def.catchall?._zod.def.type === 'never';
}

const apiRoute = (url: string) => url.startsWith('/api/') && !url.startsWith('/api/docs');

export function installRequestGuards(app: FastifyInstance) {
  // Unknown query parameters are a 400 on every route (DESIGN.md §5), not only on the lists: a route that
  // declares no query string gets a strict empty one (also what OpenAPI shows), and a declared one that
  // would drop unknown keys is refused at startup.
  app.addHook('onRoute', (route) => {
    if (!apiRoute(route.url)) return;
    const schema = (route.schema ?? {}) as { querystring?: unknown };
    if (schema.querystring === undefined) route.schema = { ...schema, querystring: z.strictObject({}) };
    else if (!isStrictObject(schema.querystring))
      throw new Error(
        `Route ${route.method} ${route.url}: its querystring schema must be strict (z.strictObject)`,
      );
  });

  app.addHook('onRequest', async (req) => {
    if (req.url.length > MAX_URL_LENGTH)
      throw new AppError('URITooLongError', `The URL is longer than ${MAX_URL_LENGTH} characters`);
    if (req.url.includes('\u0000') || /%00/i.test(req.url))
      throw new AppError('BadRequestError', 'The URL contains a NUL character (%00)');
    const header = headerProblem(req);
    if (header) throw new AppError('BadRequestError', `The ${header} header contains a NUL character`);
    const queryError = (req.query as Record<symbol, unknown> | undefined)?.[invalidQuery];
    if (queryError) throw new AppError('BadRequestError', `Invalid query string: ${String(queryError)}`);
    const type = req.headers['content-type'];
    if (type && /^\s*multipart\//i.test(type) && !/;\s*boundary=[^;\s]/i.test(type))
      throw new AppError(
        'BadRequestError',
        'A multipart body needs a boundary parameter in its content-type',
      );
  });

  app.addHook('preValidation', async (req) => {
    const problem = bodyProblem(req.body);
    if (!problem) return;
    const where = problem.path.length ? problem.path.join('.') : 'body';
    const errors: FieldError[] = [{ path: problem.path, message: problem.message, name: 'ValidationError' }];
    throw validationError(`${where} ${problem.message}`, errors);
  });
}
