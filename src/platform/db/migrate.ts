import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { BOARD_STRUCTURE_VERSION_SQL } from '../../modules/boards/structure-version.js';
import { CARD_COUNTS_SQL } from '../../modules/cards/counts.js';
import { REPORT_ROLLUP_SQL } from '../../modules/cards/report-rollups.js';
import { CARD_TITLE_SEARCH_SQL } from '../../modules/cards/title-search.js';
import { CONTACT_NAME_SEARCH_SQL } from '../../modules/contacts/name-search.js';
import { EVENTS_NOTIFY_SQL } from '../events/wake.js';
import { IDEMPOTENCY_COMMIT_SQL } from '../idempotency/commit.js';
import type { Database } from './client.js';

const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));

/**
 * Applies the generated migrations, then the tenant policies (idempotent). On PostgreSQL several processes may
 * start together: an advisory lock, held on a connection of its own, lets one migrate at a time.
 */
export async function migrateDatabase(database: Database): Promise<void> {
  if (!database.pool) return migrateUnlocked(database);
  const lockClient = await database.pool.connect();
  try {
    await lockClient.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrateUnlocked(database);
  } finally {
    await lockClient.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    lockClient.release();
  }
}

/** Held exclusively while migrating; the maintenance holds it shared, so the two never interleave. */
export const MIGRATION_LOCK = 727_001;

async function migrateUnlocked(database: Database): Promise<void> {
  // Nothing changed since the last run (same migrations, same policy and function DDL): every step below is
  // idempotent and would only redo itself, so a start or an admin verb skips them (about a second on PGlite).
  const fingerprint = schemaFingerprint();
  await database.system.execute(sql.raw(STATE_TABLE_SQL));
  const state = await database.system.execute(sql.raw(SKIP_CHECK_SQL.replace('$1', `'${fingerprint}'`)));
  if ((state as { rows?: { skip: boolean }[] }).rows?.[0]?.skip) return;
  for (const ext of SEARCH_EXTENSIONS)
    await database.system.execute(sql.raw(`CREATE EXTENSION IF NOT EXISTS ${ext}`));
  await database.system.execute(sql.raw(LEAKPROOF_SQL));
  if (database.kind === 'pglite') await migratePglite(database.system as any, { migrationsFolder });
  else await migrateNodePg(database.system as any, { migrationsFolder });
  // Triggers the schema generator cannot express (idempotent, like the policies below).
  for (const ddl of CARD_COUNTS_SQL) await database.system.execute(sql.raw(ddl));
  for (const ddl of REPORT_ROLLUP_SQL) await database.system.execute(sql.raw(ddl));
  for (const ddl of CARD_TITLE_SEARCH_SQL) await database.system.execute(sql.raw(ddl));
  for (const ddl of CONTACT_NAME_SEARCH_SQL) await database.system.execute(sql.raw(ddl));
  for (const ddl of EVENTS_NOTIFY_SQL) await database.system.execute(sql.raw(ddl));
  for (const ddl of BOARD_STRUCTURE_VERSION_SQL) await database.system.execute(sql.raw(ddl));
  await applyTenantPolicies(database);
  // After the policies: they create the crm_app role the function is granted to.
  for (const ddl of IDEMPOTENCY_COMMIT_SQL) await database.system.execute(sql.raw(ddl));
  await database.system.execute(
    sql`insert into crm_schema_state (id, fingerprint) values (1, ${fingerprint})
        on conflict (id) do update set fingerprint = excluded.fingerprint`,
  );
}

/** One row: what the last completed migration run applied. No organization_id, so no tenant policy. */
const STATE_TABLE_SQL =
  'create table if not exists crm_schema_state (id int primary key, fingerprint text not null)';

/**
 * Skip only when the fingerprint matches, the `crm_app` role exists and is this user's, and every tenant table
 * still has RLS enabled, forced, its policy and crm_app's grants: a policy dropped by hand is put back at the next start, as before this shortcut existed.
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
   ) as skip`;

let cachedFingerprint: string | undefined;

/** A hash of everything a migration run applies: the migration files and the DDL this module runs after them. */
function schemaFingerprint(): string {
  cachedFingerprint ??= createHash('sha256')
    .update(readFileSync(join(migrationsFolder, 'meta/_journal.json')))
    .update(
      readdirSync(migrationsFolder)
        .filter((f) => f.endsWith('.sql'))
        .sort()
        .map((f) => readFileSync(join(migrationsFolder, f), 'utf8'))
        .join('\n'),
    )
    .update(
      [
        SEARCH_EXTENSIONS,
        LEAKPROOF_SQL,
        CARD_COUNTS_SQL,
        REPORT_ROLLUP_SQL,
        CARD_TITLE_SEARCH_SQL,
        CONTACT_NAME_SEARCH_SQL,
        EVENTS_NOTIFY_SQL,
        BOARD_STRUCTURE_VERSION_SQL,
        TENANT_POLICY_SQL,
        IDEMPOTENCY_COMMIT_SQL,
      ]
        .flat()
        .join('\n'),
    )
    .digest('hex');
  return cachedFingerprint;
}

/**
 * Extensions the generated schema needs (it is regenerated from scratch, so they cannot live in a drizzle
 * migration): pg_trgm + btree_gin for the tenant-led trigram index of the contact search (docs/contacts.md).
 * PGlite loads the same two in client.ts.
 */
const SEARCH_EXTENSIONS = ['pg_trgm', 'btree_gin'];

/**
 * Under RLS, PostgreSQL uses an index for a condition only if its operator is LEAKPROOF, and these are not
 * marked so: every contact `q` search (`LIKE`, textlike), card `$containsi` title filter (`ILIKE`, texticlike)
 * and card dynamic-field equality filter (`fields @> …`, jsonb_contains) would be a sequential scan of the
 * tenant's rows (measured: docs/contacts.md, docs/performance.md). Each of them can only fail on its
 * pattern/argument (an invalid LIKE escape; never on the row's value), which the service always builds from a
 * parameter, and tenants never run SQL of their own, so marking them leakproof exposes nothing. Needs a
 * superuser (PGlite and a self-hosted server have one); without one the filters stay correct, only unindexed.
 */
const LEAKPROOF_FUNCTIONS = ['textlike(text,text)', 'texticlike(text,text)', 'jsonb_contains(jsonb,jsonb)'];

const LEAKPROOF_SQL = `
DO $$
DECLARE f text;
BEGIN
  FOREACH f IN ARRAY ARRAY['${LEAKPROOF_FUNCTIONS.join("','")}'] LOOP
    IF NOT (SELECT proleakproof FROM pg_proc WHERE oid = f::regprocedure) THEN
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
