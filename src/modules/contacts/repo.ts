import { and, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { auditLog } from '../../platform/audit/table.js';
import { unnestInsertSql } from '../../platform/db/bulk-insert.js';
import { preparedRows, queryRows, type Tx } from '../../platform/db/client.js';
import { isDeepPage, keyIn } from '../../platform/db/deep-pages.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { sqlRowMapper } from '../../platform/db/rows.js';
import { insertEventsCtes } from '../../platform/events/outbox.js';
import { AppError, isUniqueViolation } from '../../platform/http/errors.js';
import { type CompiledList, countIf } from '../../platform/http/list-query.js';
import type { MembershipRef } from '../../platform/http/schemas.js';
import { userRefOf } from '../../platform/tenancy/memberships.js';
import { countContacts } from './counts.js';
import { countNameMatches } from './name-search.js';
import type { ActivityType } from './schema.js';
import { searchCondition } from './search.js';
import { contactActivities, contacts } from './table.js';

export { contactModel } from './query-model.js';

export type ContactRow = typeof contacts.$inferSelect;
export type ContactValues = Partial<
  Omit<typeof contacts.$inferInsert, 'organizationId' | 'id' | 'searchText'>
>;

export interface ContactRef {
  documentId: string;
  name: string;
  email: string | null;
  phone: string | null;
}

/** ContactRefs for a set of internal contact ids (cards, timeline, conversations show them). */
export async function contactRefsByIds(
  tx: Tx,
  orgId: number,
  ids: number[],
): Promise<Map<number, ContactRef>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await tx
    .select({
      id: contacts.id,
      documentId: contacts.documentId,
      name: contacts.name,
      email: contacts.email,
      phone: contacts.phone,
    })
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), inArray(contacts.id, unique)));
  return new Map(rows.map(({ id, ...ref }) => [id, ref]));
}

/**
 * The owners (as MembershipRefs, like membershipRefsByIds) and teams (like teamRefsByIds) of a page of
 * contacts, in one statement: one round trip fewer than the two reads when a page has both.
 */
export async function ownerAndTeamRefs(tx: Tx, orgId: number, ownerIds: number[], teamIds: number[]) {
  const owners = new Map<number, MembershipRef>();
  const teams = new Map<number, { documentId: string; name: string }>();
  if (ownerIds.length === 0 && teamIds.length === 0) return { owners, teams };
  const rows = await preparedRows<{
    kind: 'owner' | 'team';
    id: number;
    documentId: string;
    /** The user's username, the team's name. */
    name: string;
    email: string | null;
    blocked: boolean | null;
    /** The user's display name (null for teams). */
    userName: string | null;
  }>(
    tx,
    sql`select 'owner' as kind, m.id, m.document_id as "documentId", u.username as name, u.email, u.blocked,
        u.name as "userName"
      from memberships m
      join users u on u.id = m.user_id
      where m.organization_id = ${orgId} and m.id = any(${sql.param(ownerIds)}::bigint[])
      union all
      select 'team', t.id, t.document_id, t.name, null, null, null
      from teams t
      where t.organization_id = ${orgId} and t.id = any(${sql.param(teamIds)}::bigint[])`,
  );
  for (const r of rows) {
    if (r.kind === 'team') teams.set(r.id, { documentId: r.documentId, name: r.name });
    else
      owners.set(r.id, {
        documentId: r.documentId,
        user: userRefOf({ username: r.name, email: r.email!, blocked: r.blocked!, name: r.userName }),
      });
  }
  return { owners, teams };
}

/** Internal id of a contact named by documentId, or undefined when absent in this organization. */
export async function contactIdByDocumentId(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select({ id: contacts.id })
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), eq(contacts.documentId, documentId)));
  return row?.id;
}

export async function findContact(tx: Tx, orgId: number, documentId: string, lock = false) {
  const query = tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), eq(contacts.documentId, documentId)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/**
 * The contacts of these documentIds, locked for the caller's transaction. In id order, as every write that locks
 * several contacts takes them (bulk update, bulk delete, merge): two such writes over the same contacts then
 * wait for each other instead of deadlocking (each holding a row the other one wants).
 */
export async function findContactsByDocumentIds(tx: Tx, orgId: number, documentIds: string[]) {
  if (documentIds.length === 0) return [];
  return tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), inArray(contacts.documentId, documentIds)))
    .orderBy(contacts.id)
    .for('update');
}

const contactRow = sqlRowMapper(contacts);
const activityRow = sqlRowMapper(contactActivities);

/** New contacts in one statement (an import's batch: one array per column, bulk-insert.ts). */
export async function insertContacts(tx: Tx, orgId: number, values: ContactValues[]) {
  if (values.length === 0) return [];
  const rows = values.map((v) => ({
    ...v,
    name: v.name as string,
    organizationId: orgId,
    documentId: newDocumentId(),
  }));
  const raw = await queryRows<Record<string, unknown>>(tx, unnestInsertSql(contacts, rows, true));
  return raw.map(contactRow.map);
}

