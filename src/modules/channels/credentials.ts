import type { Config } from '../../config.js';
import type { Database } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { type EmailProvider, emailProvider } from '../../platform/providers/email/client.js';
import { type SmsProvider, smsProvider } from '../../platform/providers/sms/client.js';
import { type WhatsAppProvider, whatsappProvider } from '../../platform/providers/whatsapp/client.js';
import { type SecretBox, secretBox } from '../../platform/secrets/encryption.js';
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

/**
 * The kit of a process, made on first use (not when routes register: generating the OpenAPI document builds
 * the app without a database). Await it before opening a transaction.
 */
export function lazyChannelKit(config: Config, db: Database): () => Promise<ChannelKit> {
  let kit: Promise<ChannelKit> | undefined;
  return () => {
    kit ??= secretBox(config, db).then((box) => ({ config, box }));
    kit.catch(() => {
      kit = undefined;
    });
    return kit;
  };
}

/**
 * What channel code needs to reach providers: the configuration and the process's secret box (obtained once,
 * outside any transaction: on PGlite its first use reads the instance key over the one connection).
 */
export interface ChannelKit {
  config: Config;
  box: SecretBox;
}

export function sealCredentials(
  kit: ChannelKit,
  row: Pick<ChannelSecretRow, 'organizationId' | 'documentId'>,
  value: Record<string, unknown>,
) {
  return kit.box.encrypt(JSON.stringify(value), aad(row));
}

export function openCredentials<T = Record<string, unknown>>(
  kit: ChannelKit,
  row: ChannelSecretRow,
): T | null {
  if (!row.credentials) return null;
  return JSON.parse(kit.box.decrypt(row.credentials, aad(row))) as T;
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
export function channelProvider(kit: ChannelKit, row: ChannelSecretRow): ChannelProvider {
  const { config } = kit;
  const creds = openCredentials<any>(kit, row);
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
