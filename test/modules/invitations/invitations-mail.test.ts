import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { apiClient, newTenant, registerUser } from '../../helpers/app.js';
import { mailingApp, type TestSmtp, textBody } from '../../helpers/smtp.js';

/** An app whose workers run and deliver over real SMTP, with a public URL of its own for the links. */
let mailing: Awaited<ReturnType<typeof mailingApp>>;
let smtp: TestSmtp;
let app: FastifyInstance;

beforeAll(async () => {
  mailing = await mailingApp({ PUBLIC_URL: 'https://crm.example.test/' });
  ({ smtp, app } = mailing);
});

afterAll(() => mailing?.close());

test('the invitation arrives over SMTP with a link (PUBLIC_URL) that shows and accepts it', async () => {
  const t = await newTenant(app);
  const u = await registerUser(app);
  const invited = await t.api.post('/memberships', { data: { email: u.email, role: 'member' } });
  expect(invited.status).toBe(202);
  await smtp.waitFor((mail) => mail.some((m) => m.to.includes(u.email)), 30_000);
  const mail = smtp.received.find((m) => m.to.includes(u.email))!;
  expect(mail.subject).toBe(`Invitation to join Org ${t.slug}`);
  const text = textBody(mail.raw);
  const link = /https:\/\/crm\.example\.test\/api\/invitations\/crm_inv_[0-9A-Za-z]{43}/.exec(text)?.[0];
  expect(link, text).toBeDefined();
  expect(text).toContain(`POST ${link}/accept`);

  // The link, as the invitee's client follows it against this service.
  const path = new URL(link!).pathname;
  const anonymous = apiClient(app, {});
  const preview = await anonymous.get(path);
  expect(preview.status).toBe(200);
  expect(preview.body).toMatchObject({ organization: { slug: t.slug }, email: u.email, status: 'pending' });
  const accepted = await apiClient(app, { authorization: `Bearer ${u.jwt}` }).post(`${path}/accept`);
  expect(accepted.status).toBe(200);
  expect(accepted.body.membership.user.email).toBe(u.email);
});