export async function updateContact(tx: Tx, orgId: number, id: number, values: ContactValues) {
  const [row] = await tx
    .update(contacts)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(contacts.organizationId, orgId), eq(contacts.id, id)))
    .returning();
  return row;
}

export async function deleteContact(tx: Tx, orgId: number, id: number) {
  await tx.delete(contacts).where(and(eq(contacts.organizationId, orgId), eq(contacts.id, id)));
}

/** The rows a list/mass operation selects: tenant first, then the compiled filters and the search. */
export function selectionWhere(orgId: number, where: SQL | undefined, q: string | undefined): SQL {
  const parts = [eq(contacts.organizationId, orgId)];
  if (where) parts.push(where);
  if (q) parts.push(searchCondition(q));
  return and(...parts) as SQL;
}

/**
 * A page of contacts and the total. `nameSearch` (nameSearchOf: the filter is only `name $containsi` that text)
 * takes the total from the narrow name search table, and `whole` (no filter, no `q`) from the organization's
 * contact count (counts.ts); the page is the same walk either way.
 */
export async function listContacts(
  tx: Tx,
  orgId: number,
  list: CompiledList,
  q: string | undefined,
  nameSearch?: string,
  whole = false,
) {
  const where = selectionWhere(orgId, list.where, q);
  // The page and its total leave together (one socket write on PostgreSQL: first-query-begin.ts).
  const [rows, total] = await Promise.all([
    pageOf(tx, orgId, where, list),
    countIf(list, () =>
      nameSearch !== undefined
        ? countNameMatches(tx, orgId, nameSearch)
        : whole
          ? countContacts(tx, orgId)
          : tx.select({ total: count() }).from(contacts).where(where),
    ),
  ]);
  return { rows, total };
}

/** The page's rows; a deep page reads its keys from the list's index first (deep-pages.ts). */
function pageOf(tx: Tx, orgId: number, where: SQL, list: CompiledList) {
  if (!isDeepPage(list.offset))
    return tx
      .select()
      .from(contacts)
      .where(where)
      .orderBy(list.orderBy)
      .offset(list.offset)
      .limit(list.pageSize);
  const keys = tx
    .select({ organizationId: contacts.organizationId, id: contacts.id })
    .from(contacts)
    .where(where)
    .orderBy(list.orderBy)
    .offset(list.offset)
    .limit(list.pageSize);
  return tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), keyIn(contacts.organizationId, contacts.id, keys)))
    .orderBy(list.orderBy);
}

/**
 * Deletes the selected contacts (their timeline cascades) with one audit row each. Locked first, in id order
 * (findContactsByDocumentIds), not in the order the delete's scan meets them.
 */
export async function deleteContactsWhere(tx: Tx, actorUserId: number, where: SQL) {
  const [{ deleted }] = await queryRows<{ deleted: number }>(
    tx,
    sql`with target as (
          select organization_id, id from contacts where ${where} order by id for update
        ), gone as (
          delete from contacts c using target t where c.organization_id = t.organization_id and c.id = t.id
          returning c.organization_id, c.document_id, c.name, c.email, c.cpf, c.cnpj
        ), logged as (
          insert into ${auditLog} (organization_id, actor_user_id, action, entity_document_id, data)
          select organization_id, ${actorUserId}, 'contact.deleted', document_id,
                 jsonb_build_object('name', name, 'email', email, 'cpf', cpf, 'cnpj', cnpj, 'bulk', true)
          from gone
          returning 1
        )
        select count(*)::int as deleted from gone`,
  );
  return deleted;
}

// ---------------------------------------------------------------------------------------------
// Timeline

export interface ActivityInput {
  contactId: number;
  activityType: ActivityType;
  description: string;
  actorId: number | null;
  metadata?: Record<string, unknown>;
  performedAt?: Date;
}

export async function insertActivities(tx: Tx, orgId: number, entries: ActivityInput[]) {
  if (entries.length === 0) return [];
  const now = new Date();
  const rows = entries.map((e) => ({
    organizationId: orgId,
    documentId: newDocumentId(),
    contactId: e.contactId,
    activityType: e.activityType,
    description: e.description,
    actorId: e.actorId,
    metadata: e.metadata ?? {},
    performedAt: e.performedAt ?? now,
  }));
  const raw = await queryRows<Record<string, unknown>>(tx, unnestInsertSql(contactActivities, rows, true));
  return raw.map(activityRow.map);
}

