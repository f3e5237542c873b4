import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../platform/db/client.js';

/**
 * The tenant tables, read from the database's catalogue (every table of the public schema with an
 * `organization_id` column), never from a hand-written list: a table another module adds tomorrow is exported,
 * imported and deleted with its organization without a change here (docs/lgpd.md, "Organizations that leave").
 */
export interface TenantTable {
  name: string;
  /** The columns an insert writes (generated columns excluded), in table order. */
  columns: string[];
  /** The primary key's columns (organization_id first); empty for a table without one. */
  key: string[];
  /** Tenant tables this one references by a foreign key (itself excluded). */
  parents: string[];
  /** Identity columns (their sequences are moved past imported ids). */
  identity: string[];
}

/** Every tenant table, parents before children (an insert order that satisfies the foreign keys). */
export async function tenantTables(ex: Executor): Promise<TenantTable[]> {
  const rows = await queryRows<TenantTable>(
    ex,
    sql`select c.relname::text as "name",
          array(select a.attname::text from pg_attribute a
                where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                order by a.attnum) as "columns",
          array(select a.attname::text from pg_index i
                  cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
                  join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
                where i.indrelid = c.oid and i.indisprimary order by k.ord) as "key",
          array(select distinct p.relname::text from pg_constraint f join pg_class p on p.oid = f.confrelid
                where f.conrelid = c.oid and f.contype = 'f' and p.oid <> c.oid) as "parents",
          array(select a.attname::text from pg_attribute a
                where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attidentity <> ''
                order by a.attnum) as "identity"
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
          and exists (select 1 from pg_attribute a
                      where a.attrelid = c.oid and a.attname = 'organization_id' and not a.attisdropped)
        order by c.relname`,
  );
  return parentsFirst(rows);
}

/** Topological order (Kahn), ties by name; parents outside the set (users) are ignored. */
export function parentsFirst(tables: TenantTable[]): TenantTable[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const out: TenantTable[] = [];
  while (out.length < tables.length) {
    const ready = tables.filter(
      (t) => !done.has(t.name) && t.parents.every((p) => done.has(p) || !byName.has(p)),
    );
    // A cycle of foreign keys (none today): take the rest in name order rather than loop.
    const next = ready.length ? ready : tables.filter((t) => !done.has(t.name));
    for (const t of next) {
      done.add(t.name);
      out.push(t);
    }
  }
  return out;
}

/** A quoted identifier (names come from the catalogue, quoted all the same). */
export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
