import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../../config.js';
import { resolvePublicHost } from '../../outbound/resolve-host.js';
import { OutboundBlockedError, parseAllowlist } from '../../outbound/safe-fetch.js';
import { beforeSending, ProviderError } from '../provider-error.js';

/**
 * E-mail over SMTP (nodemailer): a channel's own SMTP URL, else the service's SMTP_URL, else (embedded default,
 * no SMTP configured) `.eml` files in `<CRM_DATA_DIR>/outbox`. A channel's SMTP URL is user input: its host
 * must resolve to a public address (or be allow-listed), and the connection goes to the address checked.
 */

export interface EmailMessage {
  from: string;
  to: string;
  replyTo?: string;
  subject: string;
  html: string;
  text: string;
  messageId: string;
  headers?: Record<string, string>;
}

export interface EmailProvider {
  send(msg: EmailMessage): Promise<{ messageId: string }>;
  /** Connects and greets the server (EHLO); throws ProviderError when it cannot. */
  verify(): Promise<void>;
}

type EmailConfig = Pick<
  Config,
  'SMTP_URL' | 'CRM_DATA_DIR' | 'CRM_PROVIDER_TIMEOUT_MS' | 'CRM_OUTBOUND_ALLOWLIST'
>;

interface Cached {
  transport: Transporter;
  outbox: string | null;
  expires: number;
}
const transports = new Map<string, Promise<Cached>>();
const TTL_MS = 5 * 60_000;

async function openTransport(config: EmailConfig, channelUrl: string | undefined): Promise<Cached> {
  const timeouts = {
    connectionTimeout: config.CRM_PROVIDER_TIMEOUT_MS,
    greetingTimeout: config.CRM_PROVIDER_TIMEOUT_MS,
    socketTimeout: config.CRM_PROVIDER_TIMEOUT_MS * 3,
  };
  const expires = Date.now() + TTL_MS;
  if (channelUrl) {
    const url = new URL(channelUrl);
    const address = await resolvePublicHost(url.hostname, parseAllowlist(config.CRM_OUTBOUND_ALLOWLIST));
    const secure = url.protocol === 'smtps:';
    const transport = nodemailer.createTransport({
      host: address,
      port: Number(url.port) || (secure ? 465 : 587),
      secure,
      name: 'crm.localhost',
      tls: { servername: url.hostname },
      auth: url.username
        ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
        : undefined,
      pool: true,
      maxConnections: 5,
      ...timeouts,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    return { transport, outbox: null, expires };
  }
  if (config.SMTP_URL) {
    const url = `${config.SMTP_URL}${config.SMTP_URL.includes('?') ? '&' : '?'}pool=true`;
    const transport = nodemailer.createTransport({ url, pool: true, ...timeouts } as Parameters<
      typeof nodemailer.createTransport
    >[0]);
    return { transport, outbox: null, expires };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return { transport, outbox: join(config.CRM_DATA_DIR, 'outbox'), expires };
}

async function transportFor(config: EmailConfig, channelUrl: string | undefined): Promise<Cached> {
  const key = `${channelUrl ?? ''}|${config.SMTP_URL ?? ''}|${config.CRM_DATA_DIR}`;
  const hit = transports.get(key);
  if (hit) {
    const cached = await hit.catch(() => undefined);
    if (cached && cached.expires > Date.now()) return cached;
    transports.delete(key);
    cached?.transport.close();
  }
  const opened = openTransport(config, channelUrl);
  transports.set(key, opened);
  opened.catch(() => transports.delete(key));
  return opened;
}

/**
 * nodemailer's timers of the session's setup (`timeoutType` of its ETIMEDOUT): connecting, the greeting, a STARTTLS
 * handshake. SOCKET_TIMEOUT, the idle timer that waits for every reply (the message's included), is not one.
 */
const SETUP_TIMEOUTS = new Set(['CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT']);

type SmtpError = {
  responseCode?: number;
  code?: string;
  message?: string;
  command?: string;
  timeoutType?: string;
  originalCode?: string;
  syscall?: string;
  errors?: unknown[];
};

/**
 * A failure of the SMTP connection that proves none of the message was handed over: no such host, a TLS handshake
 * or STARTTLS that failed, a connect, greeting or TLS upgrade that timed out, or the connect call itself failing
 * (nodemailer replaces a socket error's code with ESOCKET and keeps the system's code, ECONNREFUSED and the like, in
 * `originalCode`).
 */
function beforeMessage(e: SmtpError): boolean {
  if (e.code === 'EDNS' || e.code === 'ETLS') return true;
  if (e.code === 'ETIMEDOUT') return SETUP_TIMEOUTS.has(e.timeoutType ?? '');
  return beforeSending({ code: e.originalCode ?? e.code, syscall: e.syscall, errors: e.errors });
}

function smtpFailure(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof OutboundBlockedError) return new ProviderError('email', err.message, 0, true);
  const e = err as SmtpError;
  const code = e.responseCode ?? 0;
  // 5xx SMTP replies are permanent (bad mailbox, policy); 4xx and connection failures are worth a retry. nodemailer
  // tags every failure of the connection itself (socket error, close, timeout) with command 'CONN', whatever the
  // session was doing, so 'CONN' alone does not mean "while connecting": a connection reset or closed, or a socket
  // timeout, may follow the message data, its final reply lost. Such a failure leaves the message's fate unknown
  // (at most once, docs/messaging.md) unless it proves nothing was handed over yet (beforeMessage).
  const unknown = code === 0 && e.command === 'CONN' && !beforeMessage(e);
  return new ProviderError('email', e.message ?? 'SMTP failure', code, code >= 500, e.code, unknown);
}

export function emailProvider(config: EmailConfig, channelSmtpUrl?: string): EmailProvider {
  return {
    async send(msg) {
      try {
        const { transport, outbox } = await transportFor(config, channelSmtpUrl);
        const info = await transport.sendMail({ ...msg, headers: msg.headers });
        if (outbox) {
          await mkdir(outbox, { recursive: true });
          const file = `${new Date().toISOString().replace(/[:.]/g, '-')}-${msg.messageId.replace(/[^\w.-]/g, '')}.eml`;
          await writeFile(join(outbox, file), (info as unknown as { message: Buffer }).message);
        }
        return { messageId: msg.messageId };
      } catch (err) {
        throw smtpFailure(err);
      }
    },
    async verify() {
      try {
        const { transport, outbox } = await transportFor(config, channelSmtpUrl);
        if (!outbox) await transport.verify();
      } catch (err) {
        throw smtpFailure(err);
      }
    },
  };
}