export async function listActivities(tx: Tx, orgId: number, contactId: number, list: CompiledList) {
  const where = and(
    eq(contactActivities.organizationId, orgId),
    eq(contactActivities.contactId, contactId),
    list.where,
  );
  const rows = await tx
    .select()
    .from(contactActivities)
    .where(where)
    .orderBy(list.orderBy)
    .offset(list.offset)
    .limit(list.pageSize);
  const total = await countIf(list, () => tx.select({ total: count() }).from(contactActivities).where(where));
  return { rows, total };
}

/** Moves the timeline of merged contacts to the survivor. */
export async function moveActivities(tx: Tx, orgId: number, fromIds: number[], toId: number) {
  const moved = await tx
    .update(contactActivities)
    .set({ contactId: toId })
    .where(and(eq(contactActivities.organizationId, orgId), inArray(contactActivities.contactId, fromIds)))
    .returning({ id: contactActivities.id });
  return moved.length;
}

/**
 * Other areas' tables that point at contacts through a `contact_id` column (cards, conversations, …):
 * found in the catalogue so a merge re-points all of them, whichever areas are installed. Not the contacts' own
 * name search copy: its rows are the contacts' (the merged ones' go with their delete).
 */
export async function moveContactReferences(tx: Tx, orgId: number, fromIds: number[], toId: number) {
  const tables = await queryRows<{ table_name: string }>(
    tx,
    sql`select c.table_name from information_schema.columns c
        join information_schema.columns o on o.table_schema = c.table_schema and o.table_name = c.table_name
          and o.column_name = 'organization_id'
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
          and t.table_type = 'BASE TABLE'
        where c.table_schema = 'public' and c.column_name = 'contact_id'
          and c.table_name not in ('contact_activities', 'contacts', 'contact_name_search')
        order by c.table_name`,
  );
  const moved: Record<string, number> = {};
  for (const { table_name } of tables) {
    const rows = await queryRows<{ n: number }>(
      tx,
      sql`with m as (update ${sql.identifier(table_name)} set contact_id = ${toId}
            where organization_id = ${orgId} and contact_id in ${fromIds} returning 1)
          select count(*)::int as n from m`,
    ).catch((err) => {
      // A table that allows one row per contact: both contacts have one, so they cannot be merged.
      if (!isUniqueViolation(err)) throw err;
      throw new AppError(
        'UnprocessableEntityError',
        `These contacts cannot be merged: both have ${table_name}`,
        {
          table: table_name,
        },
      );
    });
    moved[table_name] = rows[0].n;
  }
  return moved;
}

/** A deleted team leaves its contacts without team (locked in id order); each gets a team_changed entry. */
export async function clearTeamFromContacts(
  tx: Tx,
  orgId: number,
  teamId: number,
  actorId: number,
  team: string,
) {
  const [{ n }] = await queryRows<{ n: number }>(
    tx,
    sql`with target as (
          select id from contacts where organization_id = ${orgId} and team_id = ${teamId} order by id for update
        ), cleared as (
          update contacts c set team_id = null, updated_at = now()
          from target t where c.organization_id = ${orgId} and c.id = t.id
          returning c.id
        ), logged as (
          insert into ${contactActivities} (organization_id, document_id, contact_id, activity_type, description, actor_id, metadata)
          select ${orgId}, ${randomDocumentIdSql}, id, 'team_changed', 'Team removed: the team was deleted', ${actorId},
                 jsonb_build_object('from', ${team}::text, 'to', null, 'reason', 'team_deleted')
          from cleared
          returning 1
        )
        select count(*)::int as n from cleared`,
  );
  return n;
}

/** A documentId made in SQL for set-based inserts (24 lowercase hex characters of a v4 UUID). */
export const randomDocumentIdSql = sql`substr(replace(gen_random_uuid()::text, '-', ''), 1, 24)`;

export interface BulkChange {
  owner?: { id: number | null; documentId: string | null };
  team?: { id: number | null; documentId: string | null };
  columns: ContactValues;
  customFields?: Record<string, unknown>;
}

const bulkColumns: Record<string, string> = {
  contactType: 'contact_type',
  city: 'city',
  state: 'state',
  country: 'country',
};

/**
 * The SET list of a bulk update, the fields its contact_updated entry names, and `changes`: the SQL array of
 * the API names whose value really moved, for the event.
 */
