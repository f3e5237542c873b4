import { afterEach, expect, test, vi } from 'vitest';
import { ProviderError, providerRequest } from '../../../src/platform/providers/provider-error.js';

/**
 * How a request that got no answer is read, from the error fetch gives (undici's `TypeError: fetch failed` with
 * the socket's error as its cause): only a failure before a connection existed proves nothing was sent and may be
 * retried; anything after (a reset, a closed socket), or a gateway answering for the provider (502, 504), leaves the
 * outcome unknown. The causes are built as Node builds them; a dual-stack connect (autoSelectFamily) that fails on
 * every address cannot be made on loopback.
 */
afterEach(() => vi.restoreAllMocks());

const netError = (code: string, syscall: string, message = `${syscall} ${code}`) =>
  Object.assign(new Error(message), { code, syscall });

async function failWith(cause: unknown) {
  vi.spyOn(globalThis, 'fetch').mockRejectedValue(new TypeError('fetch failed', { cause }));
  return providerRequest('whatsapp', 'https://graph.example.test/v1/messages', { timeoutMs: 1000 }).then(
    () => expect.unreachable('the request failed'),
    (err: unknown) => err as ProviderError,
  );
}

test.each([
  ['refused', netError('ECONNREFUSED', 'connect')],
  ['connect timed out', netError('ETIMEDOUT', 'connect')],
  ['name lookup failed for good', netError('EAI_FAIL', 'getaddrinfo')],
  ['network down', netError('ENETDOWN', 'connect')],
  [
    'every address of a dual-stack connect failed',
    Object.assign(
      new AggregateError(
        [netError('ETIMEDOUT', 'connect'), netError('ENETUNREACH', 'connect')],
        'connect failed',
      ),
      { code: 'ETIMEDOUT' },
    ),
  ],
])('%s: nothing was sent, retryable', async (_, cause) => {
  const err = await failWith(cause);
  expect(err).toBeInstanceOf(ProviderError);
  expect(err).toMatchObject({ status: 0, permanent: false, outcomeUnknown: false });
  expect(err.message).toMatch(/^unreachable/);
});

test.each([
  ['reset once connected', netError('ECONNRESET', 'read')],
  ['timed out reading the answer', netError('ETIMEDOUT', 'read')],
  ['closed by the other side', Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })],
  [
    'one address refused, the other connected and was lost',
    new AggregateError([netError('ECONNREFUSED', 'connect'), netError('ECONNRESET', 'read')], 'failed'),
  ],
])('%s: the outcome is unknown, not resent', async (_, cause) => {
  const err = await failWith(cause);
  expect(err).toMatchObject({ status: 0, permanent: false, outcomeUnknown: true });
  expect(err.message).toMatch(/^connection lost before an answer/);
});

test.each([
  [502, true],
  [504, true],
  [500, false],
  [503, false],
  [429, false],
])('an answer %i: outcome unknown %s', async (status, unknown) => {
  vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{}', { status }));
  const err = await providerRequest('whatsapp', 'https://graph.example.test/v1/messages', {
    timeoutMs: 1000,
  }).then(
    () => expect.unreachable('the request failed'),
    (e: unknown) => e as ProviderError,
  );
  expect(err).toMatchObject({ status, permanent: false, outcomeUnknown: unknown });
});
