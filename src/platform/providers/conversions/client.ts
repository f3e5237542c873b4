import { createHash } from 'node:crypto';
import type { Config } from '../../../config.js';
import { normalizePhone } from '../../phones.js';
import { providerRequest } from '../provider-error.js';

/** One server event of the Conversions API (Meta shape). */
export interface ServerEvent {
  event_name: string;
  event_time: number;
  event_id: string;
  action_source: 'system_generated';
  user_data: { em?: string[]; ph?: string[] };
  custom_data?: Record<string, unknown>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** E-mail normalised (trimmed, lower case) and hashed, as the Conversions API requires. */
export const hashEmail = (email: string) => sha256(email.trim().toLowerCase());

/** Phone normalised to digits with the country code (E.164 without `+`) and hashed; undefined when invalid. */
export function hashPhone(phone: string, country?: string | null): string | undefined {
  const parsed = normalizePhone(phone, country);
  const digits = parsed.ok ? parsed.phone.replace(/\D/g, '') : phone.replace(/\D/g, '');
  return digits.length >= 7 ? sha256(digits) : undefined;
}

export interface ConversionsAnswer {
  events_received?: number;
  fbtrace_id?: string;
}

/**
 * `POST {CRM_CONVERSIONS_API_URL}/{version}/{pixelId}/events` with `{ data, access_token, test_event_code? }`.
 * Failures are ProviderError('conversions') carrying the provider's message.
 */
export function sendServerEvents(
  config: Pick<Config, 'CRM_CONVERSIONS_API_URL' | 'CRM_CONVERSIONS_API_VERSION' | 'CRM_PROVIDER_TIMEOUT_MS'>,
  pixelId: string,
  accessToken: string,
  data: ServerEvent[],
  testEventCode?: string,
): Promise<ConversionsAnswer> {
  const base = `${config.CRM_CONVERSIONS_API_URL.replace(/\/+$/, '')}/${config.CRM_CONVERSIONS_API_VERSION}`;
  return providerRequest<ConversionsAnswer>(
    'conversions',
    `${base}/${encodeURIComponent(pixelId)}/events`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        data,
        access_token: accessToken,
        ...(testEventCode ? { test_event_code: testEventCode } : {}),
      }),
      timeoutMs: config.CRM_PROVIDER_TIMEOUT_MS,
    },
    (body) => ({ message: body?.error?.message, code: body?.error?.code }),
  );
}
