import { AppError } from '../http/errors.js';

/** A provider (WhatsApp, SMS, SMTP) refused or failed a call: what the job records or a route turns into a 502. */
export class ProviderError extends Error {
  constructor(
    readonly provider: 'whatsapp' | 'sms' | 'email' | 'conversions' | 'lead_ads',
    message: string,
    /** HTTP status (or SMTP reply code) from the provider; 0 when it never answered. */
    readonly status: number,
    /** 4xx answers other than 408/429 will fail the same way again: retrying is pointless. */
    readonly permanent: boolean,
    readonly code?: string | number,
    /**
     * The request may have reached the provider (a timeout after sending it): whether the message went out is
     * unknown, so an at-most-once sender must not repeat it.
     */
    readonly outcomeUnknown = false,
  ) {
    super(message);
  }
}

/** Synchronous provider failures are 502 BadGatewayError naming the provider and its message (DESIGN.md §11). */
export function toBadGateway(err: unknown): never {
  if (err instanceof ProviderError) {
    throw new AppError('BadGatewayError', `The ${err.provider} provider failed: ${err.message}`, {
      provider: err.provider,
      providerStatus: err.status,
      providerMessage: err.message,
      ...(err.code !== undefined ? { providerCode: err.code } : {}),
    });
  }
  throw err;
}

const retryable = (status: number) => status === 0 || status === 408 || status === 429 || status >= 500;
/**
 * A gateway in front of the provider answered for it: 502 (the provider's answer was lost or unreadable) and 504
 * (none came in time) follow a request that may have reached the provider, so the outcome is unknown, like a
 * timeout of our own. Any other status is the provider's own refusal.
 */
const gatewayLost = (status: number) => status === 502 || status === 504;

/** Network errors raised before a request could reach the provider (no connection, no TLS session): nothing sent. */
const BEFORE_SENDING = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'ENETDOWN',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

type NetworkCause = { code?: string; message?: string; syscall?: string; errors?: unknown[] };

/**
 * A cause that proves the request never left: a known connect-phase code, a failure of the connect or name lookup
 * call itself (a connect timeout included: no connection existed), or every attempt of a dual-stack connect
 * (Node's AggregateError, one error per address tried) failing so.
 */
export function beforeSending(cause: NetworkCause | undefined): boolean {
  if (!cause) return false;
  if (cause.code && BEFORE_SENDING.has(cause.code)) return true;
  if (cause.syscall === 'connect' || cause.syscall === 'getaddrinfo') return true;
  const attempts = Array.isArray(cause.errors) ? (cause.errors as NetworkCause[]) : [];
  return attempts.length > 0 && attempts.every(beforeSending);
}

/**
 * A request that got no answer. Only a failure to connect proves the provider received nothing; a timeout, or a
 * connection lost once open (reset, "other side closed"), may follow a request the provider took, so its outcome
 * is unknown and an at-most-once sender does not repeat it (docs/messaging.md, "No message is sent twice").
 */
function unanswered(provider: ProviderError['provider'], err: unknown, timeoutMs: number) {
  const e = err as Error & { cause?: NetworkCause };
  if (e.name === 'TimeoutError')
    return new ProviderError(provider, `no answer within ${timeoutMs} ms`, 0, false, undefined, true);
  const code = e.cause?.code;
  const detail = e.cause?.message || code || e.message;
  // No cause: fetch refused the request before any I/O (its URL or headers); "bad port": a port fetch never dials.
  if (!e.cause || beforeSending(e.cause) || detail === 'bad port')
    return new ProviderError(provider, `unreachable (${detail})`, 0, false);
  return new ProviderError(
    provider,
    `connection lost before an answer (${detail})`,
    0,
    false,
    undefined,
    true,
  );
}

/**
 * One JSON request to a provider's trusted base URL (operator config, not user input), with a timeout.
 * Non-2xx answers and network errors become ProviderError with the provider's own message.
 */
export async function providerRequest<T>(
  provider: ProviderError['provider'],
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Uint8Array | FormData;
    timeoutMs: number;
  },
  /** The provider's message and code from an error body; `permanent` overrides the status-based guess. */
  errorMessage: (body: any) => { message?: string; code?: string | number; permanent?: boolean } = () => ({}),
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? 'GET',
      headers: init.headers,
      body: init.body as BodyInit | undefined,
      signal: AbortSignal.timeout(init.timeoutMs),
      // A redirect is an answer (a non-2xx ProviderError), never followed: a failure to connect to its target
      // would otherwise read as "nothing sent" after the provider had taken the request.
      redirect: 'manual',
    });
  } catch (err) {
    throw unanswered(provider, err, init.timeoutMs);
  }
  // The status arrived, so the request reached the provider: a body lost now (timeout, lost connection) leaves a
  // 2xx's outcome unknown, and an error status still says what it says.
  const text = await res.text().catch((err: Error) => {
    const detail = `answer lost after HTTP ${res.status} (${(err.cause as Error | undefined)?.message || err.message})`;
    if (res.ok) throw new ProviderError(provider, detail, 0, false, undefined, true);
    throw new ProviderError(provider, detail, res.status, !retryable(res.status));
  });
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const { message, code, permanent } = body ? errorMessage(body) : {};
    throw new ProviderError(
      provider,
      message ?? `HTTP ${res.status}`,
      res.status,
      permanent ?? !retryable(res.status),
      code,
      gatewayLost(res.status),
    );
  }
  return body as T;
}
