import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Database, queryRows } from '../../../src/platform/db/client.js';
import { addMember, newTenant } from '../../helpers/app.js';
import { decodedHeader, mailingApp, type ReceivedMail, type TestSmtp, textBody } from '../../helpers/smtp.js';
import { createCard, createPipeline } from '../cards/factory.js';

/**
 * A mention's e-mail (docs/jobs-mail-tasks.md, "Notifications"): an app whose workers run and deliver over real
 * SMTP, with a public URL of its own for the card's link.
 */
let mailing: Awaited<ReturnType<typeof mailingApp>>;
let smtp: TestSmtp;
let app: FastifyInstance;
let db: Database;

beforeAll(async () => {
  mailing = await mailingApp({ PUBLIC_URL: 'https://crm.example.test/' });
  ({ smtp, app, db } = mailing);
});

afterAll(() => mailing?.close());

const commentsOf = (boardId: string, cardId: string) => `/boards/${boardId}/cards/${cardId}/comments`;
// Members joined by invitation also receive their invitation e-mail: only mentions count here.
const mentionsTo = (email: string) =>
  smtp.received.filter(
    (m: ReceivedMail) => m.to.includes(email) && m.messageId.startsWith('<comment-mention-'),
  );

test('a mention e-mails the mentioned member who reads the card and takes mention e-mails: the author, the card and its link, not the text; once per member and comment', async () => {
  const t = await newTenant(app);
  const ana = await addMember(t, 'member');
  const bia = await addMember(t, 'member');
  const outsider = await addMember(t, 'member');
  const quiet = await addMember(t, 'member');
  expect((await quiet.api.put('/users/me', { mentionEmails: false })).status).toBe(200);
  const { boardId } = await createPipeline(
    t.api,
    {},
    { editors: [ana.membershipId, bia.membershipId, quiet.membershipId] },
  );
  const card = await createCard(t.api, boardId, { title: 'Proposta Ação Globex' });

  const made = await ana.api.post(commentsOf(boardId, card.documentId), {
    data: {
      content: 'os termos confidenciais da proposta',
      mentions: [bia.membershipId, ana.membershipId, outsider.membershipId, quiet.membershipId],
    },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  await smtp.waitFor(() => mentionsTo(bia.user.email).length > 0, 30_000);
  const [mail] = mentionsTo(bia.user.email);
  const [notice] = (await bia.api.get('/notifications')).body.data;
  expect(mail.messageId).toBe(`<comment-mention-${notice.documentId}@crm.localhost>`);
  const who = ana.user.username;
  expect(decodedHeader(mail.subject)).toBe(
    `${who} mencionou você em "Proposta Ação Globex" / mentioned you on "Proposta Ação Globex"`,
  );
  const text = textBody(mail.raw);
  const link = `https://crm.example.test/app/boards/${boardId}/cards/${card.documentId}`;
  expect(text).toContain(`${who} mencionou você num comentário do card "Proposta Ação Globex".`);
  expect(text).toContain(`${who} mentioned you in a comment on the card "Proposta Ação Globex".`);
  expect(text).toContain(`abra: ${link}\n`);
  expect(text).not.toContain('confidenciais');

  // An edit that keeps Bia sends her nothing more; one that adds the owner e-mails the owner once.
  const path = `${commentsOf(boardId, card.documentId)}/${made.body.documentId}`;
  expect(
    (await ana.api.put(path, { data: { content: 'editado', mentions: [bia.membershipId] } })).status,
  ).toBe(200);
  expect((await ana.api.put(path, { data: { mentions: [bia.membershipId, t.membershipId] } })).status).toBe(
    200,
  );
  await smtp.waitFor(() => mentionsTo(t.user.email).length > 0, 30_000);
  // The mail queued by the earlier edit would have been delivered with or before the owner's.
  await new Promise((r) => setTimeout(r, 1_500));
  expect(mentionsTo(bia.user.email)).toHaveLength(1);
  expect(mentionsTo(t.user.email)).toHaveLength(1);
  // The author and the member who cannot read the card: no e-mail.
  expect(mentionsTo(ana.user.email)).toHaveLength(0);
  expect(mentionsTo(outsider.user.email)).toHaveLength(0);
  // Who turned mention e-mails off has the notification and no e-mail.
  expect(mentionsTo(quiet.user.email)).toHaveLength(0);
  expect((await quiet.api.get('/notifications')).body.meta.pagination.total).toBe(1);
});

test('a dry run of a comment with a mention e-mails nobody and notifies nobody', async () => {
  const t = await newTenant(app);
  const bia = await addMember(t, 'member');
  const { boardId } = await createPipeline(t.api, {}, { editors: [bia.membershipId] });
  const card = await createCard(t.api, boardId, { title: 'Dry' });
  const dry = await t.api.post(`${commentsOf(boardId, card.documentId)}?dryRun=true`, {
    data: { content: 'só um ensaio', mentions: [bia.membershipId] },
  });
  expect(dry.status, JSON.stringify(dry.body)).toBe(200);
  // A real mention made after it arrives; the dry run's never does.
  const real = await t.api.post(commentsOf(boardId, card.documentId), {
    data: { content: 'agora vale', mentions: [bia.membershipId] },
  });
  expect(real.status).toBe(201);
  await smtp.waitFor(() => mentionsTo(bia.user.email).length > 0, 30_000);
  await new Promise((r) => setTimeout(r, 1_500));
  expect(mentionsTo(bia.user.email)).toHaveLength(1);
  expect((await bia.api.get('/notifications')).body.meta.pagination.total).toBe(1);
});

test('a title with line breaks stays one line of the e-mail; a blocked member is notified and not e-mailed', async () => {
  const t = await newTenant(app);
  const bia = await addMember(t, 'member');
  const blocked = await addMember(t, 'member');
  await queryRows(db.system, sql`update users set blocked = true where email = ${blocked.user.email}`);
  const { boardId } = await createPipeline(t.api, {}, { editors: [bia.membershipId, blocked.membershipId] });
  // A title as a public form's visitor could make it: lines of its own, meant to read as the service's.
  const card = await createCard(t.api, boardId, {
    title: 'Lead\r\nSua sessão expirou: entre em https://evil.example',
  });
  const made = await t.api.post(commentsOf(boardId, card.documentId), {
    data: { content: 'veja', mentions: [bia.membershipId, blocked.membershipId] },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  await smtp.waitFor(() => mentionsTo(bia.user.email).length > 0, 30_000);
  const [mail] = mentionsTo(bia.user.email);
  expect(decodedHeader(mail.subject)).toContain('"Lead Sua sessão expirou: entre em https://evil.example"');
  const text = textBody(mail.raw);
  expect(text).toContain('do card "Lead Sua sessão expirou: entre em https://evil.example".');
  expect(text.split('\n').filter((l) => l.startsWith('Sua sessão'))).toEqual([]);
  await new Promise((r) => setTimeout(r, 1_500));
  expect(mentionsTo(blocked.user.email)).toHaveLength(0);
  // Notified all the same (read in the database: a blocked user's session is refused).
  const [row] = await queryRows<{ n: number }>(
    db.system,
    sql`select count(*)::int as n from notifications n join memberships m on m.id = n.membership_id
      where m.document_id = ${blocked.membershipId} and n.type = 'comment_mention'`,
  );
  expect(row.n).toBe(1);
});
