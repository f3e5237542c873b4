import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { storagePath } from '../../../src/modules/cards/index.js';
import { exportFilePath } from '../../../src/modules/privacy/links.js';
import { type Database, queryRows } from '../../../src/platform/db/client.js';
import { queueNameIn } from '../../../src/platform/jobs/jobs.js';
import { getApp, newTenant, type TestContext } from '../../helpers/app.js';
import { createPerson, person, personCard, runRequest, unzip } from './helpers.js';

/**
 * The review of issue 33 (docs/lgpd.md, "Request states"): an export and an erasure of the same person take turns;
 * what fails after an erasure committed is a warning on a done request; mail jobs name their organization, so the
 * erasure's sweep of the job queue leaves another organization's mail alone.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await getApp();
});

const orgIdOf = async (slug: string) =>
  Number(
    (
      await queryRows<{ id: number }>(ctx.db.system, sql`select id from organizations where slug = ${slug}`)
    )[0].id,
  );

const status = async (t: { api: { get: (p: string) => Promise<{ body: any }> } }, doc: string) =>
  (await t.api.get(`/privacy-requests/${doc}`)).body;

/** The test database with a hook run before its `n`th tenant transaction (outside any transaction). */
function hookedDb(n: number, hook: () => Promise<void>): Database {
  let calls = 0;
  return {
    ...ctx.db,
    tenantTransaction: async (orgId, fn, opts) => {
      if (++calls === n) await hook();
      return ctx.db.tenantTransaction(orgId, fn, opts);
    },
  };
}

describe('an export and an erasure of the same person', () => {
  test('an erasure while the export is being written fails the export: nothing published, no link, no file', async () => {
    const t = await newTenant();
    const p = person();
    const contact = await createPerson(t.api, p);
    await t.api.post(`/contacts/${contact}/notes`, { data: { description: `Met ${p.name}` } });
    const { documentId: exp, downloadUrl } = (await t.api.post(`/contacts/${contact}/data-export`)).body;
    const era = (await t.api.post(`/contacts/${contact}/erase`, { confirm: contact })).body.documentId;

    // The export's job: its claim (1st transaction), the contact's page as JSON (2nd), then the erasure runs
    // whole before the export reads on — the zip holds the contact as it was before the erasure.
    await runRequest(t, exp, { db: hookedDb(3, async () => void (await runRequest(t, era))) });

    const after = await status(t, exp);
    expect(after).toMatchObject({ status: 'failed', downloadUrl: null, fileBytes: null });
    expect(after.error).toMatch(/erased while this export was being made/);
    expect(existsSync(exportFilePath(ctx.config, await orgIdOf(t.slug), exp))).toBe(false);
    const refused = await ctx.app.inject({ method: 'GET', url: downloadUrl });
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error.message).toMatch(/failed/);
    expect(await status(t, era)).toMatchObject({ status: 'done', warnings: [] });
  });

  test('an export done before the erasure is expired by it: its link is refused', async () => {
    const t = await newTenant();
    const contact = await createPerson(t.api, person());
    const { documentId: exp, downloadUrl } = (await t.api.post(`/contacts/${contact}/data-export`)).body;
    await runRequest(t, exp);
    expect((await ctx.app.inject({ method: 'HEAD', url: downloadUrl })).statusCode).toBe(200);
    const era = (await t.api.post(`/contacts/${contact}/erase`, { confirm: contact })).body.documentId;
    await runRequest(t, era);
    expect(await status(t, exp)).toMatchObject({ status: 'done', downloadedAt: null });
    const refused = await ctx.app.inject({ method: 'GET', url: downloadUrl });
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error.message).toMatch(/expired/);
  });

  test.skipIf(!process.env.DATABASE_URL)(
    'PostgreSQL: an export whose job starts inside an erasure transaction waits for it and reads what it left',
    async () => {
      const t = await newTenant();
      const p = person();
      const contact = await createPerson(t.api, p);
      const orgId = await orgIdOf(t.slug);
      const { documentId: exp, downloadUrl } = (await t.api.post(`/contacts/${contact}/data-export`)).body;
      const [c] = await queryRows<{ id: number }>(
        ctx.db.system,
        sql`select id from contacts where document_id = ${contact}`,
      );
      // Another connection plays the erasure's transaction: the person's lock, then the change, then commit.
      let release: () => void = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      let locked: () => void = () => {};
      const isLocked = new Promise<void>((r) => {
        locked = r;
      });
      const erasure = ctx.db.tenantTransaction(orgId, async (tx) => {
        await tx.execute(
          sql`select pg_advisory_xact_lock(hashtextextended(${`privacy:${orgId}:${Number(c.id)}`}, 0))`,
        );
        await tx.execute(sql`update contacts set name = 'Erased contact', email = null where id = ${c.id}`);
        locked();
        await held;
      });
      await isLocked;
      const job = runRequest(t, exp);
      await new Promise((r) => setTimeout(r, 300));
      expect((await status(t, exp)).status).toBe('queued');
      release();
      await erasure;
      await job;
      const done = await status(t, exp);
      expect(done.status).toBe('done');
      const zip = unzip((await ctx.app.inject({ method: 'GET', url: downloadUrl })).rawPayload);
      expect(zip.json('contact.json')[0]).toMatchObject({ name: 'Erased contact', email: null });
      expect(zip.text('contact.json')).not.toContain(p.name);
    },
  );
});

