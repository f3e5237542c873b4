import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../../config.js';
import type { Jobs, QueueDef, SendOptions } from '../jobs/jobs.js';
import type { SecretBox } from '../secrets/encryption.js';

export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
  replyTo?: string;
  /**
   * An iCalendar (iTIP, RFC 6047) part: nodemailer sends it as the text/calendar alternative with its METHOD
   * and as an .ics attachment, so mail clients show accept/decline.
   */
  icalEvent?: { method: string; filename?: string; content: string };
  /** Stable id of the message (a retried job re-sends the same Message-ID, so receivers can dedupe). */
  messageId?: string;
}

export interface Mailer {
  send(msg: MailMessage): Promise<{ messageId: string }>;
  close(): void;
}

/** SMTP when SMTP_URL is set; otherwise every message becomes an `.eml` file in `<CRM_DATA_DIR>/outbox`. */
export function createMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'CRM_DATA_DIR'>): Mailer {
  const smtp = config.SMTP_URL;
  const transport = smtp
    ? nodemailer.createTransport(smtp)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const outbox = join(config.CRM_DATA_DIR, 'outbox');
  return {
    async send(msg) {
      const messageId = msg.messageId ?? `<${randomUUID()}@crm.localhost>`;
      const info = await transport.sendMail({ from: config.MAIL_FROM, ...msg, messageId });
      if (!smtp) {
        await mkdir(outbox, { recursive: true });
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        const file = `${stamp}-${messageId.replace(/[^\w.-]/g, '')}.eml`;
        await writeFile(join(outbox, file), (info as unknown as { message: Buffer }).message);
      }
      return { messageId };
    },
    close: () => transport.close(),
  };
}

/**
 * A value people typed (a card's title, a name) as one line of a mail's subject or text: line breaks and tabs become
 * spaces, so it cannot add lines of its own to a message sent from the service's address; cut at `max` code points.
 */
export function oneLine(s: string, max = 200) {
  const chars = Array.from(s.replace(/[\r\n\t\u2028\u2029]+/g, ' ').trim());
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/** Outgoing mail goes through a queue: delivery failures retry with back-off instead of failing a request. */
export const mailQueue: QueueDef = { name: 'mail-send', retryLimit: 8, retryDelay: 30, retryBackoff: true };

/**
 * A queued mail: the message and the organization it is sent for. `orgId` follows the tenant jobs' convention, so
 * what acts on an organization's jobs finds its mail too: a person's erasure sweeps only that organization's
 * queued copies, an organization's deletion removes them (docs/lgpd.md). A mail that carries a secret (an
 * invitation's link) has its body sealed: `sealed` holds text, html and icalEvent encrypted with the instance's
 * secret box (AES-256-GCM, bound to the Message-ID), so the queue never holds the secret in clear (docs/security.md).
 */
export type MailJob = Partial<MailMessage> &
  Pick<MailMessage, 'to' | 'subject'> & { orgId?: number; sealed?: string };

type MailBody = Pick<MailMessage, 'text' | 'html' | 'icalEvent'>;

export interface MailSendOptions extends SendOptions {
  /** The organization the mail is for; omit only for mail that belongs to none. */
  orgId?: number;
  /** Seal the body with this box: the mail carries a secret (the worker opens it with the same instance key). */
  seal?: SecretBox;
}

const sealContext = (messageId: string) => `mail:${messageId}`;

export function enqueueMail(jobs: Jobs, msg: MailMessage, opts: MailSendOptions = {}) {
  const { orgId, seal, ...send } = opts;
  const messageId = msg.messageId ?? `<${randomUUID()}@crm.localhost>`;
  const { text, html, icalEvent, ...head } = msg;
  const body: MailBody = { text, html, icalEvent };
  const job: MailJob = {
    ...head,
    messageId,
    ...(seal ? { sealed: seal.encrypt(JSON.stringify(body), sealContext(messageId)) } : body),
    ...(orgId !== undefined && { orgId }),
  };
  return jobs.send(mailQueue, job, send);
}

/** The message a queued mail job sends: its sealed body opened with the instance's box. */
export async function openMail(job: MailJob, box: () => Promise<SecretBox>): Promise<MailMessage> {
  const { orgId: _org, sealed, ...msg } = job;
  if (sealed === undefined) return msg as MailMessage;
  if (!msg.messageId) throw new Error('a sealed mail has no Message-ID to open it with');
  const body = JSON.parse((await box()).decrypt(sealed, sealContext(msg.messageId))) as MailBody;
  return { ...msg, ...body } as MailMessage;
}

export function registerMailWorker(jobs: Jobs, mailer: Mailer, box: () => Promise<SecretBox>) {
  return jobs.work<MailJob>(mailQueue, async (job) => {
    await mailer.send(await openMail(job, box));
  });
}
