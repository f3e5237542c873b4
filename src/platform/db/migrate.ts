import { createHash, type Hash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { IDEMPOTENCY_COMMIT_SQL } from '../idempotency/commit.js';
import { type ModuleRegistration, schemaSqlOf } from '../modules.js';
import { SOFTWARE_VERSION } from '../version.js';
import type { Database } from './client.js';
import { SEARCH_FOLD_SQL, setScopedKeysIndexed } from './search-fold.js';

const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));

/**
 * Applies the generated migrations, then the modules' schema statements (`modules`: src/modules.ts, in its order),
 * then the tenant policies (idempotent). On PostgreSQL several processes may start together: an advisory lock,
 * held on a connection of its own, lets one migrate at a time.
 */
export async function migrateDatabase(
  database: Database,
  modules: readonly ModuleRegistration[],
): Promise<void> {
  const moduleSql = schemaSqlOf(modules);
  const sessions = database.sessionPool ?? database.pool;
  if (!sessions) return migrateUnlocked(database, moduleSql);
  // A session lock: on the server itself (DATABASE_DIRECT_URL), never through a transaction pooler.
  const lockClient = await sessions.connect();
  try {
    await lockClient.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrateUnlocked(database, moduleSql);
  } finally {
    await lockClient.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    lockClient.release();
  }
}

/** Held exclusively while migrating; the maintenance holds it shared, so the two never interleave. */
export const MIGRATION_LOCK = 727_001;

async function migrateUnlocked(database: Database, moduleSql: readonly string[]): Promise<void> {
  for (const ddl of STATE_TABLE_SQL) await database.system.execute(sql.raw(ddl));
  // Before anything else, the fast path included: a database migrated by a newer build is never touched.
  await refuseUnknownMigrations(database);
  // Nothing changed since the last run (same migrations, same policy and function DDL): every step below is
  // idempotent and would only redo itself, so a start or an admin verb skips them (about a second on PGlite).
  const fingerprint = schemaFingerprint(moduleSql);
  const state = await database.system.execute(sql.raw(SKIP_CHECK_SQL.replace('$1', `'${fingerprint}'`)));
  if ((state as { rows?: { skip: boolean }[] }).rows?.[0]?.skip) {
    await recordSoftwareVersion(database, true);
    await noteScopedKeys(database);
    return;
  }
  for (const ext of SEARCH_EXTENSIONS)
    await database.system.execute(sql.raw(`CREATE EXTENSION IF NOT EXISTS ${ext}`));
  // crm_fold (and the unaccent extension) before the migrations: 0001's indexes and generated column call it.
  for (const ddl of SEARCH_FOLD_SQL) await database.system.execute(sql.raw(ddl));
  await database.system.execute(sql.raw(LEAKPROOF_SQL));
  if (database.kind === 'pglite') await migratePglite(database.system as any, { migrationsFolder });
  else await migrateNodePg(database.system as any, { migrationsFolder });
  // Triggers the schema generator cannot express (idempotent, like the policies below): the modules' statements.
  for (const ddl of moduleSql) await database.system.execute(sql.raw(ddl));
  await applyTenantPolicies(database);
  // After the policies: they create the crm_app role the function is granted to.
  for (const ddl of IDEMPOTENCY_COMMIT_SQL) await database.system.execute(sql.raw(ddl));
  await database.system.execute(
    sql`insert into crm_schema_state (id, fingerprint) values (1, ${fingerprint})
        on conflict (id) do update set fingerprint = excluded.fingerprint`,
  );
  await recordSoftwareVersion(database, false);
  await noteScopedKeys(database);
}

/** Whether the search copies' scoped keys can answer under RLS here (search-fold.ts setScopedKeysIndexed). */
async function noteScopedKeys(database: Database) {
  const [state] = await rows<{ on: boolean }>(database, SCOPED_KEYS_LEAKPROOF_SQL);
  setScopedKeysIndexed(state?.on === true);
}

const SCOPED_KEYS_LEAKPROOF_SQL = `
select count(*) = 2 and bool_and(proleakproof) as on from pg_proc
where oid in (to_regprocedure('public.crm_trgm_keys(bigint,text)'), to_regprocedure('arraycontains(anyarray,anyarray)'))`;

/**
 * One row: what the last completed migration run applied, and which software version (package.json) with which
 * newest migration ran it (columns added after 0.1.0, which had neither: null there). No organization_id, so no
 * tenant policy. Each statement is idempotent; the table is only ever touched under the migration lock.
 */
