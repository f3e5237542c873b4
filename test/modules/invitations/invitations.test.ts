import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import {
  addMember,
  apiClient,
  getApp,
  invitationMail,
  newTenant,
  type Res,
  registerUser,
  type Tenant,
  type TestUser,
  unique,
} from '../../helpers/app.js';

const userApi = (t: Tenant, user: TestUser) => apiClient(t.app, { authorization: `Bearer ${user.jwt}` });
const anonymous = (t: Tenant) => apiClient(t.app, {});
const memberEmails = async (t: Tenant) =>
  (await t.api.get('/memberships', { 'pagination[pageSize]': 100 })).body.data.map((m: any) => m.user.email);

async function expireInvitation(documentId: string) {
  const { db } = await getApp();
  await db.system.execute(
    sql`update invitations set expires_at = now() - interval '1 minute' where document_id = ${documentId}`,
  );
}

describe('invitations', () => {
  beforeAll(async () => {
    await getApp();
  });

  test('the answer is the same for an unknown address, a registered one and a member', async () => {
    const t = await newTenant();
    const registered = await registerUser(t.app);
    const member = await addMember(t, 'viewer');
    const stranger = `${unique('nobody')}@test.example`;
    const answers: Res[] = [];
    for (const email of [stranger, registered.email, member.user.email]) {
      answers.push(await t.api.post('/memberships', { data: { email, role: 'member' } }));
    }
    const shape = (res: (typeof answers)[number]) => ({
      status: res.status,
      keys: Object.keys(res.body).sort(),
      role: res.body.role,
      status_: res.body.status,
      invitedBy: res.body.invitedBy,
      documentId: typeof res.body.documentId,
      expiresIn: Math.round((Date.parse(res.body.expiresAt) - Date.now()) / 3_600_000),
    });
    expect(shape(answers[0])).toEqual({
      status: 202,
      keys: ['createdAt', 'documentId', 'email', 'expiresAt', 'invitedBy', 'role', 'status', 'updatedAt'],
      role: 'member',
      status_: 'pending',
      invitedBy: {
        documentId: t.membershipId,
        user: { username: t.user.username, email: t.user.email, blocked: false, name: null },
      },
      documentId: 'string',
      expiresIn: 7 * 24,
    });
    expect(shape(answers[1])).toEqual(shape(answers[0]));
    expect(shape(answers[2])).toEqual(shape(answers[0]));
    // Each address got its e-mail; nobody became a member by being invited.
    for (const email of [stranger, registered.email, member.user.email]) {
      const mail = await invitationMail(email);
      expect(mail.subject).toBe(`Invitation to join Org ${t.slug}`);
      expect(mail.text).toContain(`${t.user.username} invited you to join "Org ${t.slug}" as member`);
    }
    expect((await memberEmails(t)).sort()).toEqual([t.user.email, member.user.email].sort());
    // The existing member keeps its role.
    expect((await t.api.get(`/memberships/${member.membershipId}`)).body.role).toBe('viewer');
  });

  test('the e-mailed link shows the invitation and, accepted by the invitee, makes them a member', async () => {
    const t = await newTenant();
    const u = await registerUser(t.app);
    const invited = await t.api.post('/memberships', { data: { email: u.email, role: 'admin' } });
    expect(invited.status).toBe(202);
    const { link, path, token } = await invitationMail(u.email);
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:1337\/api\/invitations\/crm_inv_[0-9A-Za-z]{43}$/);

    // The link's holder sees where it leads before signing in.
    const preview = await anonymous(t).get(path);
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      organization: { documentId: expect.any(String), name: `Org ${t.slug}`, slug: t.slug },
      email: u.email,
      role: 'admin',
      status: 'pending',
      expiresAt: invited.body.expiresAt,
      invitedBy: { username: t.user.username },
    });
    // The token is never stored: only its hash.
    const { db } = await getApp();
    const stored = await queryRows<Record<string, unknown>>(
      db.system,
      sql`select * from invitations where document_id = ${invited.body.documentId}`,
    );
    expect(stored[0].token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(token);

    // Not a member before accepting.
    const memberApi = apiClient(t.app, { authorization: `Bearer ${u.jwt}`, 'x-tenant-id': t.slug });
    expect((await memberApi.get('/memberships')).status).toBe(403);
    expect((await t.api.get('/invitations')).body.data.map((i: any) => i.email)).toEqual([u.email]);

    const accepted = await userApi(t, u).post(`${path}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({
      organization: { name: `Org ${t.slug}`, slug: t.slug },
      membership: { role: 'admin', user: { email: u.email, username: u.username } },
    });
    expect((await memberApi.get('/memberships')).status).toBe(200);
    expect(await memberEmails(t)).toContain(u.email);
    expect((await userApi(t, u).get('/organizations')).body.data.map((o: any) => o.slug)).toEqual([t.slug]);
    // No longer pending; the link now reads as accepted.
    expect((await t.api.get('/invitations')).body.meta.pagination.total).toBe(0);
    expect((await anonymous(t).get(path)).body.status).toBe('accepted');
  });

  test('an address without an account accepts after registering with it', async () => {
    const t = await newTenant();
    const email = `${unique('later')}@test.example`;
    expect((await t.api.post('/memberships', { data: { email, role: 'member' } })).status).toBe(202);
    const { path } = await invitationMail(email);
    const register = await anonymous(t).post('/auth/local/register', {
      username: unique('u'),
      email,
      password: 'correct-horse-battery',
    });
    expect(register.status).toBe(200);
    const api = apiClient(t.app, { authorization: `Bearer ${register.body.jwt}` });
    const accepted = await api.post(`${path}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.membership.role).toBe('member');
  });

  test('another account cannot accept it (403, revealing nothing); the invitee still can', async () => {
    const t = await newTenant();
    const invitee = await registerUser(t.app);
    const other = await registerUser(t.app);
    await t.api.post('/memberships', { data: { email: invitee.email, role: 'member' } });
    const { path } = await invitationMail(invitee.email);
    const wrong = await userApi(t, other).post(`${path}/accept`);
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({
      data: null,
      error: {
        status: 403,
        name: 'ForbiddenError',
        message: 'This invitation is addressed to another account',
        details: {},
      },
    });
    expect(await memberEmails(t)).not.toContain(other.email);
    expect((await userApi(t, other).post(`${path}/decline`)).status).toBe(403);
    // Unauthenticated: 401; a token without account:write: 403.
    expect((await anonymous(t).post(`${path}/accept`)).status).toBe(401);
    const scoped = await userApi(t, invitee).post('/users/generate-token', {
      expiration: '1d',
      scopes: ['account:read'],
    });
    const readOnly = apiClient(t.app, { authorization: `Bearer ${scoped.body.token}` });
    expect((await readOnly.post(`${path}/accept`)).status).toBe(403);
    expect((await userApi(t, invitee).post(`${path}/accept`)).status).toBe(200);
  });

  test('accepting twice answers the same membership; a used link never re-adds a removed member', async () => {
    const t = await newTenant();
    const u = await registerUser(t.app);
    await t.api.post('/memberships', { data: { email: u.email, role: 'member' } });
    const { path } = await invitationMail(u.email);
    const first = await userApi(t, u).post(`${path}/accept`);
    const second = await userApi(t, u).post(`${path}/accept`);
    expect(second.status).toBe(200);
    expect(second.body.membership.documentId).toBe(first.body.membership.documentId);
    expect((await t.api.get('/memberships')).body.meta.pagination.total).toBe(2);

    expect((await t.api.delete(`/memberships/${first.body.membership.documentId}`)).status).toBe(200);
    const again = await userApi(t, u).post(`${path}/accept`);
    expect(again.status).toBe(422);
    expect(again.body.error).toMatchObject({
      name: 'UnprocessableEntityError',
      message: 'This invitation has already been used',
    });
    expect(await memberEmails(t)).not.toContain(u.email);
  });

  test('a revoked invitation cannot be accepted or seen', async () => {
    const t = await newTenant();
    const u = await registerUser(t.app);
    const invited = await t.api.post('/memberships', { data: { email: u.email, role: 'member' } });
    const { path } = await invitationMail(u.email);
    const revoked = await t.api.delete(`/invitations/${invited.body.documentId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ documentId: invited.body.documentId, deleted: true });
    const accept = await userApi(t, u).post(`${path}/accept`);
    expect(accept.status).toBe(404);
    expect(accept.body.error.name).toBe('NotFoundError');
    expect((await anonymous(t).get(path)).status).toBe(404);
    expect((await t.api.delete(`/invitations/${invited.body.documentId}`)).status).toBe(404);
    expect((await t.api.get('/invitations')).body.data).toEqual([]);
    expect(await memberEmails(t)).not.toContain(u.email);
  });

  test('an expired invitation fails; inviting again renews it with a new link', async () => {
    const t = await newTenant();
    const u = await registerUser(t.app);
    const invited = await t.api.post('/memberships', { data: { email: u.email, role: 'member' } });
    const old = await invitationMail(u.email);
    await expireInvitation(invited.body.documentId);
    const list = await t.api.get('/invitations');
    expect(list.body.data).toEqual([
      expect.objectContaining({ documentId: invited.body.documentId, status: 'expired' }),
    ]);
    expect((await anonymous(t).get(old.path)).body.status).toBe('expired');
    const late = await userApi(t, u).post(`${old.path}/accept`);
    expect(late.status).toBe(422);
    expect(late.body.error.message).toMatch(/expired/);
    expect(await memberEmails(t)).not.toContain(u.email);

    // Renewed: same invitation (no duplicate), new role and expiry, new link; the old one is dead.
    const renewed = await t.api.post('/memberships', { data: { email: u.email, role: 'viewer' } });
    expect(renewed.status).toBe(202);
    expect(renewed.body).toMatchObject({
      documentId: invited.body.documentId,
      status: 'pending',
      role: 'viewer',
    });
    expect((await t.api.get('/invitations')).body.meta.pagination.total).toBe(1);
    const fresh = await invitationMail(u.email);
    expect(fresh.token).not.toBe(old.token);
    expect((await userApi(t, u).post(`${old.path}/accept`)).status).toBe(404);
    const accepted = await userApi(t, u).post(`${fresh.path}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.membership.role).toBe('viewer');
  });

  test('declining uses the link up: no membership, accepting afterwards fails', async () => {
    const t = await newTenant();
    const u = await registerUser(t.app);
    await t.api.post('/memberships', { data: { email: u.email, role: 'member' } });
    const { path } = await invitationMail(u.email);
    const declined = await userApi(t, u).post(`${path}/decline`);
    expect(declined.status).toBe(200);
    expect(declined.body.status).toBe('declined');
    expect((await userApi(t, u).post(`${path}/decline`)).status).toBe(200);
    const accept = await userApi(t, u).post(`${path}/accept`);
    expect(accept.status).toBe(422);
    expect(await memberEmails(t)).not.toContain(u.email);
    expect((await t.api.get('/invitations')).body.data).toEqual([]);
    // A new invitation can be sent after a refusal.
    expect((await t.api.post('/memberships', { data: { email: u.email, role: 'member' } })).status).toBe(202);
    expect((await t.api.get('/invitations')).body.meta.pagination.total).toBe(1);
  });

  test('inviting, listing and revoking need an admin; the owner role only by owners', async () => {
    const t = await newTenant();
    const admin = await addMember(t, 'admin');
    const member = await addMember(t, 'member');
    const viewer = await addMember(t, 'viewer');
    const email = `${unique('x')}@test.example`;
    const byAdmin = await admin.api.post('/memberships', { data: { email, role: 'member' } });
    expect(byAdmin.status).toBe(202);
    expect(byAdmin.body.invitedBy.documentId).toBe(admin.membershipId);
    for (const who of [member, viewer]) {
      expect((await who.api.post('/memberships', { data: { email, role: 'member' } })).status).toBe(403);
      expect((await who.api.get('/invitations')).status).toBe(403);
      expect((await who.api.delete(`/invitations/${byAdmin.body.documentId}`)).status).toBe(403);
    }
    const ownerByAdmin = await admin.api.post('/memberships', { data: { email, role: 'owner' } });
    expect(ownerByAdmin.status).toBe(403);
    expect((await admin.api.get('/invitations')).body.data).toEqual([
      expect.objectContaining({ email, role: 'member' }),
    ]);
    expect((await t.api.post('/memberships', { data: { email, role: 'owner' } })).body.role).toBe('owner');
    expect((await admin.api.delete(`/invitations/${byAdmin.body.documentId}`)).status).toBe(200);
  });

  test('validation, list query and unknown links', async () => {
    const t = await newTenant();
    const bad = await t.api.post('/memberships', { data: { email: 'not-an-email', role: 'boss' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors.map((e: any) => e.path.join('.')).sort()).toEqual(['email', 'role']);
    const a = `${unique('a')}@test.example`;
    const b = `${unique('b')}@test.example`;
    await t.api.post('/memberships', { data: { email: a } });
    await t.api.post('/memberships', { data: { email: b, role: 'viewer' } });
    const viewers = await t.api.get('/invitations', { 'filters[role][$eq]': 'viewer' });
    expect(viewers.body.data.map((i: any) => i.email)).toEqual([b]);
    expect(
      (await t.api.get('/invitations', { sort: 'email:asc' })).body.data.map((i: any) => i.email),
    ).toEqual([a, b].sort());
    const page = await t.api.get('/invitations', { 'pagination[pageSize]': 1 });
    expect(page.body.meta.pagination).toEqual({ page: 1, pageSize: 1, pageCount: 2, total: 2 });
    expect((await t.api.get('/invitations', { 'filters[tokenHash][$eq]': 'x' })).status).toBe(400);
    expect((await t.api.get('/invitations', { 'filters[nope][$eq]': 'x' })).status).toBe(400);
    // Unknown links: 404 in the envelope, for every verb.
    const u = await registerUser(t.app);
    for (const path of ['/invitations/crm_inv_nothing', `/invitations/${'z'.repeat(24)}`]) {
      expect((await anonymous(t).get(path)).body.error.name).toBe('NotFoundError');
      expect((await userApi(t, u).post(`${path}/accept`)).status).toBe(404);
      expect((await userApi(t, u).post(`${path}/decline`)).status).toBe(404);
    }
  });
});
