import type { Socket } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { startJobs } from '../../src/workers.js';
import { getApp, testConfig } from './app.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  messageId: string;
  subject: string;
}

export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  /** Resolves once `predicate` holds for the received mail (polling), or rejects after `ms`. */
  waitFor(predicate: (mail: ReceivedMail[]) => boolean, ms?: number): Promise<void>;
  /**
   * The next `count` messages are received (in `received`), then their connection is dropped before the reply to
   * the message: the client cannot know whether the server took it.
   */
  dropAfterData(count: number): void;
  /** The next `count` messages are received (in `received`) and never answered: the client times out waiting. */
  silenceAfterData(count: number): void;
  close(): Promise<void>;
}

/** smtp-server's connection object (not in its types): the session's id and its socket. */
type ServerConnection = { id: string; _socket: Socket };

/** A real SMTP server on the loopback interface: what the service's SMTP transport delivers to. */
export async function startSmtp(opts: { delayMs?: number } = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  let drops = 0;
  let silences = 0;
  const options: SMTPServerOptions = {
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const header = (name: string) =>
          raw
            .match(new RegExp(`^${name}:\\s*(.*(?:\\r?\\n[ \\t].*)*)`, 'im'))?.[1]
            .replace(/\r?\n[ \t]+/g, ' ')
            .trim() ?? '';
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          messageId: header('Message-ID'),
          subject: header('Subject'),
        });
        if (drops > 0) {
          drops--;
          const conn = [...(server as unknown as { connections: Set<ServerConnection> }).connections].find(
            (c) => c.id === session.id,
          );
          conn?._socket.destroy();
          return;
        }
        if (silences > 0) {
          silences--;
          return;
        }
        setTimeout(() => callback(), opts.delayMs ?? 0);
      });
    },
  };
  const server = new SMTPServer(options);
  // A client killed mid-session (the kill -9 tests) resets its socket: the server reports it as an 'error' event,
  // which without a listener would be an uncaught exception in the test process.
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') console.error(`test SMTP server: ${err.message}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async waitFor(predicate, ms = 20_000) {
      const until = Date.now() + ms;
      while (!predicate(received)) {
        if (Date.now() > until)
          throw new Error(`SMTP: condition not met after ${ms} ms (${received.length} received)`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    dropAfterData(count) {
      drops = count;
    },
    silenceAfterData(count) {
      silences = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Quoted-printable (RFC 2045; `_` is a space in a header's Q encoding) as its bytes. */
function qpBytes(s: string, header = false) {
  const bytes: number[] = [];
  const text = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '=' && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(header && c === '_' ? ' ' : c, 'utf8'));
  }
  return Buffer.from(bytes);
}

/**
 * A header as read: its RFC 2047 encoded words (`=?UTF-8?Q|B?…?=`) decoded, each run of adjacent ones as one run of
 * bytes (a character may be split across two of them).
 */
export function decodedHeader(value: string) {
  return value.replace(/=\?utf-8\?[QB]\?[^?]*\?=(?:\s+=\?utf-8\?[QB]\?[^?]*\?=)*/gi, (run) =>
    Buffer.concat(
      [...run.matchAll(/=\?utf-8\?([QB])\?([^?]*)\?=/gi)].map(([, enc, data]) =>
        enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : qpBytes(data, true),
      ),
    ).toString('utf8'),
  );
}

/** The text body of a single-part message (nodemailer may send it quoted-printable or base64), as UTF-8 text. */
export function textBody(raw: string) {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join('\n\n');
  if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) return qpBytes(body).toString('utf8');
  if (/content-transfer-encoding:\s*base64/i.test(head)) return Buffer.from(body, 'base64').toString('utf8');
  return body;
}

/**
 * An app whose workers run (as `crm serve` with CRM_WORKERS=inline) and deliver over real SMTP to a server of the
 * test's own, on the shared database, with the config given (e.g. a PUBLIC_URL for the links). `close` stops all.
 */
export async function mailingApp(config: Partial<Config> = {}) {
  const smtp = await startSmtp();
  const { db } = await getApp();
  const cfg = testConfig({ SMTP_URL: smtp.url, CRM_JOBS_POLL_SECONDS: 0.5, ...config });
  const background = await startJobs(cfg, db, true);
  const app = await buildApp({ config: cfg, db, background });
  await app.ready();
  return {
    smtp,
    db,
    background,
    app,
    async close() {
      await app.close();
      await background.jobs.stop();
      await smtp.close();
    },
  };
}
