import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import type { Config } from '../../../src/config.js';
import { deleteBoard } from '../../../src/modules/boards/service.js';
import {
  reserveStorage,
  storagePath,
  sweepUploads,
  uploadSweepQueue,
  uploadsDir,
} from '../../../src/modules/cards/files.js';
import * as repo from '../../../src/modules/cards/repo.js';
import { deleteCard } from '../../../src/modules/cards/service.js';
import { type Database, queryRows } from '../../../src/platform/db/client.js';
import { newDocumentId } from '../../../src/platform/db/ids.js';
import { queueNameIn } from '../../../src/platform/jobs/jobs.js';
import { makeTenantContext, type TenantContext } from '../../../src/platform/tenancy/context.js';
import { startJobs } from '../../../src/workers.js';
import { getApp, newTenant, type Tenant, testConfig } from '../../helpers/app.js';
import { createPipeline, errorPaths, multipart } from './factory.js';

async function upload(app: FastifyInstance, boardId: string, content: Buffer | string, name = 'a.txt') {
  const res = await app.inject({
    method: 'POST',
    url: `/api/boards/${boardId}/public-upload`,
    ...multipart('file', name, 'text/plain', Buffer.from(content)),
  });
  return { status: res.statusCode, body: res.json() };
}

async function orgIdOf(db: Database, slug: string): Promise<number> {
  const [row] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${slug}`,
  );
  return Number(row.id);
}

/** A tenant with a board whose entry form has a file field `cv`, and the organization's upload directory. */
async function fileBoard(t?: Tenant) {
  const { db, config } = await getApp();
  const tenant = t ?? (await newTenant());
  const p = await createPipeline(tenant.api);
  const field = await tenant.api.post(`/boards/${p.boardId}/fields`, {
    data: { label: 'CV', slug: 'cv', type: 'file', phase: 'lead' },
  });
  expect(field.status).toBe(201);
  const orgId = await orgIdOf(db, tenant.slug);
  const onDisk = (documentId: string) => existsSync(storagePath(config, `${orgId}/${documentId}`));
  return { t: tenant, boardId: p.boardId, orgId, onDisk };
}

async function cardWith(t: Tenant, boardId: string, files: string[]) {
  const res = await t.api.post(`/boards/${boardId}/cards`, {
    data: { fields: { name: 'Ana', email: 'ana@example.com', cv: files } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.documentId as string;
}

/** The owner's context with a transaction that fails after the service's work, as a failed commit would. */
async function failingContext(db: Database, t: Tenant): Promise<TenantContext> {
  const orgId = await orgIdOf(db, t.slug);
  const [m] = await queryRows<{ id: number; document_id: string }>(
    db.system,
    sql`select id, document_id from memberships where organization_id = ${orgId} and user_id = ${t.user.id}`,
  );
  const ctx = makeTenantContext(db, {
    orgId,
    orgSlug: t.slug,
    plan: 'business',
    userId: t.user.id,
    membershipId: Number(m.id),
    membershipDocumentId: m.document_id,
    role: 'owner',
    scopes: null,
  });
  return {
    ...ctx,
    transaction: (fn) =>
      db.tenantTransaction(orgId, async (tx) => {
        await fn(tx);
        throw new Error('the commit failed');
      }),
  };
}

const rowCount = async (db: Database, orgId: number) =>
  Number(
    (
      await queryRows<{ n: number }>(
        db.system,
        sql`select count(*)::int as n from card_files where organization_id = ${orgId}`,
      )
    )[0].n,
  );

describe('files go with their card and board', () => {
  test('deleting a card removes its files from disk after the commit; other cards keep theirs', async () => {
    const { app } = await getApp();
    const { t, boardId, onDisk } = await fileBoard();
    const [f1, f2, f3] = await Promise.all(['one', 'two', 'three'].map((c) => upload(app, boardId, c)));
    const a = await cardWith(t, boardId, [f1.body.documentId, f2.body.documentId]);
    const b = await cardWith(t, boardId, [f3.body.documentId]);
    // A file belongs to the card that took it: another card cannot take it too; the card itself may resend it.
    const steal = await t.api.put(`/boards/${boardId}/cards/${b}`, {
      data: { fields: { cv: [f1.body.documentId] } },
    });
    expect(steal.status).toBe(400);
    expect(errorPaths(steal.body)).toEqual(['fields.cv']);
    expect(steal.body.error.details.errors[0].message).toContain('belongs to another card');
    const again = await t.api.put(`/boards/${boardId}/cards/${a}`, { data: { fields: { cv: [f1.body] } } });
    expect(again.status).toBe(200);

    expect([f1, f2, f3].map((f) => onDisk(f.body.documentId))).toEqual([true, true, true]);
    expect((await t.api.delete(`/boards/${boardId}/cards/${a}`)).status).toBe(200);
    expect([f1, f2, f3].map((f) => onDisk(f.body.documentId))).toEqual([false, false, true]);
    expect((await t.api.get(`/boards/${boardId}/files/${f1.body.documentId}`)).status).toBe(404);
    const kept = await t.api.get(`/boards/${boardId}/files/${f3.body.documentId}`);
    expect(kept.status).toBe(200);
    expect(kept.body).toBe('three');
  });

  test('deleting a board removes every file uploaded to it, attached or not; another board keeps its own', async () => {
    const { app } = await getApp();
    const { t, boardId, onDisk } = await fileBoard();
    const other = await fileBoard(t);
    const attached = await upload(app, boardId, 'attached');
    const loose = await upload(app, boardId, 'loose');
    const elsewhere = await upload(app, other.boardId, 'elsewhere');
    await cardWith(t, boardId, [attached.body.documentId]);
    expect((await t.api.delete(`/boards/${boardId}`)).status).toBe(200);
    expect(onDisk(attached.body.documentId)).toBe(false);
    expect(onDisk(loose.body.documentId)).toBe(false);
    expect(onDisk(elsewhere.body.documentId)).toBe(true);
    expect((await t.api.get(`/boards/${other.boardId}/files/${elsewhere.body.documentId}`)).status).toBe(200);
  });

  test('a card or board delete that rolls back keeps the files and their rows', async () => {
    const { app, db, config } = await getApp();
    const { t, boardId, orgId, onDisk } = await fileBoard();
    const f = await upload(app, boardId, 'keep me');
    const loose = await upload(app, boardId, 'keep me too');
    const card = await cardWith(t, boardId, [f.body.documentId]);
    const ctx = await failingContext(db, t);

    await expect(deleteCard(ctx, config, boardId, card)).rejects.toThrow('the commit failed');
    expect(onDisk(f.body.documentId)).toBe(true);
    expect((await t.api.get(`/boards/${boardId}/cards/${card}`)).status).toBe(200);
    expect((await t.api.get(`/boards/${boardId}/files/${f.body.documentId}`)).body).toBe('keep me');

    await expect(deleteBoard(ctx, config, boardId)).rejects.toThrow('the commit failed');
    expect(onDisk(f.body.documentId)).toBe(true);
    expect(onDisk(loose.body.documentId)).toBe(true);
    expect(await rowCount(db, orgId)).toBe(2);
    expect((await t.api.get(`/boards/${boardId}/files/${loose.body.documentId}`)).body).toBe('keep me too');
  });

  test('a file whose row remains but whose content is gone downloads as 404, not a broken stream', async () => {
    const { app, config } = await getApp();
    const { t, boardId, orgId } = await fileBoard();
    const f = await upload(app, boardId, 'soon gone');
    const { unlinkSync } = await import('node:fs');
    unlinkSync(storagePath(config, `${orgId}/${f.body.documentId}`));
    const res = await t.api.get(`/boards/${boardId}/files/${f.body.documentId}`);
    expect(res.status).toBe(404);
    expect(res.body.error.name).toBe('NotFoundError');
  });
});

describe('per-organization storage quota', () => {
  const apps: FastifyInstance[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });
  async function quotaApp(quota: number) {
    const { db } = await getApp();
    const app = await buildApp({ config: testConfig({ CRM_ORG_STORAGE_QUOTA_BYTES: quota }), db });
    apps.push(app);
    await app.ready();
    return app;
  }
  const filesIn = (config: Config, orgId: number) => {
    const dir = join(uploadsDir(config), String(orgId));
    return existsSync(dir) ? readdirSync(dir).length : 0;
  };

  test('an upload beyond the quota is a 413 envelope with quota and usage, and nothing is stored', async () => {
    const { db, config } = await getApp();
    const app = await quotaApp(1000);
    const { t, boardId, orgId } = await fileBoard();
    expect((await upload(app, boardId, 'a'.repeat(600))).status).toBe(201);
    const over = await upload(app, boardId, 'b'.repeat(500));
    expect(over.status).toBe(413);
    expect(over.body).toEqual({
      data: null,
      error: {
        status: 413,
        name: 'PayloadTooLargeError',
        message: expect.stringMatching(/storage quota .* used up/),
        details: { quotaBytes: 1000, usedBytes: 600, fileBytes: 500 },
      },
    });
    expect(filesIn(config, orgId)).toBe(1);
    expect(await rowCount(db, orgId)).toBe(1);
    // Exactly up to the quota is fine; then the next upload is refused before its content is stored.
    const last = await upload(app, boardId, 'c'.repeat(400));
    expect(last.status).toBe(201);
    const full = await upload(app, boardId, 'd');
    expect(full.status).toBe(413);
    expect(full.body.error.details).toEqual({ quotaBytes: 1000, usedBytes: 1000 });
    expect(filesIn(config, orgId)).toBe(2);
    expect(await rowCount(db, orgId)).toBe(2);
    // Usage comes from the rows: deleting the board frees the room.
    expect((await t.api.delete(`/boards/${boardId}`)).status).toBe(200);
    const fresh = await fileBoard(t);
    expect((await upload(app, fresh.boardId, 'e'.repeat(900))).status).toBe(201);
  });

  test('concurrent uploads never overshoot the quota', async () => {
    const { db, config } = await getApp();
    const app = await quotaApp(1000);
    const { boardId, orgId } = await fileBoard();
    const results = await Promise.all(Array.from({ length: 6 }, () => upload(app, boardId, 'x'.repeat(300))));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 413, 413, 413]);
    const [{ used }] = await queryRows<{ used: number }>(
      db.system,
      sql`select sum(size)::int as used from card_files where organization_id = ${orgId}`,
    );
    expect(Number(used)).toBe(900);
    expect(filesIn(config, orgId)).toBe(3);
  });

  test('the quota check holds its organization until the row is committed (a slow transaction cannot be overtaken)', async () => {
    const { db } = await getApp();
    const config = testConfig({ CRM_ORG_STORAGE_QUOTA_BYTES: 1000 });
    const { boardId, orgId } = await fileBoard();
    const [board] = await queryRows<{ id: number }>(
      db.system,
      sql`select id from boards where organization_id = ${orgId} and document_id = ${boardId}`,
    );
    // Each transaction checks, then takes its time before inserting: without the lock all four see 0 used.
    const attempt = () =>
      db.tenantTransaction(orgId, async (tx) => {
        await reserveStorage(tx, config, orgId, 300);
        await new Promise((r) => setTimeout(r, 150));
        const documentId = newDocumentId();
        await repo.insertFile(tx, orgId, {
          documentId,
          boardId: Number(board.id),
          name: 'x.txt',
          mimeType: 'text/plain',
          size: 300,
          sha256: '0'.repeat(64),
          storageKey: `${orgId}/${documentId}`,
        });
      });
    const results = await Promise.allSettled([attempt(), attempt(), attempt(), attempt()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ errorName: 'PayloadTooLargeError', details: { usedBytes: 900 } });
    expect(await rowCount(db, orgId)).toBe(3);
  });

  test("another organization's files neither count towards nor use up this one's quota", async () => {
    const app = await quotaApp(1000);
    const a = await fileBoard();
    const b = await fileBoard();
    expect((await upload(app, a.boardId, 'a'.repeat(1000))).status).toBe(201);
    expect((await upload(app, a.boardId, 'a')).status).toBe(413);
    const res = await upload(app, b.boardId, 'b'.repeat(1000));
    expect(res.status).toBe(201);
  });
});

describe('files of another organization', () => {
  test('cannot be downloaded, deleted with a card or board, nor referenced', async () => {
    const { app } = await getApp();
    const a = await fileBoard();
    const b = await fileBoard();
    const f = await upload(app, a.boardId, 'private');
    const card = await cardWith(a.t, a.boardId, [f.body.documentId]);
    // Org B, on org A's board or with its own board in the path: 404 every time.
    expect((await b.t.api.get(`/boards/${a.boardId}/files/${f.body.documentId}`)).status).toBe(404);
    expect((await b.t.api.get(`/boards/${b.boardId}/files/${f.body.documentId}`)).status).toBe(404);
    expect((await b.t.api.delete(`/boards/${a.boardId}/cards/${card}`)).status).toBe(404);
    expect((await b.t.api.delete(`/boards/${a.boardId}`)).status).toBe(404);
    const ref = await b.t.api.post(`/boards/${b.boardId}/cards`, {
      data: { fields: { name: 'x', email: 'x@x.io', cv: [f.body.documentId] } },
    });
    expect(ref.status).toBe(400);
    expect(a.onDisk(f.body.documentId)).toBe(true);
    expect((await a.t.api.get(`/boards/${a.boardId}/files/${f.body.documentId}`)).body).toBe('private');
  });
});

describe('the orphan sweep', () => {
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);

  /** One organization with every kind of file the sweep must tell apart. */
  async function sweepFixture() {
    const { app, db, config } = await getApp();
    const { t, boardId, orgId, onDisk } = await fileBoard();
    const dir = join(uploadsDir(config), String(orgId));
    const old = (documentId: string) => utimesSync(join(dir, documentId), hoursAgo(2), hoursAgo(2));
    const stray = (age: number) => {
      const name = newDocumentId();
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, name), 'stray');
      if (age) utimesSync(join(dir, name), hoursAgo(age), hoursAgo(age));
      return name;
    };
    const ageRow = (documentId: string) =>
      db.system.execute(
        sql`update card_files set created_at = now() - interval '2 hours' where organization_id = ${orgId} and document_id = ${documentId}`,
      );
    const attached = (await upload(app, boardId, 'attached')).body.documentId as string;
    await cardWith(t, boardId, [attached]);
    await ageRow(attached);
    old(attached);
    const unattachedOld = (await upload(app, boardId, 'never used')).body.documentId as string;
    await ageRow(unattachedOld);
    old(unattachedOld);
    const unattachedYoung = (await upload(app, boardId, 'form still open')).body.documentId as string;
    const orphanOld = stray(2);
    const orphanYoung = stray(0);
    // Not a name the uploads give: never touched.
    writeFileSync(join(dir, 'README'), 'operator note');
    utimesSync(join(dir, 'README'), hoursAgo(5), hoursAgo(5));
    return { t, boardId, onDisk, dir, attached, unattachedOld, unattachedYoung, orphanOld, orphanYoung };
  }

  test('removes unreferenced old files and unattached old uploads; keeps referenced and young ones', async () => {
    const { db, config } = await getApp();
    const f = await sweepFixture();
    const result = await sweepUploads(db, config);
    expect(result.unattachedRows).toBeGreaterThanOrEqual(1);
    expect(result.orphanFiles).toBeGreaterThanOrEqual(1);
    expect(f.onDisk(f.orphanOld)).toBe(false);
    expect(f.onDisk(f.unattachedOld)).toBe(false);
    expect((await f.t.api.get(`/boards/${f.boardId}/files/${f.unattachedOld}`)).status).toBe(404);
    expect(f.onDisk(f.orphanYoung)).toBe(true);
    expect(f.onDisk(f.attached)).toBe(true);
    expect(f.onDisk(f.unattachedYoung)).toBe(true);
    expect(existsSync(join(f.dir, 'README'))).toBe(true);
    expect((await f.t.api.get(`/boards/${f.boardId}/files/${f.attached}`)).body).toBe('attached');
    // The young unattached upload can still be taken by a card.
    await cardWith(f.t, f.boardId, [f.unattachedYoung]);
  });

  test('an organization that no longer has rows loses its whole directory of old files', async () => {
    const { db, config } = await getApp();
    // An id no organization has: as after an organization's rows were removed.
    const dir = join(uploadsDir(config), '987654321012');
    mkdirSync(dir, { recursive: true });
    const name = newDocumentId();
    writeFileSync(join(dir, name), 'left behind');
    utimesSync(join(dir, name), hoursAgo(3), hoursAgo(3));
    await sweepUploads(db, config);
    expect(existsSync(join(dir, name))).toBe(false);
  });

  test('runs as a periodic background job', async () => {
    const { db } = await getApp();
    const config = testConfig({ CRM_UPLOAD_SWEEP_SECONDS: 1, CRM_JOBS_POLL_SECONDS: 0.5 });
    const f = await sweepFixture();
    // The queue keeps one waiting run: a process started earlier on this database (another test file's workers)
    // may have queued it minutes ahead, and this process's immediate run would then be dropped.
    await db.system
      .execute(
        sql`delete from pgboss.job where name = ${queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', uploadSweepQueue.name)} and state = 'created'`,
      )
      .catch(() => {}); // no pg-boss schema yet: nothing queued
    const background = await startJobs(config, db, true);
    try {
      const end = Date.now() + 30_000;
      while (f.onDisk(f.orphanOld) && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
      expect(f.onDisk(f.orphanOld)).toBe(false);
      expect(f.onDisk(f.attached)).toBe(true);
    } finally {
      await background.jobs.stop();
    }
  });
});