const STATE_TABLE_SQL = [
  'create table if not exists crm_schema_state (id int primary key, fingerprint text not null)',
  'alter table crm_schema_state add column if not exists software_version text',
  'alter table crm_schema_state add column if not exists last_migration text',
];

export interface JournalMigration {
  tag: string;
  /** The journal's `when`: drizzle stores it as the applied migration's `created_at`. */
  when: number;
  /** sha256 of the SQL file, as drizzle stores it in `hash`. */
  hash: string;
}

let cachedJournal: JournalMigration[] | undefined;

/** The migrations this build knows, oldest first (drizzle/meta/_journal.json and the files it names). */
export function buildMigrations(): JournalMigration[] {
  cachedJournal ??= (
    JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as {
      entries: { tag: string; when: number }[];
    }
  ).entries.map((e) => ({
    tag: e.tag,
    when: e.when,
    hash: createHash('sha256')
      .update(readFileSync(join(migrationsFolder, `${e.tag}.sql`), 'utf8'))
      .digest('hex'),
  }));
  return cachedJournal;
}

/**
 * An older build on a newer database: the database holds a migration (drizzle.__drizzle_migrations: hash +
 * created_at = the journal's `when`) this build does not know. Drizzle's migrator would start anyway (it only
 * applies what is newer than the database's last row) and serve a schema its code was not written for.
 */
export class DatabaseNewerThanBuildError extends Error {
  readonly code = 'CRM_DATABASE_NEWER';
  constructor(
    readonly databaseVersion: string | null,
    readonly databaseMigration: string | null,
    readonly unknown: { hash: string; createdAt: number; changed: boolean }[],
  ) {
    const build = buildMigrations();
    const newest = build.at(-1)?.tag ?? 'none';
    const changed = unknown.filter((u) => u.changed);
    const by = databaseVersion
      ? `crm-service ${databaseVersion}${databaseMigration ? ` (newest migration ${databaseMigration})` : ''}`
      : 'a build that did not record its version (0.1.0 or a pre-release)';
    const what = unknown
      .map((u) => {
        const at = new Date(u.createdAt).toISOString();
        const known = build.find((m) => m.when === u.createdAt);
        return u.changed && known ? `${known.tag} with different SQL` : `one made at ${at}`;
      })
      .join(', ');
    super(
      `This database was last migrated by ${by} and holds ${unknown.length} migration(s) this build does not know ` +
        `(${what}); this build is crm-service ${SOFTWARE_VERSION}, whose newest migration is ${newest}. ` +
        (changed.length === unknown.length
          ? 'A released migration was changed after it was applied: start the build that applied it. '
          : `Refusing to start: run crm-service ${databaseVersion ?? 'of the newer release'} or later on it, ` +
            'or restore a backup taken before the upgrade (docs/upgrading.md). ') +
        'Nothing was changed.',
    );
    this.name = 'DatabaseNewerThanBuildError';
  }
}

async function refuseUnknownMigrations(database: Database): Promise<void> {
  const [{ present }] = await rows<{ present: boolean }>(
    database,
    `select to_regclass('drizzle.__drizzle_migrations') is not null as present`,
  );
  if (!present) return; // a new database
  const applied = await rows<{ hash: string; created_at: number | string }>(
    database,
    'select hash, created_at from drizzle.__drizzle_migrations order by created_at',
  );
  const build = buildMigrations();
  const unknown = applied
    .map((r) => ({ hash: r.hash, createdAt: Number(r.created_at) }))
    .filter((r) => !build.some((m) => m.when === r.createdAt && m.hash === r.hash))
    .map((r) => ({ ...r, changed: build.some((m) => m.when === r.createdAt) }));
  if (unknown.length === 0) return;
  const [state] = await rows<{ software_version: string | null; last_migration: string | null }>(
    database,
    'select software_version, last_migration from crm_schema_state where id = 1',
  );
  throw new DatabaseNewerThanBuildError(
    state?.software_version ?? null,
    state?.last_migration ?? null,
    unknown,
  );
}

