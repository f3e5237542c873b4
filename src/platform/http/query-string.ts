import type { FastifyRequest } from 'fastify';
import qs from 'qs';
import { validationError } from './errors.js';

/**
 * Query strings are parsed by qs (Strapi's nested `filters[a][$op]=v`). By default qs silently drops every
 * key that is also a member of Object.prototype (`filters[constructor]=x` vanished, so the list came back
 * unfiltered). With allowPrototypes such keys stay, as own properties, and the list-query compiler refuses
 * them as unknown fields; the objects are still ordinary objects, and nothing reads them but through own
 * entries. `__proto__` is the one key qs always drops: the hook below refuses it with a 400 instead.
 */
export function parseQueryString(str: string): Record<string, unknown> {
  return qs.parse(str, { depth: 10, arrayLimit: 100, parameterLimit: 500, allowPrototypes: true });
}

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
