import type { FastifyRequest } from 'fastify';
import { validationError } from './errors.js';

/**
 * qs (the router's parser, request-guards.ts) keeps prototype-named keys (`filters[constructor]=x`) so the
 * list-query compiler refuses them as unknown fields instead of the list coming back unfiltered. `__proto__` is
 * the one key qs always drops: the hook below refuses it with a 400 instead.
 */

/** The first key of `url`'s query string that names `__proto__` (decoded as qs decodes it), if any. */
export function protoQueryKey(url: string): string | undefined {
  const at = url.indexOf('?');
  if (at < 0) return undefined;
  for (const pair of url.slice(at + 1).split('&')) {
    const eq = pair.indexOf('=');
    const raw = (eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' ');
    let key: string;
    try {
      key = decodeURIComponent(raw);
    } catch {
      key = raw;
    }
    if (key.includes('__proto__')) return key;
  }
  return undefined;
}

/** preValidation hook: a query key naming `__proto__` is a 400, not a parameter silently dropped. */
export async function refuseProtoQueryKeys(req: FastifyRequest) {
  const key = protoQueryKey(req.url);
  if (key !== undefined) {
    throw validationError(`Invalid query parameter ${key}: __proto__ is not a parameter name`, [
      { path: [key], message: '__proto__ is not a parameter name', name: 'ValidationError' },
    ]);
  }
}
