import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { queueNameIn } from '../../../src/platform/jobs/jobs.js';
import { type MailJob, openMail } from '../../../src/platform/mail/mailer.js';
import { secretBox } from '../../../src/platform/secrets/encryption.js';
import { apiClient, getApp, registerUser, type TestUser } from '../../helpers/app.js';

/**
 * Passwords (docs/security.md, "Passwords"): a forgotten one reset through the e-mailed code, a known one changed;
 * either ends the sessions issued before. Strapi's routes: /auth/forgot-password, /auth/reset-password,
 * /auth/change-password.
 */

let ctx: Awaited<ReturnType<typeof getApp>>;
const anon = () => apiClient(ctx.app, {});
const as = (jwt: string) => apiClient(ctx.app, { authorization: `Bearer ${jwt}` });
const mailQueue = () => queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', 'mail-send');

/** Takes the reset mails queued for `email` out of the queue (the test's mailbox), bodies opened. */
async function resetMails(email: string) {
  const rows = await queryRows<{ data: MailJob }>(
    ctx.db.system,
    sql`delete from pgboss.job where name = ${mailQueue()} and data->>'to' = ${email} returning data`,
  );
  return Promise.all(rows.map((r) => openMail(r.data, () => secretBox(ctx.config, ctx.db))));
}

/** Asks for a reset and returns the code of the e-mailed link (and the queued job, before it is taken). */
async function askReset(user: TestUser) {
  const res = await anon().post('/auth/forgot-password', { email: user.email.toUpperCase() });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toEqual({ ok: true });
  const [queued] = await queryRows<{ data: Record<string, unknown> }>(
    ctx.db.system,
    sql`select data from pgboss.job where name = ${mailQueue()} and data->>'to' = ${user.email}`,
  );
  const mails = await resetMails(user.email);
  expect(mails).toHaveLength(1);
  const code = /\/app\/reset-password\?code=(crm_pwr_\w+)/.exec(mails[0].text)?.[1];
  expect(code, mails[0].text).toBeDefined();
  return { code: code!, queued: queued.data };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  ctx = await getApp();
});

