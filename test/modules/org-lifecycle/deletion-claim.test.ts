import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  claimDeletion,
  deleteDueOrganizations,
  deleteOrganizationData,
} from '../../../src/modules/org-lifecycle/deletion.js';
import { type Database, queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant, type Tenant, type TestContext } from '../../helpers/app.js';

/**
 * The review of issue 33 (docs/lgpd.md, "Deletion"): the deletion job claims the organization in one statement;
 * once claimed the deletion cannot be cancelled and the organization takes no writes; the deletion takes its
 * background jobs and OAuth records with it.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await getApp();
});

const orgOf = async (t: Tenant) =>
  (
    await queryRows<{ id: number; document_id: string }>(
      ctx.db.system,
      sql`select id, document_id from organizations where slug = ${t.slug}`,
    )
  )[0]!;

const count = async (query: ReturnType<typeof sql>) =>
  (await queryRows<{ n: number }>(ctx.db.system, query))[0]!.n;

/** Scheduled, and due since a second ago (so only this organization is due among the test's). */
async function dueOrganization(t: Tenant) {
  const org = await orgOf(t);
  expect((await t.userApi.post(`/organizations/${org.document_id}/deletion`)).status).toBe(202);
  await ctx.db.system.execute(
    sql`update organizations set deletion_scheduled_at = now() - interval '1 second' where id = ${org.id}`,
  );
  return { id: Number(org.id), doc: org.document_id };
}

