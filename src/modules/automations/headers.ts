import { validationError } from '../../platform/http/errors.js';
import type { SecretBox } from '../../platform/secrets/encryption.js';
import type { Action } from './schema.js';

/**
 * `http_request` headers are write-only credentials (an `Authorization` bearer, an API key), like a channel's
 * credentials or a pixel's access token (issue 30, item 4; docs/automations.md "Header values are write-only"):
 *
 * - stored sealed, one AES-256-GCM value per header, bound to the organization, the automation and the header
 *   name (`sealedHeaders` in the stored action, in place of `headers`);
 * - answered as their names with the value `HEADER_MASK`, in every read, list and write response;
 * - on update, a header not sent keeps its value, a new value replaces it, `null` removes it, and the mask itself
 *   (what a client that read the automation sends back) keeps it. Values are carried from the stored
 *   `http_request` of the same rank (the first to the first, …) only while its URL keeps its origin: a secret
 *   never follows its action to another host without being sent again.
 */
export const HEADER_MASK = '********';

/** An http_request action as stored: header values sealed (rows saved before sealing still hold `headers`). */
interface StoredParams {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  sealedHeaders?: Record<string, string>;
  body?: unknown;
}

/** What the API accepts: a value, `null` (remove) or the mask (keep). */
type InputHeaders = Record<string, string | null>;

const aad = (context: string, name: string) => `${context}:header:${name.toLowerCase()}`;

const origin = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

/** The clear header values of a stored action (legacy clear ones as they are). */
export function openHeaders(
  box: SecretBox,
  context: string,
  params: StoredParams,
): Record<string, string> | undefined {
  if (params.sealedHeaders)
    return Object.fromEntries(
      Object.entries(params.sealedHeaders).map(([name, sealed]) => [
        name,
        box.decrypt(sealed, aad(context, name)),
      ]),
    );
  return params.headers;
}

/** Values that do not open here (sealed for another automation: a copied row) are not kept. */
function openOrNothing(box: SecretBox, context: string, params: StoredParams): Record<string, string> {
  try {
    return openHeaders(box, context, params) ?? {};
  } catch {
    return {};
  }
}

/** An action as answered: header names with masked values. */
export function maskAction(a: { type: string; params: unknown }): Action {
  if (a.type !== 'http_request') return a as Action;
  const { sealedHeaders, headers, ...rest } = a.params as StoredParams;
  const names = Object.keys(sealedHeaders ?? headers ?? {});
  return {
    type: 'http_request',
    params: {
      ...rest,
      ...(names.length ? { headers: Object.fromEntries(names.map((n) => [n, HEADER_MASK])) } : {}),
    },
  } as Action;
}

/**
 * The actions to store: each http_request's headers merged with the stored ones of the same rank (see above) and
 * sealed. `stored`: the automation's current actions (none at creation). Unknown masked headers → 400 naming them.
 */
export function sealActions(
  box: SecretBox,
  context: string,
  actions: readonly { type: string; params: unknown }[],
  stored: readonly { type: string; params: unknown }[] = [],
): unknown[] {
  const previous = stored.filter((a) => a.type === 'http_request').map((a) => a.params as StoredParams);
  let rank = 0;
  const errors: { path: (string | number)[]; message: string; name: string }[] = [];
  const out = actions.map((a, i) => {
    if (a.type !== 'http_request') return a;
    const { headers, ...rest } = a.params as Omit<StoredParams, 'headers'> & { headers?: InputHeaders };
    const before = previous[rank++];
    const kept = before && origin(before.url) === origin(rest.url) ? openOrNothing(box, context, before) : {};
    const result = new Map<string, [string, string]>(
      Object.entries(kept).map(([name, value]) => [name.toLowerCase(), [name, value]]),
    );
    for (const [name, value] of Object.entries(headers ?? {})) {
      const lower = name.toLowerCase();
      if (value === null) result.delete(lower);
      else if (value === HEADER_MASK) {
        const current = result.get(lower);
        if (current) result.set(lower, [name, current[1]]);
        else
          errors.push({
            path: ['actions', i, 'params', 'headers', name],
            message: before
              ? `no stored value to keep for ${name}${origin(before.url) !== origin(rest.url) ? " (the URL's origin changed: values are not carried to another host)" : ''}: send the value`
              : `no stored value to keep for ${name}: send the value`,
            name: 'ValidationError',
          });
      } else result.set(lower, [name, value]);
    }
    const sealedHeaders = Object.fromEntries(
      [...result.values()].map(([name, value]) => [name, box.encrypt(value, aad(context, name))]),
    );
    return {
      type: 'http_request',
      params: { ...rest, ...(result.size ? { sealedHeaders } : {}) },
    };
  });
  if (errors.length) throw validationError(`${errors[0].path.join('.')}: ${errors[0].message}`, errors);
  return out;
}
