import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { modules } from '../../src/modules.js';
import { type Database, openDatabase, queryRows } from '../../src/platform/db/client.js';
import { migrateDatabase } from '../../src/platform/db/migrate.js';
import { SOFTWARE_VERSION } from '../../src/platform/version.js';
import { apiClient, testConfig } from '../helpers/app.js';
import { adminQuery as adminOn, withDatabase } from '../helpers/pg-admin.js';

/**
 * Upgrades in place, on the databases 0.1.0's own code made (test/fixtures/upgrade/0.1.0, README there): this
 * build migrates each fixture, then every read 0.1.0 answered (stored beside the fixture) is asked again with the
 * same 0.1.0 API token and compared by `readDifferences`; the uploaded file downloads with the same bytes; writes
 * work. A second case changes one stored value behind the API's back and shows the comparison reports exactly it.
 * PGlite always; PostgreSQL too when DATABASE_URL names a server (the dump is restored into a database of its
 * own, dropped afterwards). A later release adds its own folder to RELEASES.
 */
const RELEASES = ['0.1.0'];
const fixtures = join(import.meta.dirname, '../fixtures/upgrade');
const serverUrl = process.env.DATABASE_URL;

interface StoredRead {
  path: string;
  status: number;
  body?: unknown;
  sha256?: string;
}
interface StoredOrganization {
  organization: string;
  token: string;
  reads: StoredRead[];
}

/**
 * The comparison rule: the status is the same, and every value 0.1.0 returned is returned again, equal, at the
 * same place (object keys by name, array items by position, the same number of items). Keys a later build adds
 * may appear. Files compare by the sha256 of their bytes. The one value that moves by itself is `lastUsedAt` of
 * the API tokens (every request with the token sets it): it may only move forward.
 */
function readDifferences(stored: StoredRead, status: number, now: unknown): string[] {
  const out: string[] = [];
  if (status !== stored.status) out.push(`${stored.path}: status ${stored.status} → ${status}`);
  else if (stored.sha256 !== undefined) {
    if (now !== stored.sha256) out.push(`${stored.path}: bytes ${stored.sha256} → ${now}`);
  } else compare(stored.path, stored.body, now, out);
  return out;
}

function compare(at: string, old: unknown, now: unknown, out: string[]) {
  if (old === null || typeof old !== 'object') {
    if (!Object.is(old, now)) out.push(`${at}: ${JSON.stringify(old)} → ${JSON.stringify(now)}`);
    return;
  }
  if (Array.isArray(old)) {
    if (!Array.isArray(now)) out.push(`${at}: array → ${JSON.stringify(now)}`);
    else {
      if (now.length !== old.length) out.push(`${at}: ${old.length} items → ${now.length}`);
      for (let i = 0; i < Math.min(old.length, now.length); i++) compare(`${at}[${i}]`, old[i], now[i], out);
    }
    return;
  }
  if (now === null || typeof now !== 'object' || Array.isArray(now)) {
    out.push(`${at}: object → ${JSON.stringify(now)}`);
    return;
  }
  for (const [key, value] of Object.entries(old)) {
    const next = (now as Record<string, unknown>)[key];
    if (!(key in now)) out.push(`${at}.${key}: missing (was ${JSON.stringify(value)})`);
    else if (key === 'lastUsedAt' && typeof value === 'string' && typeof next === 'string') {
      if (next < value) out.push(`${at}.${key}: ${value} → ${next} (went back)`);
    } else compare(`${at}.${key}`, value, next, out);
  }
}

interface Upgraded {
  app: FastifyInstance;
  db: Database;
  dataDir: string;
  organizations: StoredOrganization[];
  migrateMs: number;
  close(): Promise<void>;
}

