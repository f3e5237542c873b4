import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { deleteDueOrganizations } from '../../../src/modules/org-lifecycle/deletion.js';
import { runExport } from '../../../src/modules/org-lifecycle/exports.js';
import { importOrganizationArchive, tenantTables } from '../../../src/modules/org-lifecycle/index.js';
import { issueToken } from '../../../src/modules/users/service.js';
import { modules } from '../../../src/modules.js';
import { type Database, openDatabase, queryRows } from '../../../src/platform/db/client.js';
import { migrateDatabase } from '../../../src/platform/db/migrate.js';
import { queueNameIn } from '../../../src/platform/jobs/jobs.js';
import { createMailer } from '../../../src/platform/mail/mailer.js';
import {
  addMember,
  apiClient,
  getApp,
  newTenant,
  type Tenant,
  testConfig,
  unique,
} from '../../helpers/app.js';
import { startSmtp } from '../../helpers/smtp.js';

const orgIdOf = async (db: Database, slug: string) =>
  (await queryRows<{ id: number }>(db.system, sql`select id from organizations where slug = ${slug}`))[0]!.id;

/** A board with a card, a contact with a timeline entry, and an uploaded file. */
async function fill(t: Tenant, db: Database, dataDir: string) {
  const board = await t.api.post('/boards', {
    data: {
      name: 'Leads',
      phases: [{ name: 'New', fields: [{ label: 'Nota', slug: 'nota', type: 'text' }] }],
    },
  });
  expect(board.status).toBe(201);
  const card = await t.api.post(`/boards/${board.body.documentId}/cards`, {
    data: { title: 'Primeiro', fields: { nota: 'olá' } },
  });
  expect(card.status).toBe(201);
  const contact = await t.api.post('/contacts', {
    data: { name: 'Maria Silva', email: `${unique('m')}@x.example` },
  });
  expect(contact.status).toBe(201);
  const orgId = await orgIdOf(db, t.slug);
  mkdirSync(join(dataDir, 'uploads', String(orgId)), { recursive: true });
  const fileName = 'a'.repeat(24);
  writeFileSync(join(dataDir, 'uploads', String(orgId), fileName), 'file body');
  return { orgId, board: board.body.documentId, card: card.body.documentId, fileName };
}

/**
 * The running counts' tables (`*_counts`, `*_count_deltas`, `*_report_rollups`, `*_report_deltas`): how many rows
 * they hold depends on when a background pass last folded the deltas (the source's may fold after the export, the
 * copy's not yet). Their values are compared through the API below (the lists' totals). The outbox's pending rows
 * likewise depend on when each side's dispatcher last ran.
 */
const FOLDED = /_(counts|count_deltas|report_rollups|report_deltas)$|^domain_events_pending$/;

/** Counts of the organization's rows in every tenant table (the catalogue's), running counts apart. */
async function rowsOf(db: Database, orgId: number) {
  const counts: Record<string, number> = {};
  for (const t of await tenantTables(db.system)) {
    if (FOLDED.test(t.name)) continue;
    const [r] = await queryRows<{ n: number }>(
      db.system,
      sql.raw(`select count(*)::int as n from "${t.name}" where organization_id = ${orgId}`),
    );
    if (r!.n) counts[t.name] = r!.n;
  }
  return counts;
}