/** Records this build as the last one that migrated the database (on the fast path only when it differs). */
async function recordSoftwareVersion(database: Database, onlyIfDifferent: boolean): Promise<void> {
  const version = SOFTWARE_VERSION;
  const newest = buildMigrations().at(-1)?.tag ?? null;
  await database.system.execute(
    sql`update crm_schema_state set software_version = ${version}, last_migration = ${newest}
        where id = 1 ${
          onlyIfDifferent
            ? sql`and (software_version is distinct from ${version} or last_migration is distinct from ${newest})`
            : sql``
        }`,
  );
}

async function rows<T>(database: Database, text: string): Promise<T[]> {
  return ((await database.system.execute(sql.raw(text))) as unknown as { rows: T[] }).rows;
}

let cachedFilesHash: Hash | undefined;

/**
 * A hash of everything a migration run applies: the migration files, and the DDL this file and the modules
 * (`moduleSql`) run after them, joined in their order of application.
 */
function schemaFingerprint(moduleSql: readonly string[]): string {
  cachedFilesHash ??= createHash('sha256')
    .update(readFileSync(join(migrationsFolder, 'meta/_journal.json')))
    .update(
      readdirSync(migrationsFolder)
        .filter((f) => f.endsWith('.sql'))
        .sort()
        .map((f) => readFileSync(join(migrationsFolder, f), 'utf8'))
        .join('\n'),
    );
  return cachedFilesHash
    .copy()
    .update(
      [
        SEARCH_EXTENSIONS,
        SEARCH_FOLD_SQL,
        LEAKPROOF_SQL,
        moduleSql,
        TENANT_POLICY_SQL,
        IDEMPOTENCY_COMMIT_SQL,
      ]
        .flat()
        .join('\n'),
    )
    .digest('hex');
}

/**
 * Extensions the generated schema needs (created here since before 0.1.0, ahead of the migrations; kept here so a
 * database and a build of any release agree): pg_trgm + btree_gin for the tenant-led trigram index of the contact search (docs/contacts.md).
 * PGlite loads the same two in client.ts.
 */
const SEARCH_EXTENSIONS = ['pg_trgm', 'btree_gin'];

/**
 * Under RLS, PostgreSQL uses an index for a condition only if its operator is LEAKPROOF, and these are not
 * marked so: every contact `q` search (`LIKE`, textlike), accent-blind `$containsi` filter (`crm_fold(col) LIKE`)
 * and card dynamic-field equality filter (`fields @> …`, jsonb_contains) would be a sequential scan of the
 * tenant's rows (measured: docs/contacts.md, docs/performance.md). Each of them can only fail on its
 * pattern/argument (an invalid LIKE escape; never on the row's value), which the service always builds from a
 * parameter, and tenants never run SQL of their own, so marking them leakproof exposes nothing. Needs a
 * superuser (PGlite and a self-hosted server have one); without one the filters stay correct, only unindexed.
 */
const LEAKPROOF_FUNCTIONS = [
  'textlike(text,text)',
  'texticlike(text,text)',
  'jsonb_contains(jsonb,jsonb)',
  // The accent-blind search's fold (search-fold.ts: crm_fold inlines to lower(crm_unaccent(…)), or to
  // translate(lower(…)) without the unaccent extension): none of them can fail on any text. Missing ones are skipped.
  'lower(text)',
  'crm_unaccent(regdictionary,text)',
  'translate(text,text,text)',
  'crm_fold(text)',
  // The scoped trigram keys of the search copies' counts (search-fold.ts): hashing, and array containment (for
  // every element type: it fails on no row of any type, and tenants never run SQL of their own).
  'crm_trgm_keys(bigint,text)',
  'arraycontains(anyarray,anyarray)',
];

/** The functions above that exist here (to_regprocedure: null for a missing one), as an SQL list of oids. */
const LEAKPROOF_OIDS = LEAKPROOF_FUNCTIONS.map((f) => `to_regprocedure('${f}')`).join(', ');

/**
 * Skip only when the fingerprint matches, the `crm_app` role exists and is this user's, and every tenant table
 * still has RLS enabled, forced, its policy and crm_app's grants: a policy dropped by hand is put back at the next start, as before this shortcut existed.
 * For a superuser, also every LEAKPROOF mark below (a restore into a new cluster loses those of pg_catalog's functions).
 */
