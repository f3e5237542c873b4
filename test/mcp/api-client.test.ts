import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { API_TYPES_PATH, generateApiTypes } from '../../scripts/generate-api-types.js';
import { ApiError, createApiClient, retryAfterMs, retryingFetch, unwrap } from '../../src/mcp/api-client.js';

const fast = { baseDelayMs: 1, maxDelayMs: 50 };

/** A fake fetch answering from a script of responses (or thrown network errors), recording requests. */
function scripted(steps: (Response | Error)[]) {
  const seen: Request[] = [];
  const fetchFn = async (req: Request) => {
    seen.push(req);
    const step = steps.shift();
    if (!step) throw new Error('no more steps');
    if (step instanceof Error) throw step;
    return step;
  };
  return { seen, fetchFn: fetchFn as typeof fetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('retryingFetch', () => {
  it('retries a 429 after Retry-After, for any method, and keeps the body', async () => {
    const { seen, fetchFn } = scripted([json(429, {}, { 'retry-after': '0' }), json(201, { ok: true })]);
    const res = await retryingFetch(
      fast,
      fetchFn,
    )(new Request('http://x/api/products', { method: 'POST', body: '{"a":1}' }));
    expect(res.status).toBe(201);
    expect(seen).toHaveLength(2);
    expect(await seen[1].text()).toBe('{"a":1}');
    // Both attempts carry the same Idempotency-Key, so the service applies the POST once.
    expect(seen[0].headers.get('idempotency-key')).toBeTruthy();
    expect(seen[1].headers.get('idempotency-key')).toBe(seen[0].headers.get('idempotency-key'));
  });

  it('gives up after the configured retries and returns the last 429', async () => {
    const { seen, fetchFn } = scripted([json(429, {}), json(429, {}), json(429, {})]);
    const res = await retryingFetch({ ...fast, retries: 2 }, fetchFn)(new Request('http://x/a'));
    expect(res.status).toBe(429);
    expect(seen).toHaveLength(3);
  });

  it('retries network errors of idempotent requests only', async () => {
    const get = scripted([new TypeError('fetch failed'), json(200, {})]);
    expect((await retryingFetch(fast, get.fetchFn)(new Request('http://x/a'))).status).toBe(200);
    expect(get.seen).toHaveLength(2);

    const patch = scripted([new TypeError('fetch failed'), json(200, {})]);
    await expect(
      retryingFetch(fast, patch.fetchFn)(new Request('http://x/a', { method: 'PATCH', body: '{}' })),
    ).rejects.toThrow('fetch failed');
    expect(patch.seen).toHaveLength(1);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});

describe('createApiClient', () => {
  it('sends the token and tenant, serialises nested filters, and turns error envelopes into ApiError', async () => {
    const { seen, fetchFn } = scripted([
      json(404, {
        data: null,
        error: { status: 404, name: 'NotFoundError', message: 'Product not found', details: {} },
      }),
    ]);
    const api = createApiClient({
      baseUrl: 'http://crm.test/api/',
      tenant: 'acme',
      token: 't0k',
      fetch: fetchFn,
    });
    const err = await unwrap(
      api.GET('/api/products', { params: { query: { filters: { name: { $containsi: 'a b' } } } } }),
      'http://crm.test',
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, errorName: 'NotFoundError', message: 'Product not found' });
    expect(seen[0].url).toBe('http://crm.test/api/products?filters[name][$containsi]=a%20b');
    expect(seen[0].headers.get('authorization')).toBe('Bearer t0k');
    expect(seen[0].headers.get('x-tenant-id')).toBe('acme');
  });

  it('reports an unreachable service as a 503 ApiError', async () => {
    const { fetchFn } = scripted([new TypeError('fetch failed'), new TypeError('fetch failed')]);
    const api = createApiClient({
      baseUrl: 'http://crm.test',
      tenant: 'a',
      token: 't',
      fetch: fetchFn,
      retry: { ...fast, retries: 1 },
    });
    const err = await unwrap(api.GET('/api/users/me'), 'http://crm.test').catch((e) => e);
    expect(err).toMatchObject({ status: 503, errorName: 'ServiceUnavailableError' });
  });
});

describe('generated API types', () => {
  it('generated/api-types.d.ts matches the current OpenAPI document (run `npm run mcp:types`)', async () => {
    expect(await readFile(API_TYPES_PATH, 'utf8')).toBe(await generateApiTypes());
  }, 60_000);
});