describe('organization export and import', () => {
  const targets: Database[] = [];
  afterAll(async () => {
    for (const d of targets) await d.close();
  });

  it('an exported organization imported into another database reads back equal through the API', async () => {
    const { app, db, config } = await getApp();
    const t = await newTenant();
    const filled = await fill(t, db, config.CRM_DATA_DIR);
    const requested = await t.userApi.post(`/organizations/${await orgDoc(t)}/export`);
    expect(requested.status).toBe(202);
    expect(requested.body.status).toBe('queued');
    const link: string = requested.body.downloadUrl;
    expect(link).toMatch(/\/file\?token=/);
    // Not ready yet: 409, and the link is not spent.
    expect((await apiClient(app, {}).get(link)).status).toBe(409);
    const [row] = await queryRows<{ id: number }>(
      db.system,
      sql`select id from organization_exports where document_id = ${requested.body.documentId}`,
    );
    await runExport({ db, config }, filled.orgId, row!.id);
    const state = await t.userApi.get(
      `/organizations/${await orgDoc(t)}/exports/${requested.body.documentId}`,
    );
    expect(state.body).toMatchObject({ status: 'done', files: 1 });
    expect(state.body.downloadUrl).toBeUndefined();
    // A wrong token: 404; the right one: the file, once.
    expect((await apiClient(app, {}).get(link.replace(/token=.*/, 'token=nope'))).status).toBe(404);
    const download = await app.inject({ method: 'GET', url: link });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/gzip');
    expect((await app.inject({ method: 'GET', url: link })).statusCode).toBe(404);
    const file = join(tmpdir(), `${unique('export')}.tar.gz`);
    writeFileSync(file, download.rawPayload);

    // Another database (a fresh embedded one) and another data directory.
    const target = await openDatabase({ dataDir: 'memory://' });
    targets.push(target);
    await migrateDatabase(target, modules);
    const targetDir = join(tmpdir(), unique('target'));
    const result = await importOrganizationArchive(target, { CRM_DATA_DIR: targetDir }, file);
    expect(result.organization.slug).toBe(t.slug);
    expect(result.files).toBe(1);
    expect(result.createdUsers).toEqual([t.user.email]);
    expect(await rowsOf(target, filled.orgId)).toEqual(await rowsOf(db, filled.orgId));
    expect(readFileSync(join(targetDir, 'uploads', String(filled.orgId), filled.fileName), 'utf8')).toBe(
      'file body',
    );
    // Importing it again is refused: the organization exists.
    await expect(importOrganizationArchive(target, { CRM_DATA_DIR: targetDir }, file)).rejects.toThrow(
      /already exists/,
    );

    const targetApp = await buildApp({ config: testConfig({ CRM_DATA_DIR: targetDir }), db: target });
    await targetApp.ready();
    try {
      const token = await issueToken({ db: target } as never, t.user.id, { expiration: '1d' } as never);
      const there = apiClient(targetApp, { authorization: `Bearer ${token.token}`, 'x-tenant-id': t.slug });
      const here = apiClient(app, { authorization: `Bearer ${t.user.jwt}`, 'x-tenant-id': t.slug });
      for (const path of [
        '/boards',
        `/boards/${filled.board}`,
        `/boards/${filled.board}/cards`,
        '/contacts',
        '/memberships',
        '/audit-logs',
      ]) {
        const [a, b] = [await here.get(path), await there.get(path)];
        expect(a.status, path).toBe(200);
        expect(b.body, path).toEqual(a.body);
      }
      // New rows get ids past the imported ones.
      const more = await there.post('/contacts', { data: { name: 'Depois' } });
      expect(more.status).toBe(201);
    } finally {
      await targetApp.close();
    }
  });

  it('only an owner exports; another organization cannot see or download it', async () => {
    const t = await newTenant();
    const other = await newTenant();
    const admin = await addMember(t, 'admin');
    const doc = await orgDoc(t);
    const adminUser = apiClient(t.app, { authorization: `Bearer ${admin.user.jwt}` });
    expect((await adminUser.post(`/organizations/${doc}/export`)).status).toBe(403);
    expect((await other.userApi.post(`/organizations/${doc}/export`)).status).toBe(404);
    const requested = await t.userApi.post(`/organizations/${doc}/export`);
    expect(
      (await other.userApi.get(`/organizations/${doc}/exports/${requested.body.documentId}`)).status,
    ).toBe(404);
    const otherDoc = await orgDoc(other);
    // The export's id under another organization: unknown.
    const foreign = await apiClient(t.app, {}).get(
      `/organizations/${otherDoc}/exports/${requested.body.documentId}/file?token=${requested.body.downloadUrl.split('token=')[1]}`,
    );
    expect(foreign.status).toBe(404);
  });
});

async function orgDoc(t: Tenant): Promise<string> {
  const list = await t.userApi.get('/organizations');
  return list.body.data.find((o: { slug: string }) => o.slug === t.slug).documentId;
}

