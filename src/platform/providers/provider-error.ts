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
    });
  } catch (err) {
    const timeout = (err as Error).name === 'TimeoutError';
    throw new ProviderError(
      provider,
      timeout ? `no answer within ${init.timeoutMs} ms` : `unreachable (${(err as Error).message})`,
      0,
      false,
      undefined,
      timeout,
    );
  }
  const text = await res.text();
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
    );
  }
  return body as T;
}
