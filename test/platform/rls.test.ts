import { sql } from 'drizzle-orm';
import { describe, expect, test } from 'vitest';
import { modules } from '../../src/modules.js';
import { queryRows } from '../../src/platform/db/client.js';
import { migrateDatabase } from '../../src/platform/db/migrate.js';
import { getApp, newTenant } from '../helpers/app.js';

/** Tenant isolation enforced by the database itself (DESIGN.md §4), on whichever backend runs the suite. */
describe('row-level security', () => {
  async function orgIdOf(slug: string) {
    const { db } = await getApp();
    const [row] = await queryRows<{ id: number }>(
      db.system,
      sql`select id from organizations where slug = ${slug}`,
    );
    return row.id;
  }

  test('a query as crm_app without the tenant setting returns no rows', async () => {
    const { db } = await getApp();
    await newTenant();
    const rows = await db.system.transaction(async (tx) => {
      await tx.execute(sql`select set_config('role', 'crm_app', true)`);
      return queryRows(tx, sql`select * from memberships`);
    });
    expect(rows).toEqual([]);
  });

  test('a reset setting (empty string) also returns no rows', async () => {
    const { db } = await getApp();
    await newTenant();
    const rows = await db.system.transaction(async (tx) => {
      await tx.execute(
        sql`select set_config('role', 'crm_app', true), set_config('app.organization_id', '', true)`,
      );
      return queryRows(tx, sql`select * from memberships`);
    });
    expect(rows).toEqual([]);
  });

  test('a tenant transaction sees only its own organization', async () => {
    const { db } = await getApp();
    const a = await newTenant();
    const b = await newTenant();
    const aId = await orgIdOf(a.slug);
    const bId = await orgIdOf(b.slug);
    const rows = await db.tenantTransaction(aId, (tx) =>
      queryRows<{ organization_id: number }>(tx, sql`select organization_id from memberships`),
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.organization_id === aId)).toBe(true);
    // Even an explicit filter on the other tenant finds nothing.
    const foreign = await db.tenantTransaction(aId, (tx) =>
      queryRows(tx, sql`select * from memberships where organization_id = ${bId}`),
    );
    expect(foreign).toEqual([]);
  });

  test('the database refuses an insert for another organization', async () => {
    const { db } = await getApp();
    const a = await newTenant();
    const b = await newTenant();
    const aId = await orgIdOf(a.slug);
    const bId = await orgIdOf(b.slug);
    const attempt = db.tenantTransaction(aId, (tx) =>
      tx.execute(sql`insert into audit_log (organization_id, action) values (${bId}, 'forged')`),
    );
    await expect(attempt).rejects.toMatchObject({ cause: expect.objectContaining({ code: '42501' }) });
    const updated = await db.tenantTransaction(aId, (tx) =>
      queryRows(tx, sql`update memberships set role = 'viewer' where organization_id = ${bId} returning id`),
    );
    expect(updated).toEqual([]);
  });

  test('requests run as crm_app, which is neither superuser nor owner and cannot bypass RLS', async () => {
    const { db } = await getApp();
    const a = await newTenant();
    const aId = await orgIdOf(a.slug);
    const [me] = await db.tenantTransaction(aId, (tx) =>
      queryRows<{ current_user: string; rolsuper: boolean; rolbypassrls: boolean }>(
        tx,
        sql`select current_user, r.rolsuper, r.rolbypassrls from pg_roles r where r.rolname = current_user`,
      ),
    );
    expect(me).toEqual({ current_user: 'crm_app', rolsuper: false, rolbypassrls: false });
  });

  test('every table with organization_id has RLS enabled and forced with the tenant policy', async () => {
    const { db } = await getApp();
    const tables = await queryRows<{
      relname: string;
      relrowsecurity: boolean;
      relforcerowsecurity: boolean;
      policies: number;
    }>(
      db.system,
      sql`select c.relname, c.relrowsecurity, c.relforcerowsecurity,
                 (select count(*)::int from pg_policies p where p.tablename = c.relname and p.policyname = 'tenant_isolation') as policies
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'public' and c.relkind = 'r'
            and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'organization_id' and not a.attisdropped)`,
    );
    expect(tables.length).toBeGreaterThan(1);
    for (const t of tables) {
      expect(t, t.relname).toMatchObject({ relrowsecurity: true, relforcerowsecurity: true, policies: 1 });
    }
  });

  test('a start with nothing new skips the migration, yet a policy dropped by hand is put back', async () => {
    const { db } = await getApp();
    const [state] = await queryRows<{ fingerprint: string }>(
      db.system,
      sql`select fingerprint from crm_schema_state where id = 1`,
    );
    expect(state.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    await db.system.execute(sql`alter table tags no force row level security`);
    await migrateDatabase(db, modules);
    const [tags] = await queryRows<{ forced: boolean }>(
      db.system,
      sql`select relforcerowsecurity as forced from pg_class where relname = 'tags'`,
    );
    expect(tags.forced).toBe(true);
  });

  test('organization_id leads the primary key and every index of tenant tables', async () => {
    const { db } = await getApp();
    const rows = await queryRows<{ table: string; index: string; first: string }>(
      db.system,
      sql`select t.relname as table, i.relname as index, a.attname as first
          from pg_index x
          join pg_class i on i.oid = x.indexrelid
          join pg_class t on t.oid = x.indrelid
          join pg_namespace n on n.oid = t.relnamespace
          left join pg_attribute a on a.attrelid = t.oid and a.attnum = x.indkey[0]
          where n.nspname = 'public'
            and exists (select 1 from pg_attribute c where c.attrelid = t.oid and c.attname = 'organization_id' and not c.attisdropped)`,
    );
    // Documented exceptions: global lookups that cannot know the tenant yet (docs/postgresql.md, "Indexes not led
    // by the tenant").
    const exceptions = new Set([
      'memberships_user_id_idx',
      'boards_document_id_idx',
      'invitations_token_hash_idx',
      // A public e-mail image URL names the asset's documentId only (docs/messaging.md).
      'email_assets_document_id_idx',
      // The campaign watchdog finds stalled senders of every organization (docs/messaging.md).
      'campaigns_status_heartbeat_idx',
      // The inbox's sweep fails the sends a crash left queued, in every organization (docs/inbox.md).
      'chat_messages_queued_idx',
      // The inbox's sweep reopens the conversations whose snooze has passed, in every organization (docs/inbox.md).
      'conversations_snoozed_idx',
      // The public leadgen webhook names a page and form only (docs/lead-ads.md).
      'lead_form_routes_page_form_idx',
      // A person's data-export link (/data-exports/{token}) names its one-time token only (docs/lgpd.md).
      'privacy_requests_token_hash_key',
      // The search copies' scoped trigram keys: each key is a hash of the board or organization with a run of the
      // text, so every key belongs to one tenant (docs/postgresql.md, docs/performance.md "Scoped trigram keys").
      'card_title_search_keys_idx',
      'contact_name_search_keys_idx',
    ]);
    const offenders = rows.filter((r) => r.first !== 'organization_id' && !exceptions.has(r.index));
    expect(offenders).toEqual([]);
  });
});