describe('organization deletion', () => {
  it('is scheduled (owners e-mailed), cancellable, and then deletes every row and file of the organization only', async () => {
    const { db, config } = await getApp();
    const t = await newTenant();
    const other = await newTenant();
    const filled = await fill(t, db, config.CRM_DATA_DIR);
    const otherFilled = await fill(other, db, config.CRM_DATA_DIR);
    const doc = await orgDoc(t);
    const member = await addMember(t, 'member');
    const memberUser = apiClient(t.app, { authorization: `Bearer ${member.user.jwt}` });
    expect((await memberUser.post(`/organizations/${doc}/deletion`)).status).toBe(403);
    expect((await other.userApi.post(`/organizations/${doc}/deletion`)).status).toBe(404);
    expect((await t.userApi.delete(`/organizations/${doc}/deletion`)).status).toBe(409);

    const scheduled = await t.userApi.post(`/organizations/${doc}/deletion`);
    expect(scheduled.status).toBe(202);
    const at = Date.parse(scheduled.body.deletionScheduledAt);
    expect(at - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect((await t.userApi.get(`/organizations/${doc}`)).body.deletionScheduledAt).toBe(
      scheduled.body.deletionScheduledAt,
    );
    expect((await t.userApi.post(`/organizations/${doc}/deletion`)).status).toBe(409);
    // The owners' e-mail, delivered to an SMTP server.
    const mail = await takeMail(db, t.user.email);
    expect(mail.subject).toMatch(/deletion scheduled/);
    const smtp = await startSmtp();
    try {
      const mailer = createMailer({
        SMTP_URL: smtp.url,
        MAIL_FROM: 'crm@x.example',
        CRM_DATA_DIR: config.CRM_DATA_DIR,
      });
      await mailer.send(mail);
      await smtp.waitFor((m) => m.some((x) => x.to.includes(t.user.email) && /deleted on/.test(x.raw)));
      mailer.close();
    } finally {
      await smtp.close();
    }

    const cancelled = await t.userApi.delete(`/organizations/${doc}/deletion`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.deletionScheduledAt).toBeNull();
    expect((await takeMail(db, t.user.email)).subject).toMatch(/cancelled/);
    // Not due: nothing happens.
    expect(await deleteDueOrganizations(db, config)).not.toContain(filled.orgId);

    expect((await t.userApi.post(`/organizations/${doc}/deletion`)).status).toBe(202);
    const otherBefore = await rowsOf(db, otherFilled.orgId);
    expect(Object.keys(await rowsOf(db, filled.orgId)).length).toBeGreaterThan(5);
    const deleted = await deleteDueOrganizations(db, config, new Date(Date.now() + 31 * 86_400_000));
    expect(deleted).toContain(filled.orgId);
    expect(await rowsOf(db, filled.orgId)).toEqual({});
    expect(existsSync(join(config.CRM_DATA_DIR, 'uploads', String(filled.orgId)))).toBe(false);
    expect(await rowsOf(db, otherFilled.orgId)).toEqual(otherBefore);
    expect(
      existsSync(join(config.CRM_DATA_DIR, 'uploads', String(otherFilled.orgId), otherFilled.fileName)),
    ).toBe(true);
    expect((await t.userApi.get(`/organizations/${doc}`)).status).toBe(404);
    expect((await t.api.get('/boards')).status).toBeGreaterThanOrEqual(400);
  });

  it('the catalogue covers a tenant table added later', async () => {
    const { db } = await getApp();
    const name = unique('extra_');
    await db.system.execute(
      sql.raw(`create table ${name} (organization_id bigint not null, id bigint primary key)`),
    );
    try {
      expect((await tenantTables(db.system)).map((x) => x.name)).toContain(name);
    } finally {
      await db.system.execute(sql.raw(`drop table ${name}`));
    }
  });
});

async function takeMail(db: Database, email: string) {
  const [job] = await queryRows<{ data: { to: string[]; subject: string; text: string } }>(
    db.system,
    sql`delete from pgboss.job where id = (
          select id from pgboss.job where name = ${queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', 'mail-send')}
            and data->'to' ? ${email} and data->>'subject' like '%deletion%' order by created_on desc limit 1)
        returning data`,
  );
  if (!job) throw new Error(`no deletion mail to ${email}`);
  return job.data;
}
