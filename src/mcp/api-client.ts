import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import qs from 'qs';
import type { paths } from '../../generated/api-types.js';

/** An error answer of the CRM service (its `{ error: { status, name, message, details } }` envelope). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorName: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface RetryOptions {
  /** Further attempts after the first one. */
  retries: number;
  /** First back-off; doubled on each attempt (plus jitter). */
  baseDelayMs: number;
  /** Upper bound of one wait, also for a long Retry-After. */
  maxDelayMs: number;
}

export interface ApiClientOptions {
  /** Origin of the service, e.g. http://127.0.0.1:1337 (a trailing /api is accepted). */
  baseUrl: string;
  tenant: string;
  token: string;
  retry?: Partial<RetryOptions>;
  fetch?: typeof fetch;
  /** Writes go as dry runs (`?dryRun=true`): the service answers what they would do and changes nothing. */
  dryRun?: boolean;
}

const defaultRetry: RetryOptions = { retries: 3, baseDelayMs: 250, maxDelayMs: 10_000 };
const idempotentMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry-After is either seconds or an HTTP date. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * fetch with back-off: a 429 is retried for every method (the service did not process it), honouring
 * Retry-After; a network failure only for idempotent requests. POSTs carry an Idempotency-Key (the service
 * replays the stored answer for a repeated key), which makes them idempotent too.
 */
export function retryingFetch(options: Partial<RetryOptions> = {}, baseFetch: typeof fetch = fetch) {
  const opts = { ...defaultRetry, ...options };
  const backoff = (attempt: number) =>
    Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** attempt * (1 + Math.random() * 0.2));
  return async (request: Request): Promise<Response> => {
    if (request.method === 'POST' && !request.headers.has('idempotency-key'))
      request.headers.set('idempotency-key', randomUUID());
    const idempotent = idempotentMethods.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= opts.retries;
      let response: Response;
      try {
        response = await baseFetch(request.clone());
      } catch (err) {
        if (last || !idempotent) throw err;
        await sleep(backoff(attempt));
        continue;
      }
      if (response.status !== 429 || last) return response;
      const wait = retryAfterMs(response.headers.get('retry-after'));
      await response.body?.cancel();
      await sleep(Math.min(opts.maxDelayMs, wait ?? backoff(attempt)));
    }
  };
}

export function createApiClient(options: ApiClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/api$/, '');
  const doFetch = retryingFetch(options.retry, options.fetch);
  return createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${options.token}`, 'x-tenant-id': options.tenant },
    // The service reads Strapi-style nested query strings (filters[name][$containsi]=…).
    querySerializer: (query) => qs.stringify(query, { encodeValuesOnly: true }),
    fetch: async (request) => {
      if (!options.dryRun || reads.has(request.method)) return doFetch(request);
      const response = await doFetch(await asDryRun(request));
      // A successful write answered without `Dry-Run: true` would mean the service made it: never go on then.
      if (response.ok && response.headers.get('dry-run') !== 'true')
        throw new ApiError(
          500,
          'InternalServerError',
          'The CRM service did not answer the dry run as one (no Dry-Run header): is it older than this tool server?',
        );
      return response;
    },
  });
}

const reads = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The same write request with `dryRun=true`. */
async function asDryRun(request: Request): Promise<Request> {
  const url = new URL(request.url);
  url.searchParams.set('dryRun', 'true');
  const body = request.body ? await request.arrayBuffer() : undefined;
  return new Request(url, { method: request.method, headers: request.headers, body, signal: request.signal });
}

export type ApiClient = ReturnType<typeof createApiClient>;

interface ErrorEnvelope {
  error?: { status?: number; name?: string; message?: string; details?: Record<string, unknown> };
}

/** Unwraps an openapi-fetch result: the data, or an ApiError carrying the service's envelope. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  url: string,
): Promise<T> {
  let result: Awaited<typeof call>;
  try {
    result = await call;
  } catch (err) {
    const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : '';
    throw new ApiError(503, 'ServiceUnavailableError', `The CRM service at ${url} did not answer: ${reason}`);
  }
  if (result.response.ok) return result.data as T;
  const envelope = (result.error ?? {}) as ErrorEnvelope;
  const e = envelope.error ?? {};
  throw new ApiError(
    e.status ?? result.response.status,
    e.name ?? result.response.statusText ?? 'Error',
    e.message ?? `HTTP ${result.response.status}`,
    e.details ?? {},
  );
}
