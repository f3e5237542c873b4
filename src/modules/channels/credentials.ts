import type { Config } from '../../config.js';
import { AppError } from '../../platform/http/errors.js';
import { type EmailProvider, emailProvider } from '../../platform/providers/email/client.js';
import { type SmsProvider, smsProvider } from '../../platform/providers/sms/client.js';
import { type WhatsAppProvider, whatsappProvider } from '../../platform/providers/whatsapp/client.js';
import { encryptionKey, openSecret, sealSecret } from '../../platform/secrets/encryption.js';
import type {
  EmailCredentialsInput,
  EmailSettings,
  SmsCredentialsInput,
  SmsSettings,
  WhatsAppCredentialsInput,
  WhatsAppSettings,
} from './schema.js';

/** What a channel row must offer to reach its provider. */
export interface ChannelSecretRow {
  organizationId: number;
  documentId: string;
  type: 'whatsapp' | 'email' | 'sms';
  settings: Record<string, unknown>;
  credentials: string | null;
}

// Bound to the organization and the channel: a sealed value copied to another row does not open.
const aad = (row: Pick<ChannelSecretRow, 'organizationId' | 'documentId'>) =>
  `org:${row.organizationId}:chat_channel:${row.documentId}`;

export function sealCredentials(
  config: Config,
  row: Pick<ChannelSecretRow, 'organizationId' | 'documentId'>,
  value: Record<string, unknown>,
) {
  return sealSecret(encryptionKey(config), aad(row), value);
}

export function openCredentials<T = Record<string, unknown>>(
  config: Config,
  row: ChannelSecretRow,
): T | null {
  if (!row.credentials) return null;
  return openSecret<T>(encryptionKey(config), aad(row), row.credentials);
}

const missing = (row: ChannelSecretRow) =>
  new AppError(
    'UnprocessableEntityError',
    'This channel has no credentials: set them with PUT /chat-channels/{id}',
    {
      channel: row.documentId,
    },
  );

export type ChannelProvider =
  | {
      type: 'whatsapp';
      settings: WhatsAppSettings;
      credentials: WhatsAppCredentialsInput;
      client: WhatsAppProvider;
    }
  | { type: 'email'; settings: EmailSettings; credentials: EmailCredentialsInput; client: EmailProvider }
  | { type: 'sms'; settings: SmsSettings; credentials: SmsCredentialsInput; client: SmsProvider };

/** The provider client of a channel, its secrets opened. */
export function channelProvider(config: Config, row: ChannelSecretRow): ChannelProvider {
  const creds = openCredentials<any>(config, row);
  switch (row.type) {
    case 'whatsapp': {
      if (!creds) throw missing(row);
      const settings = row.settings as WhatsAppSettings;
      return {
        type: 'whatsapp',
        settings,
        credentials: creds,
        client: whatsappProvider(config, { accessToken: creds.accessToken, ...settings }),
      };
    }
    case 'email':
      return {
        type: 'email',
        settings: row.settings as EmailSettings,
        credentials: creds ?? {},
        client: emailProvider(config, creds?.smtpUrl),
      };
    case 'sms': {
      if (!creds) throw missing(row);
      const settings = row.settings as SmsSettings;
      return { type: 'sms', settings, credentials: creds, client: smsProvider(config, settings.from, creds) };
    }
  }
}

/** Campaign sends per second through this channel (settings.ratePerSecond, default 10). */
export const channelRate = (row: Pick<ChannelSecretRow, 'settings'>) =>
  Number((row.settings as { ratePerSecond?: number }).ratePerSecond ?? 10);