describe('passwords', () => {
  test('a forgotten password is reset with the e-mailed code, once; older sessions end', async () => {
    const user = await registerUser(ctx.app);
    // A session from before the reset (issued at least a second earlier).
    await pause(1100);
    const { code, queued } = await askReset(user);
    // The code is never stored in clear: the users row has its hash, the queued mail its body sealed.
    const [row] = await queryRows<{ password_reset_hash: string }>(
      ctx.db.system,
      sql`select password_reset_hash from users where id = ${user.id}`,
    );
    expect(row.password_reset_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(queued)).not.toContain(code);
    expect(queued).toHaveProperty('sealed');

    const mismatch = await anon().post('/auth/reset-password', {
      code,
      password: 'a-new-password-1',
      passwordConfirmation: 'a-new-password-2',
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.message).toMatch(/do not match/);

    const reset = await anon().post('/auth/reset-password', {
      code,
      password: 'a-new-password-1',
      passwordConfirmation: 'a-new-password-1',
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body.user).toMatchObject({ id: user.id, email: user.email });
    expect((await as(reset.body.jwt).get('/users/me')).status).toBe(200);
    // The session from before is over; the old password no longer signs in, the new one does.
    expect((await as(user.jwt).get('/users/me')).status).toBe(401);
    expect(
      (await anon().post('/auth/local', { identifier: user.email, password: user.password })).status,
    ).toBe(400);
    expect(
      (await anon().post('/auth/local', { identifier: user.email, password: 'a-new-password-1' })).status,
    ).toBe(200);
    // Used once.
    const again = await anon().post('/auth/reset-password', {
      code,
      password: 'another-password',
      passwordConfirmation: 'another-password',
    });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/Incorrect code provided/);
  });

  test('an unknown address gets the same answer and no mail; an expired or replaced code is refused', async () => {
    const unknown = `nobody-${Date.now()}@test.example`;
    const res = await anon().post('/auth/forgot-password', { email: unknown });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await resetMails(unknown)).toEqual([]);

    const user = await registerUser(ctx.app);
    const first = await askReset(user);
    // A minute's cooldown per address: asked again at once, nothing is sent and the first link stands.
    expect((await anon().post('/auth/forgot-password', { email: user.email })).body).toEqual({ ok: true });
    expect(await resetMails(user.email)).toEqual([]);
    await ctx.db.system.execute(
      sql`update users set password_reset_expires_at = password_reset_expires_at - interval '2 minutes' where id = ${user.id}`,
    );
    const second = await askReset(user);
    const body = (code: string) => ({
      code,
      password: 'brand-new-pass',
      passwordConfirmation: 'brand-new-pass',
    });
    // A newer request replaces the older code.
    expect((await anon().post('/auth/reset-password', body(first.code))).status).toBe(400);
    await ctx.db.system.execute(
      sql`update users set password_reset_expires_at = now() - interval '1 second' where id = ${user.id}`,
    );
    expect((await anon().post('/auth/reset-password', body(second.code))).status).toBe(400);
    expect((await anon().post('/auth/reset-password', body('crm_pwr_nonsense'))).status).toBe(400);
    // Nothing changed: the first session and the old password still work.
    expect((await as(user.jwt).get('/users/me')).status).toBe(200);
    expect(
      (await anon().post('/auth/local', { identifier: user.username, password: user.password })).status,
    ).toBe(200);
  });

  test('a blocked account gets no mail', async () => {
    const user = await registerUser(ctx.app);
    await ctx.db.system.execute(sql`update users set blocked = true where id = ${user.id}`);
    expect((await anon().post('/auth/forgot-password', { email: user.email })).status).toBe(200);
    expect(await resetMails(user.email)).toEqual([]);
  });

  test('a password is changed with the current one, from a session; other sessions end', async () => {
    const user = await registerUser(ctx.app);
    const other = (await anon().post('/auth/local', { identifier: user.email, password: user.password })).body
      .jwt as string;
    await pause(1100);
    const change = (jwt: string, body: Record<string, unknown>) =>
      as(jwt).post('/auth/change-password', body);
    const wrong = await change(user.jwt, {
      currentPassword: 'not-it',
      password: 'changed-password',
      passwordConfirmation: 'changed-password',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/current password is invalid/);
    const same = await change(user.jwt, {
      currentPassword: user.password,
      password: user.password,
      passwordConfirmation: user.password,
    });
    expect(same.status).toBe(400);
    const short = await change(user.jwt, {
      currentPassword: user.password,
      password: 'short',
      passwordConfirmation: 'short',
    });
    expect(short.status).toBe(400);
    // An API token cannot change the password.
    const token = (await as(user.jwt).post('/users/generate-token', { expiration: '1d' })).body
      .token as string;
    const byToken = await as(token).post('/auth/change-password', {
      currentPassword: user.password,
      password: 'changed-password',
      passwordConfirmation: 'changed-password',
    });
    expect(byToken.status).toBe(403);

    const ok = await change(user.jwt, {
      currentPassword: user.password,
      password: 'changed-password',
      passwordConfirmation: 'changed-password',
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await as(ok.body.jwt).get('/users/me')).status).toBe(200);
    expect((await as(user.jwt).get('/users/me')).status).toBe(401);
    expect((await as(other).get('/users/me')).status).toBe(401);
    // API tokens stay.
    expect((await as(token).get('/users/me')).status).toBe(200);
    expect(
      (await anon().post('/auth/local', { identifier: user.email, password: 'changed-password' })).status,
    ).toBe(200);
    // Unauthenticated: 401.
    expect((await anon().post('/auth/change-password', {})).status).toBe(401);
  });
});
