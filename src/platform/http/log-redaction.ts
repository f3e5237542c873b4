import { DrizzleQueryError } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import pino from 'pino';

/**
 * What the request log may hold. Query strings carry filters, e-mail addresses and sometimes tokens, and a
 * failed SQL statement's bound parameters carry whatever the request sent (a token hash was seen in a 500's
 * log line): the log gets the path without its query string, the route pattern, and errors without their
 * bound parameters or the database's `detail` (which quotes row values).
 */
export const logSerializers = {
  req: (req: FastifyRequest) => ({
    method: req.method,
    url: pathOnly(req.url),
    route: req.routeOptions?.url,
    host: req.host,
    remoteAddress: req.ip,
  }),
  err: (err: Error) => {
    const out = pino.stdSerializers.err(err);
    scrub(out as unknown as Record<string, unknown>, boundParameterTexts(err), 0);
    return out;
  },
};

export const pathOnly = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

const REDACTED_KEYS = new Set(['params', 'parameters', 'detail']);

/** `params: …` exactly as each failed query of the cause chain wrote it into its message. */
function boundParameterTexts(err: unknown): string[] {
  const out: string[] = [];
  for (let e = err, n = 0; e instanceof Error && n < 10; e = e.cause, n++) {
    if (e instanceof DrizzleQueryError && e.params.length) out.push(`params: ${e.params}`);
  }
  return out;
}

function scrub(node: Record<string, unknown>, texts: string[], depth: number) {
  if (depth > 5) return;
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (REDACTED_KEYS.has(key)) delete node[key];
    else if (typeof value === 'string')
      node[key] = texts.reduce((s, t) => s.split(t).join('params: [redacted]'), value);
    else if (value && typeof value === 'object') scrub(value as Record<string, unknown>, texts, depth + 1);
  }
}