describe('an organization being deleted', () => {
  it('is claimed first: a cancel is then a 409, writes are refused (reads still work), and the deletion ends', async () => {
    const t = await newTenant();
    const org = await dueOrganization(t);
    expect((await t.api.post('/contacts', { data: { name: 'Before' } })).status).toBe(201);
    expect(await claimDeletion(ctx.db.system, org.id)).toBe(true);

    // While the rows go (before the deletion's first tenant transaction): what the owner and members can do.
    const seen: Record<string, { status: number; body: any }> = {};
    const db: Database = {
      ...ctx.db,
      tenantTransaction: async (orgId, fn, opts) => {
        if (!seen.cancel) {
          seen.cancel = await t.userApi.delete(`/organizations/${org.doc}/deletion`);
          seen.write = await t.api.post('/contacts', { data: { name: 'During' } });
          seen.read = await t.api.get('/contacts');
          seen.export = await t.userApi.post(`/organizations/${org.doc}/export`);
          seen.settings = await t.userApi.put(`/organizations/${org.doc}`, { data: { name: 'Renamed' } });
        }
        return ctx.db.tenantTransaction(orgId, fn, opts);
      },
    };
    await deleteOrganizationData(db, ctx.config, org.id);

    expect(seen.cancel!.status).toBe(409);
    expect(seen.cancel!.body.error.message).toMatch(
      /being deleted: its deletion started and can no longer be cancelled/,
    );
    expect(seen.write!.status).toBe(409);
    expect(seen.write!.body).toMatchObject({
      data: null,
      error: { name: 'ConflictError', details: { organizationDeletion: 'in_progress' } },
    });
    expect(seen.write!.body.error.message).toMatch(/^This organization is being deleted/);
    expect(seen.read!.status).toBe(200);
    expect(seen.export!.status).toBe(409);
    expect(seen.settings!.status).toBe(409);
    expect(seen.settings!.body.error.details).toEqual({ organizationDeletion: 'in_progress' });
    expect(await count(sql`select count(*)::int as n from organizations where id = ${org.id}`)).toBe(0);
    expect(await count(sql`select count(*)::int as n from contacts where organization_id = ${org.id}`)).toBe(
      0,
    );
  });

  it('a cancel that committed first leaves nothing to claim', async () => {
    const t = await newTenant();
    const org = await dueOrganization(t);
    expect((await t.userApi.delete(`/organizations/${org.doc}/deletion`)).status).toBe(200);
    expect(await claimDeletion(ctx.db.system, org.id)).toBe(false);
    expect((await t.api.post('/contacts', { data: { name: 'Still here' } })).status).toBe(201);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'PostgreSQL: a cancel in flight when the job looks for due organizations wins, and nothing is deleted',
    async () => {
      const t = await newTenant();
      const org = await dueOrganization(t);
      expect((await t.api.post('/contacts', { data: { name: 'Kept' } })).status).toBe(201);
      // The cancel's transaction (another connection): the organization's row locked, as the route locks it.
      let release: () => void = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      let locked: () => void = () => {};
      const isLocked = new Promise<void>((r) => {
        locked = r;
      });
      const cancel = ctx.db.system.transaction(async (tx) => {
        await tx.execute(sql`select id from organizations where id = ${org.id} for update`);
        locked();
        await held;
        await tx.execute(
          sql`update organizations set deletion_scheduled_at = null, deletion_requested_by = null where id = ${org.id}`,
        );
      });
      await isLocked;
      const job = deleteDueOrganizations(ctx.db, ctx.config);
      await new Promise((r) => setTimeout(r, 300));
      release();
      await cancel;
      expect(await job).not.toContain(org.id);
      expect(
        await count(sql`select count(*)::int as n from contacts where organization_id = ${org.id}`),
      ).toBe(1);
      expect((await t.api.post('/contacts', { data: { name: 'Writes work' } })).status).toBe(201);
    },
  );

  it("takes the organization's background jobs and OAuth records with it, no other organization's", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const [mine, theirs] = [await orgOf(t), await orgOf(other)];
    // Jobs that name the organization: a privacy request's, an invitation's mail (then the deletion notice).
    const contact = await t.api.post('/contacts', { data: { name: 'Ana' } });
    expect((await t.api.post(`/contacts/${contact.body.documentId}/data-export`)).status).toBe(202);
    expect(
      (await t.api.post('/memberships', { data: { email: 'x@lgpd.example', role: 'member' } })).status,
    ).toBe(202);
    expect(
      (await other.api.post('/memberships', { data: { email: 'y@lgpd.example', role: 'member' } })).status,
    ).toBe(202);
    // OAuth: a grant of an account in the organization, a token under it, what Settings shows, a session.
    const grant = randomBytes(8).toString('hex');
    const otherGrant = randomBytes(8).toString('hex');
    const account = `${t.user.id}.${mine.id}`;
    await ctx.db.system.execute(sql`
      insert into oauth_records (kind, id, payload, grant_id, user_id) values
        ('Grant', ${grant}, ${JSON.stringify({ accountId: account })}::jsonb, null, ${t.user.id}),
        ('AccessToken', ${`at-${grant}`}, ${JSON.stringify({ accountId: account, grantId: grant })}::jsonb, ${grant}, null),
        ('RefreshToken', ${`rt-${grant}`}, ${JSON.stringify({ grantId: grant })}::jsonb, ${grant}, null),
        ('GrantInfo', ${grant}, ${JSON.stringify({ organizationId: Number(mine.id) })}::jsonb, ${grant}, ${t.user.id}),
        ('Session', ${`s-${grant}`}, ${JSON.stringify({ accountId: account })}::jsonb, null, null),
        ('Grant', ${otherGrant}, ${JSON.stringify({ accountId: `${t.user.id}.${theirs.id}` })}::jsonb, null, ${t.user.id}),
        ('Grant', ${`${otherGrant}x`}, ${JSON.stringify({ accountId: `${t.user.id}.${mine.id}0` })}::jsonb, null, ${t.user.id})`);
    const jobsOf = (id: number) =>
      count(sql`select ((select count(*) from pgboss.job where data->>'orgId' = ${String(id)})
                       + (select count(*) from pgboss.archive where data->>'orgId' = ${String(id)}))::int as n`);
    const oauthOf = () =>
      count(sql`select count(*)::int as n from oauth_records
                where id in (${grant}, ${`at-${grant}`}, ${`rt-${grant}`}, ${`s-${grant}`})`);
    expect(await jobsOf(Number(mine.id))).toBe(2);
    expect(await oauthOf()).toBe(5);
    const otherJobs = await jobsOf(Number(theirs.id));
    expect(otherJobs).toBeGreaterThanOrEqual(1);

    const org = await dueOrganization(t);
    expect(await deleteDueOrganizations(ctx.db, ctx.config)).toContain(org.id);
    expect(await jobsOf(org.id)).toBe(0);
    expect(await oauthOf()).toBe(0);
    expect(await jobsOf(Number(theirs.id))).toBe(otherJobs);
    expect(
      await count(
        sql`select count(*)::int as n from oauth_records where id in (${otherGrant}, ${`${otherGrant}x`})`,
      ),
    ).toBe(2);
    await ctx.db.system.execute(
      sql`delete from oauth_records where id in (${otherGrant}, ${`${otherGrant}x`})`,
    );
    await ctx.db.system.execute(sql`delete from pgboss.job where data->>'orgId' = ${String(theirs.id)}`);
  });
});
