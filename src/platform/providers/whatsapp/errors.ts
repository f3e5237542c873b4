import { ProviderError } from '../provider-error.js';

/**
 * The Cloud API error codes the senders act on (docs/messaging.md, "WhatsApp limits"). Meta asks for error handling
 * built on `error.code` and `error.error_data.details`, not on the HTTP status nor the message title, so these
 * decide whether a retry can help whatever status carried them.
 */
export type WhatsAppLimit = 'throughput' | 'pair_rate' | 'window_closed' | 'undeliverable';

export const WHATSAPP_LIMIT_CODES: Record<WhatsAppLimit, number> = {
  /** Cloud API throughput of the business number reached: back off, then retry (nothing was sent). */
  throughput: 130429,
  /** Too many messages to the same person in a short time: that person waits, then the retry. */
  pair_rate: 131056,
  /** Re-engagement: more than 24 hours since the person last wrote; only a template can go. */
  window_closed: 131047,
  /** Undeliverable (not on WhatsApp, old app, terms not accepted…): fails, never retried. */
  undeliverable: 131026,
};

const KIND = new Map(
  Object.entries(WHATSAPP_LIMIT_CODES).map(([kind, code]) => [code, kind as WhatsAppLimit]),
);

export const TEMPLATE_ALTERNATIVE =
  'outside the 24-hour window only an approved template can be sent: send a template message instead';

/** The limit a failed WhatsApp call ran into, if it is one of the codes above. */
export function whatsappLimit(err: unknown): WhatsAppLimit | undefined {
  if (!(err instanceof ProviderError) || err.provider !== 'whatsapp') return undefined;
  return KIND.get(Number(err.code));
}

/** A Graph error body: its message with Meta's details, its code, and whether a retry can help (by code). */
export function graphError(body: any): { message?: string; code?: number; permanent?: boolean } {
  const e = body?.error ?? {};
  const code = Number.isInteger(Number(e.code)) && e.code !== undefined ? Number(e.code) : undefined;
  const kind = code === undefined ? undefined : KIND.get(code);
  const details: unknown = e.error_data?.details;
  let message: string | undefined = typeof e.message === 'string' ? e.message : undefined;
  if (typeof details === 'string' && details && !message?.includes(details))
    message = message ? `${message}: ${details}` : details;
  if (kind === 'window_closed') message = `${message ?? `(#${code})`}; ${TEMPLATE_ALTERNATIVE}`;
  if (!kind) return { message, code };
  return { message, code, permanent: kind === 'window_closed' || kind === 'undeliverable' };
}

/**
 * A failed status of a status webhook (`statuses[].errors[0]`: `{ code, title, message, error_data: { details } }`):
 * the reason recorded on the message, with the template alternative for 131047.
 */
export function webhookErrorText(
  e: { code?: number; title?: string; message?: string; error_data?: { details?: string } } = {},
) {
  const title = e.title ?? e.message ?? 'failed';
  const details = e.error_data?.details;
  const text = `whatsapp provider: ${title}${details && details !== title ? `: ${details}` : ''}${e.code ? ` (${e.code})` : ''}`;
  return KIND.get(Number(e.code)) === 'window_closed' ? `${text}; ${TEMPLATE_ALTERNATIVE}` : text;
}
