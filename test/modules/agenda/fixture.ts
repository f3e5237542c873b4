import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { queueNameIn } from '../../../src/platform/jobs/jobs.js';
import { createMailer, type MailMessage } from '../../../src/platform/mail/mailer.js';
import { type Api, getApp, testConfig } from '../../helpers/app.js';
import { type Radicale, startRadicale } from '../../helpers/peers/radicale.js';
import type { TestSmtp } from '../../helpers/smtp.js';

/**
 * The agenda's test world: an app whose outbound allow-list admits the loopback Radicale (DESIGN.md §11:
 * tests set 127.0.0.1), on the worker's shared database.
 */
export async function startAgendaWorld() {
  const { db } = await getApp();
  const radicale = await startRadicale();
  const config = testConfig({ CRM_OUTBOUND_ALLOWLIST: '127.0.0.1' });
  const app: FastifyInstance = await buildApp({ config, db });
  await app.ready();
  return {
    app,
    db,
    radicale,
    close: async () => {
      await app.close();
      await radicale.stop();
    },
  };
}

export async function connectCalendar(api: Api, radicale: Radicale) {
  const user = await radicale.addUser();
  const res = await api.post('/calendar-connections', {
    data: { provider: 'caldav', url: radicale.url, username: user.username, password: user.password },
  });
  if (res.status !== 201) throw new Error(`connect failed: ${JSON.stringify(res.body)}`);
  return { user, connection: res.body };
}

export async function boardAndCard(api: Api, card: Record<string, unknown> = {}) {
  const board = await api.post('/boards', {
    data: { name: `Deals ${Math.random().toString(36).slice(2, 8)}` },
  });
  if (board.status !== 201) throw new Error(`board: ${JSON.stringify(board.body)}`);
  const created = await api.post(`/boards/${board.body.documentId}/cards`, {
    data: { title: 'Acme deal', ...card },
  });
  if (created.status !== 201) throw new Error(`card: ${JSON.stringify(created.body)}`);
  return { boardId: board.body.documentId as string, cardId: created.body.documentId as string };
}

/**
 * Takes the queued mail for `email` out of the queue (the app runs no workers) and delivers it over real SMTP
 * with the service's own mailer, as the mail worker would.
 */
export async function deliverMailTo(email: string, smtp: TestSmtp) {
  const { db } = await getApp();
  const jobs = await queryRows<{ data: MailMessage }>(
    db.system,
    sql`with taken as (delete from pgboss.job where name = ${queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', 'mail-send')} and data->>'to' = ${email}
          returning data, created_on, id) select data from taken order by created_on, id`,
  );
  const mailer = createMailer({
    SMTP_URL: smtp.url,
    MAIL_FROM: 'CRM <crm@test.example>',
    CRM_DATA_DIR: 'unused',
  });
  try {
    for (const job of jobs) await mailer.send(job.data);
  } finally {
    mailer.close();
  }
  return jobs.length;
}

/** The text/calendar part of a raw message, unfolded (RFC 5545 §3.1). */
export function calendarPart(raw: string): string {
  const m = /Content-Type: text\/calendar[\s\S]*?\r?\n\r?\n([\s\S]*?)\r?\n--/i.exec(raw);
  if (!m) throw new Error(`no text/calendar part in:\n${raw.slice(0, 2000)}`);
  let body = m[1];
  if (/Content-Transfer-Encoding: base64/i.test(raw.slice(m.index, m.index + 300)))
    body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  else if (/Content-Transfer-Encoding: quoted-printable/i.test(raw.slice(m.index, m.index + 300)))
    body = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  return body.replace(/\r?\n[ \t]/g, '');
}

export const prop = (ics: string, name: string) =>
  new RegExp(`^${name}(?:;[^:\\r\\n]*)?:(.*)$`, 'im').exec(ics)?.[1]?.trim();

export const inDays = (d: number, hourUtc = 10) => {
  const t = new Date(Date.now() + d * 86_400_000);
  t.setUTCHours(hourUtc, 0, 0, 0);
  return t;
};