const sh = (cmd: string, args: string[], input?: Buffer) =>
  execFileSync(cmd, args, { input, stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'], maxBuffer: 256e6 });

const adminQuery = (statement: string) => adminOn(serverUrl!, statement);

/** Lays the fixture down as a running deployment would have it, then starts this build on it (migrating). */
async function upgrade(release: string, backend: 'pglite' | 'postgres'): Promise<Upgraded> {
  const dir = join(fixtures, release);
  const dataDir = mkdtempSync(join(tmpdir(), `crm-upgrade-${backend}-`));
  const dbName = `crm_upgrade_${release.replaceAll('.', '_')}_${process.pid}`;
  let databaseUrl: string | undefined;
  if (backend === 'pglite') sh('tar', ['-xJf', join(dir, 'pglite-data.tar.xz'), '-C', dataDir]);
  else {
    sh('tar', ['-xzf', join(dir, 'postgres-files.tar.gz'), '-C', dataDir]);
    await adminQuery(`drop database if exists ${dbName} with (force)`);
    await adminQuery(`create database ${dbName}`);
    // The role the dump's grants and policies name is the cluster's, not the database's: a new cluster lacks it.
    await adminQuery(
      `do $$ begin if not exists (select 1 from pg_roles where rolname = 'crm_app') then create role crm_app nologin nosuperuser nobypassrls; end if; end $$`,
    );
    databaseUrl = withDatabase(serverUrl!, dbName);
    sh(
      'psql',
      ['-q', '-v', 'ON_ERROR_STOP=1', '-o', '/dev/null', databaseUrl],
      gunzipSync(readFileSync(join(dir, 'postgres.sql.gz'))),
    );
  }
  const db = await openDatabase({ databaseUrl, dataDir: join(dataDir, 'db'), poolSize: 4 });
  const started = performance.now();
  await migrateDatabase(db, modules);
  const migrateMs = performance.now() - started;
  const app = await buildApp({ config: testConfig({ CRM_DATA_DIR: dataDir }), db });
  await app.ready();
  const { organizations } = JSON.parse(readFileSync(join(dir, `reads-${backend}.json`), 'utf8')) as {
    organizations: StoredOrganization[];
  };
  return {
    app,
    db,
    dataDir,
    organizations,
    migrateMs,
    async close() {
      await app.close();
      await db.close();
      if (databaseUrl) await adminQuery(`drop database if exists ${dbName} with (force)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Asks every stored read again with the organization's 0.1.0 token; the differences, by the rule above. */
async function differences(u: Upgraded): Promise<string[]> {
  const out: string[] = [];
  for (const org of u.organizations) {
    for (const read of org.reads) {
      const res = await u.app.inject({
        method: 'GET',
        url: `/api${read.path}`,
        headers: { authorization: `Bearer ${org.token}`, 'x-tenant-id': org.organization },
      });
      const now =
        read.sha256 !== undefined
          ? createHash('sha256').update(res.rawPayload).digest('hex')
          : res.body
            ? JSON.parse(res.body)
            : undefined;
      out.push(...readDifferences(read, res.statusCode, now).map((d) => `${org.organization} ${d}`));
    }
  }
  return out;
}

const backends: ('pglite' | 'postgres')[] = serverUrl ? ['pglite', 'postgres'] : ['pglite'];

describe.each(RELEASES.flatMap((r) => backends.map((b) => [r, b] as const)))(
  'upgrade from %s (%s)',
  (release, backend) => {
    let u: Upgraded;
    beforeAll(async () => {
      u = await upgrade(release, backend);
    }, 180_000);
    afterAll(async () => {
      await u?.close();
    });

    test('the migration ran in place and recorded this build', async () => {
      const [state] = await queryRows<{ software_version: string }>(
        u.db.system,
        sql`select software_version from crm_schema_state where id = 1`,
      );
      expect(state.software_version).toBe(SOFTWARE_VERSION);
      expect(u.organizations).toHaveLength(2);
      expect(u.organizations.every((o) => o.reads.length > 50)).toBe(true);
    });

    test(`every read ${release} answered is answered again with the same values`, async () => {
      expect(await differences(u)).toEqual([]);
    }, 180_000); // every read of two organizations, on a loaded machine up to a minute

    test(`a ${release} API token still works (and a wrong one does not); the uploaded file has the same bytes`, async () => {
      const uploaded = readFileSync(join(fixtures, release, 'uploaded-file.bin'));
      for (const org of u.organizations) {
        const api = apiClient(u.app, {
          authorization: `Bearer ${org.token}`,
          'x-tenant-id': org.organization,
        });
        expect((await api.get('/memberships')).status).toBe(200);
        const forged = apiClient(u.app, {
          authorization: `Bearer ${org.token}x`,
          'x-tenant-id': org.organization,
        });
        expect((await forged.get('/memberships')).status).toBe(401);
        const files = org.reads.filter((r) => r.sha256 !== undefined);
        expect(files.length).toBeGreaterThan(0);
        for (const f of files) {
          const res = await u.app.inject({
            method: 'GET',
            url: `/api${f.path}`,
            headers: { authorization: `Bearer ${org.token}`, 'x-tenant-id': org.organization },
          });
          expect(res.statusCode).toBe(200);
          expect(res.rawPayload.equals(uploaded)).toBe(true);
        }
      }
    });

    test('the comparison can fail: one value changed behind the API is reported, and only it', async () => {
      const changed = await queryRows<{ id: number }>(
        u.db.system,
        sql`update contacts set name = 'Ana Changed' where name = 'Ana Souza' returning id`,
      );
      expect(changed).toHaveLength(2); // one in each organization
      try {
        const diffs = await differences(u);
        expect(diffs.length).toBeGreaterThan(0);
        expect(diffs.filter((d) => !d.endsWith(': "Ana Souza" → "Ana Changed"'))).toEqual([]);
        // Among them, the contact's own read in each organization.
        for (const org of u.organizations) {
          const read = org.reads.find(
            (r) => /^\/contacts\/\w+$/.test(r.path) && (r.body as any)?.name === 'Ana Souza',
          );
          expect(diffs).toContain(`${org.organization} ${read!.path}.name: "Ana Souza" → "Ana Changed"`);
        }
      } finally {
        await u.db.system.execute(sql`update contacts set name = 'Ana Souza' where name = 'Ana Changed'`);
      }
    }, 180_000);

    test(`the search of ${release}'s rows is accent-blind after the upgrade (copies refolded, search_text regenerated)`, async () => {
      const [copies] = await queryRows<{ cards: number; stale: number; contacts: number; shape: string }>(
        u.db.system,
        sql`select (select count(*) from card_title_search)::int as cards,
                   ((select count(*) from card_title_search s join cards c
                       on c.organization_id = s.organization_id and c.id = s.card_id where s.title <> crm_fold(c.title))
                    + (select count(*) from contact_name_search s join contacts c
                       on c.organization_id = s.organization_id and c.id = s.contact_id where s.name <> crm_fold(c.name))
                    + (select count(*) from contacts where search_text is distinct from crm_fold(coalesce(name, '') || ' '
                       || coalesce(email, '') || ' ' || coalesce(phone, '') || ' ' || coalesce(cpf, '') || ' '
                       || coalesce(cnpj, ''))))::int as stale,
                   (select count(*) from contact_name_search)::int as contacts,
                   obj_description('card_title_search'::regclass, 'pg_class') as shape`,
      );
      expect(copies).toMatchObject({ stale: 0, shape: 'crm_fold' });
      expect(copies.cards).toBeGreaterThan(0);
      expect(copies.contacts).toBeGreaterThan(0);
      for (const org of u.organizations) {
        const api = apiClient(u.app, {
          authorization: `Bearer ${org.token}`,
          'x-tenant-id': org.organization,
        });
        // 'Ana Souza' (one in each organization), typed in capitals with accents it does not have.
        for (const query of [{ 'filters[name][$containsi]': 'ÁNA SÓUZA' }, { q: 'SÓUZA ána' }]) {
          const found = await api.get('/contacts', query);
          expect(found.status, JSON.stringify(found.body)).toBe(200);
          expect(found.body.data.map((c: any) => c.name)).toEqual(['Ana Souza']);
        }
        const boards = await api.get('/boards');
        const board = boards.body.data.find((b: any) => b.name !== 'Chats');
        const [card] = (await api.get(`/boards/${board.documentId}/cards`)).body.data;
        const typed = card.title.toUpperCase().replace(/A/g, 'Á').replace(/E/g, 'É').replace(/O/g, 'Ó');
        const found = await api.get(`/boards/${board.documentId}/cards`, {
          'filters[title][$containsi]': typed,
        });
        expect(found.status).toBe(200);
        expect(found.body.data.map((c: any) => c.documentId)).toContain(card.documentId);
        expect(found.body.meta.pagination.total).toBe(found.body.data.length);
      }
    });

    test('writes work after the upgrade: create, update and move a card; create a contact', async () => {
      for (const org of u.organizations) {
        const api = apiClient(u.app, {
          authorization: `Bearer ${org.token}`,
          'x-tenant-id': org.organization,
        });
        const boards = await api.get('/boards');
        const board = boards.body.data.find((b: any) => b.name !== 'Chats');
        const card = await api.post(`/boards/${board.documentId}/cards`, {
          data: {
            title: 'After the upgrade',
            value: 10,
            tags: ['hot'],
            fields: { f_text: 'new', f_select: 'a' },
          },
        });
        expect(card.status, JSON.stringify(card.body)).toBe(201);
        const path = `/boards/${board.documentId}/cards/${card.body.documentId}`;
        const updated = await api.put(path, { data: { title: 'After the upgrade (edited)', value: 20 } });
        expect(updated.status, JSON.stringify(updated.body)).toBe(200);
        const moved = await api.post(`${path}/move`, { phase: 'qualified' });
        expect(moved.status, JSON.stringify(moved.body)).toBe(200);
        const read = await api.get(path);
        expect(read.body).toMatchObject({
          title: 'After the upgrade (edited)',
          value: 20,
          currentPhase: { slug: 'qualified' },
          fields: { f_text: 'new', f_select: 'a' },
        });
        const contact = await api.post('/contacts', {
          data: { name: 'New after upgrade', city: 'Campinas' },
        });
        expect(contact.status, JSON.stringify(contact.body)).toBe(201);
        expect((await api.get(`/contacts/${contact.body.documentId}`)).body.name).toBe('New after upgrade');
        const comment = await api.post(`${path}/comments`, { data: { content: 'still works' } });
        expect(comment.status).toBe(201);
      }
    });
  },
);

test('the fixtures are laid down from files in the repository', () => {
  for (const release of RELEASES)
    for (const f of [
      'pglite-data.tar.xz',
      'postgres.sql.gz',
      'postgres-files.tar.gz',
      'reads-pglite.json',
      'reads-postgres.json',
    ])
      expect(existsSync(join(fixtures, release, f)), `${release}/${f}`).toBe(true);
});
