import type { Config } from '../../../config.js';
import { providerRequest } from '../provider-error.js';

/** SMS in the Twilio Messages API shape: form-encoded POST with HTTP basic auth (account SID + auth token). */

export interface SmsCredentials {
  accountSid: string;
  authToken: string;
}

export interface SmsProvider {
  send(to: string, body: string): Promise<{ messageId: string; status: string }>;
  health(): Promise<{ status: string | null }>;
}

const twilioError = (body: any) => ({ message: body?.message, code: body?.code });

export function smsProvider(
  config: Pick<Config, 'CRM_SMS_API_URL' | 'CRM_PROVIDER_TIMEOUT_MS'>,
  from: string,
  creds: SmsCredentials,
): SmsProvider {
  const account = `${config.CRM_SMS_API_URL.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}`;
  const authorization = `Basic ${Buffer.from(`${creds.accountSid}:${creds.authToken}`).toString('base64')}`;
  return {
    async send(to, body) {
      const res = await providerRequest<{ sid: string; status: string }>(
        'sms',
        `${account}/Messages.json`,
        {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ To: to, From: from, Body: body }).toString(),
          timeoutMs: config.CRM_PROVIDER_TIMEOUT_MS,
        },
        twilioError,
      );
      return { messageId: res.sid, status: res.status };
    },
    async health() {
      const res = await providerRequest<{ status?: string }>(
        'sms',
        `${account}.json`,
        { headers: { authorization }, timeoutMs: config.CRM_PROVIDER_TIMEOUT_MS },
        twilioError,
      );
      return { status: res.status ?? null };
    },
  };
}