const SKIP_CHECK_SQL = `
select coalesce((select fingerprint = $1 from crm_schema_state where id = 1), false)
   -- the role requests run as, granted to this user (a restore into a new cluster has neither)
   and exists (select 1 from pg_roles where rolname = 'crm_app')
   and ((select rolsuper from pg_roles where rolname = current_user) or pg_has_role(current_user, 'crm_app', 'MEMBER'))
   and not exists (
     select 1 from information_schema.columns c
     join pg_class k on k.relname = c.table_name and k.relkind = 'r'
     join pg_namespace n on n.oid = k.relnamespace and n.nspname = 'public'
     where c.table_schema = 'public' and c.column_name = 'organization_id'
       and (not k.relrowsecurity or not k.relforcerowsecurity
            or not has_table_privilege('crm_app', k.oid, 'SELECT, INSERT, UPDATE, DELETE')
            or not exists (select 1 from pg_policies p where p.schemaname = 'public' and p.tablename = c.table_name
                           and p.policyname = 'tenant_isolation'))
   )
   -- a superuser's marks of LEAKPROOF (LEAKPROOF_SQL) are on pg_catalog's functions, which a dump does not carry: a
   -- restore into a new cluster has lost them, and the run puts them back (without a superuser they never hold)
   and (not (select rolsuper from pg_roles where rolname = current_user)
        or not exists (select 1 from pg_proc where oid in (${LEAKPROOF_OIDS}) and not proleakproof)) as skip`;

const LEAKPROOF_SQL = `
DO $$
DECLARE f text;
BEGIN
  FOREACH f IN ARRAY ARRAY['${LEAKPROOF_FUNCTIONS.join("','")}'] LOOP
    IF to_regprocedure(f) IS NOT NULL AND NOT (SELECT proleakproof FROM pg_proc WHERE oid = to_regprocedure(f)) THEN
      EXECUTE format('ALTER FUNCTION %s LEAKPROOF', f::regprocedure);
    END IF;
  END LOOP;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'LIKE/ILIKE/jsonb @> are not leakproof here (no superuser): contact search and card filters will not use their indexes';
END $$;
`;

/**
 * Every table with an `organization_id` column is a tenant table: RLS enabled and forced, one policy
 * bound to `app.organization_id` (DESIGN.md §4). Doing it here, over the catalogue, means a new table
 * cannot be forgotten. Requests run as `crm_app`, which is not a superuser and owns nothing.
 */
export async function applyTenantPolicies(database: Database): Promise<void> {
  await database.system.execute(sql.raw(TENANT_POLICY_SQL));
}

const TENANT_POLICY_SQL = `
DO $$
DECLARE t record;
BEGIN
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'crm_app') THEN
      CREATE ROLE crm_app NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; -- another database created it first
  END;
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    EXECUTE format('GRANT crm_app TO %I', current_user);
  END IF;
  GRANT USAGE ON SCHEMA public TO crm_app;
  GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO crm_app;
  -- Only what is missing: ALTER TABLE takes a table lock, and every process start runs this while requests
  -- (and their triggers, which write other tenant tables) may be running — a lock taken for nothing could
  -- deadlock with them.
  FOR t IN
    SELECT c.table_name, pc.relrowsecurity AS rls, pc.relforcerowsecurity AS forced,
           (has_table_privilege('crm_app', pc.oid, 'SELECT') AND has_table_privilege('crm_app', pc.oid, 'INSERT')
            AND has_table_privilege('crm_app', pc.oid, 'UPDATE') AND has_table_privilege('crm_app', pc.oid, 'DELETE'))
             AS granted
    FROM information_schema.columns c
    JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
    JOIN pg_class pc ON pc.oid = format('public.%I', c.table_name)::regclass
    WHERE c.table_schema = 'public' AND c.column_name = 'organization_id' AND tb.table_type = 'BASE TABLE'
  LOOP
    IF NOT t.rls THEN EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t.table_name); END IF;
    IF NOT t.forced THEN EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t.table_name); END IF;
    IF NOT t.granted THEN
      EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO crm_app', t.table_name);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = 'public' AND tablename = t.table_name AND policyname = 'tenant_isolation') THEN
      EXECUTE format(
        'CREATE POLICY tenant_isolation ON %I USING (organization_id = nullif(current_setting(''app.organization_id'', true), '''')::bigint) WITH CHECK (organization_id = nullif(current_setting(''app.organization_id'', true), '''')::bigint)',
        t.table_name);
    END IF;
  END LOOP;
  -- Shared reference data a tenant transaction may read (never write).
  GRANT SELECT ON organizations, users TO crm_app;
END $$;
`;