describe('an erasure that committed is done, whatever fails after', () => {
  test('an upload that cannot be removed from disk: done, with a warning', async () => {
    const t = await newTenant();
    const p = person();
    const contact = await createPerson(t.api, p);
    await personCard(t, contact, p);
    const [file] = await queryRows<{ storage_key: string }>(
      ctx.db.system,
      sql`select storage_key from card_files where organization_id = ${await orgIdOf(t.slug)}`,
    );
    // A directory where the file was: unlink fails (EISDIR), as a file on a read-only disk would.
    const path = storagePath(ctx.config, file.storage_key);
    rmSync(path);
    mkdirSync(path);
    writeFileSync(join(path, 'keep'), 'x');
    const era = (await t.api.post(`/contacts/${contact}/erase`, { confirm: contact })).body.documentId;
    await runRequest(t, era);
    const done = await status(t, era);
    expect(done).toMatchObject({ status: 'done', error: null, summary: { files: 1, contact: 1 } });
    expect(done.warnings).toEqual([expect.stringMatching(/^1 of 1 uploaded files could not be removed/)]);
    expect((await t.api.get(`/contacts/${contact}`)).body.name).toBe('Erased contact');
    rmSync(path, { recursive: true });
  });

  test('the job queue cannot be swept: done, with a warning (not failed)', async () => {
    const t = await newTenant();
    const contact = await createPerson(t.api, person());
    const era = (await t.api.post(`/contacts/${contact}/erase`, { confirm: contact })).body.documentId;
    // The system connection fails once the erasure's transaction (the 2nd, after the claim) has committed.
    let failing = false;
    const system = new Proxy(ctx.db.system, {
      get(target, prop) {
        if (prop === 'execute' && failing)
          return async () => {
            throw new Error('connection lost');
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    let calls = 0;
    const db: Database = {
      ...ctx.db,
      system,
      tenantTransaction: async (orgId, fn, opts) => {
        const result = await ctx.db.tenantTransaction(orgId, fn, opts);
        if (++calls === 2) failing = true;
        return result;
      },
    };
    await runRequest(t, era, { db });
    const done = await status(t, era);
    expect(done).toMatchObject({ status: 'done', error: null });
    expect(done.warnings).toEqual([
      expect.stringMatching(/job queue's copies were not swept \(connection lost\)/),
    ]);
    expect((await t.api.get(`/contacts/${contact}`)).body.name).toBe('Erased contact');
  });
});

describe('mail jobs name their organization', () => {
  test("the erasure scrubs its organization's queued mail to the person, never another organization's", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const p = person();
    const contact = await createPerson(a.api, p);
    for (const t of [a, b])
      expect((await t.api.post('/memberships', { data: { email: p.email, role: 'member' } })).status).toBe(
        202,
      );
    const [orgA, orgB] = [await orgIdOf(a.slug), await orgIdOf(b.slug)];
    const mails = () =>
      queryRows<{ org: string; to: string }>(
        ctx.db.system,
        sql`select data->>'orgId' as org, data->>'to' as "to" from pgboss.job
            where name = ${queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', 'mail-send')}
              and data->>'orgId' in (${String(orgA)}, ${String(orgB)}) order by (data->>'orgId')::bigint`,
      );
    expect(await mails()).toEqual([
      { org: String(orgA), to: p.email },
      { org: String(orgB), to: p.email },
    ]);
    await runRequest(
      a,
      (await a.api.post(`/contacts/${contact}/erase`, { confirm: contact })).body.documentId,
    );
    expect(await mails()).toEqual([
      { org: String(orgA), to: '[erased]' },
      { org: String(orgB), to: p.email },
    ]);
    await ctx.db.system.execute(
      sql`delete from pgboss.job where data->>'orgId' in (${String(orgA)}, ${String(orgB)})`,
    );
  });
});