function bulkUpdateSets(change: BulkChange) {
  const sets: SQL[] = [sql`updated_at = now()`];
  const fields: string[] = [];
  // The event's `changes`: the API names of the columns whose value moved (old row t, new row c).
  const moved: SQL[] = [];
  const track = (column: string, name: string) =>
    moved.push(
      sql`case when t.${sql.identifier(column)} is distinct from c.${sql.identifier(column)} then ${name}::text end`,
    );
  for (const [key, column] of Object.entries(bulkColumns)) {
    const v = change.columns[key as keyof ContactValues];
    if (v === undefined) continue;
    sets.push(sql`${sql.identifier(column)} = ${v}`);
    fields.push(column);
    track(column, column);
  }
  if (change.customFields) {
    sets.push(
      sql`custom_fields = jsonb_strip_nulls(c.custom_fields || ${JSON.stringify(change.customFields)}::jsonb)`,
    );
    fields.push('customFields');
    track('custom_fields', 'customFields');
  }
  const owner = change.owner;
  if (owner) {
    sets.push(sql`owner_id = ${owner.id}::bigint`);
    sets.push(
      sql`owned_at = case when c.owner_id is not distinct from ${owner.id}::bigint then c.owned_at when ${owner.id}::bigint is null then null else now() end`,
    );
    track('owner_id', 'ownerId');
  }
  if (change.team) {
    sets.push(sql`team_id = ${change.team.id}::bigint`);
    track('team_id', 'teamId');
  }
  const changes = moved.length
    ? sql`array_remove(array[${sql.join(moved, sql`, `)}], null)`
    : sql`'{}'::text[]`;
  return { sets, fields, changes };
}

/**
 * The `logged` step of a bulk update, which writes its timeline entries: contact_updated naming the fields set,
 * owner and team entries only where they really changed (no step when there is nothing to log).
 */
function bulkTimelineStep(orgId: number, actorId: number, change: BulkChange, fields: string[]): SQL {
  const owner = change.owner;
  const entry = (type: SQL, description: SQL, metadata: SQL, from: SQL, cond: SQL) =>
    sql`select ${orgId}::bigint, ${randomDocumentIdSql}, id, ${type}, ${description}, ${actorId}::bigint, ${metadata} from ${from} where ${cond}`;
  const entries: SQL[] = [];
  if (fields.length)
    entries.push(
      entry(
        sql`'contact_updated'`,
        sql`${`Updated ${fields.join(', ')} (bulk update)`}`,
        sql`jsonb_build_object('fields', ${JSON.stringify(fields)}::jsonb, 'bulk', true)`,
        sql`upd`,
        sql`true`,
      ),
    );
  if (owner)
    entries.push(
      entry(
        sql`case when old_owner is null then 'owner_assigned' else 'owner_changed' end`,
        sql`${owner.id ? 'Owner set (bulk update)' : 'Owner removed (bulk update)'}`,
        sql`jsonb_build_object('from', (select m.document_id from memberships m where m.organization_id = ${orgId} and m.id = old_owner), 'to', ${owner.documentId}::text, 'bulk', true)`,
        sql`upd`,
        sql`old_owner is distinct from new_owner`,
      ),
    );
  if (change.team)
    entries.push(
      entry(
        sql`case when old_team is null then 'team_assigned' else 'team_changed' end`,
        sql`${change.team.id ? 'Team set (bulk update)' : 'Team removed (bulk update)'}`,
        sql`jsonb_build_object('from', (select t.document_id from teams t where t.organization_id = ${orgId} and t.id = old_team), 'to', ${change.team.documentId}::text, 'bulk', true)`,
        sql`upd`,
        sql`old_team is distinct from new_team`,
      ),
    );
  return entries.length
    ? sql`, logged as (
          insert into ${contactActivities} (organization_id, document_id, contact_id, activity_type, description, actor_id, metadata)
          ${sql.join(entries, sql` union all `)}
          returning 1)`
    : sql``;
}

/**
 * One statement for any number of contacts: updates the selection and writes its timeline entries
 * (contact_updated for plain fields; owner and team entries only where they really changed) and, like a single
 * update, a `contact.updated` event for each contact that really changed, naming the changed fields. The
 * selection is locked first, in id order (findContactsByDocumentIds).
 */
export async function bulkUpdateContacts(
  tx: Tx,
  orgId: number,
  actorId: number,
  where: SQL,
  change: BulkChange,
) {
  const { sets, fields, changes } = bulkUpdateSets(change);
  const logged = bulkTimelineStep(orgId, actorId, change, fields);
  const events = insertEventsCtes(
    'events',
    orgId,
    'contact.updated',
    sql`select 'contact:' || document_id as subject,
          jsonb_build_object(
            'contact', jsonb_build_object('documentId', document_id, 'name', name, 'email', email, 'phone', phone),
            'changes', to_jsonb(changes)) as data
        from upd where cardinality(changes) > 0 order by id`,
  );
  const [{ n }] = await queryRows<{ n: number }>(
    tx,
    sql`with target as (
          select * from contacts where ${where} order by id for update
        ), upd as (
          update contacts c set ${sql.join(sets, sql`, `)}
          from target t where c.organization_id = ${orgId} and c.id = t.id
          returning c.id, t.owner_id as old_owner, c.owner_id as new_owner, t.team_id as old_team, c.team_id as new_team,
            c.document_id, c.name, c.email, c.phone, ${changes} as changes
        )${logged}, ${events}
        select count(*)::int as n from upd`,
  );
  return n;
}
