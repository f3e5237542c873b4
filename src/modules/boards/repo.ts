import { and, asc, count, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type Executor, preparedRows, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { membershipModel } from '../../platform/tenancy/memberships.js';
import { cards } from '../cards/table.js';
import {
  BOARD_TYPES,
  boardMembers,
  boards,
  fieldConditions,
  fieldDefinitions,
  phases,
  tags,
} from './table.js';

export type BoardRow = typeof boards.$inferSelect;
export type PhaseRow = typeof phases.$inferSelect;
export type FieldRow = typeof fieldDefinitions.$inferSelect;
export type ConditionRow = typeof fieldConditions.$inferSelect;
export type TagRow = typeof tags.$inferSelect;
export type BoardMemberRow = typeof boardMembers.$inferSelect;

type BoardValues = Omit<typeof boards.$inferInsert, 'organizationId' | 'id' | 'documentId'>;
type PhaseValues = Omit<typeof phases.$inferInsert, 'organizationId' | 'id' | 'documentId' | 'boardId'>;
type FieldValues = Omit<
  typeof fieldDefinitions.$inferInsert,
  'organizationId' | 'id' | 'documentId' | 'boardId'
>;
type ConditionValues = Omit<
  typeof fieldConditions.$inferInsert,
  'organizationId' | 'id' | 'documentId' | 'boardId'
>;
type TagValues = Omit<typeof tags.$inferInsert, 'organizationId' | 'id' | 'documentId' | 'boardId'>;

export const boardModel: QueryModel = {
  table: 'boards',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    slug: { column: 'slug', type: 'string' },
    active: { column: 'active', type: 'boolean' },
    boardType: { column: 'board_type', type: 'string', values: BOARD_TYPES },
    icon: { column: 'icon', type: 'string' },
    color: { column: 'color', type: 'string' },
    template: { column: 'template', type: 'string' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  relations: {
    owner: {
      model: () => membershipModel,
      on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."owner_membership_id"`),
      foreignKey: 'owner_membership_id',
    },
  },
  // Board objects always carry their structure and people; these names are accepted for Strapi clients.
  populate: ['phases', 'tags', 'owner', 'members', 'editors'],
};

// ---- boards

export async function findBoard(tx: Executor, orgId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(boards)
    .where(and(eq(boards.organizationId, orgId), eq(boards.documentId, documentId)));
  return row as BoardRow | undefined;
}

export async function findBoardById(tx: Executor, orgId: number, id: number) {
  const [row] = await tx
    .select()
    .from(boards)
    .where(and(eq(boards.organizationId, orgId), eq(boards.id, id)));
  return row as BoardRow | undefined;
}

/** Serialises structure changes of one board (phase order renumbering, slug allocation). */
export async function lockBoard(tx: Tx, orgId: number, boardId: number) {
  await tx.execute(sql`select 1 from boards where organization_id = ${orgId} and id = ${boardId} for update`);
}

/** Boards a non-admin membership sees: it owns them, or is a member or editor of them. */
export function visibleTo(membershipId: number | SQL): SQL {
  return sql`(${boards.ownerMembershipId} = ${membershipId} or exists (select 1 from board_members bm
    where bm.organization_id = ${boards.organizationId} and bm.board_id = ${boards.id}
    and bm.membership_id = ${membershipId}))`;
}

export async function listBoards(tx: Tx, orgId: number, q: CompiledList, visibility: SQL | undefined) {
  const where = and(eq(boards.organizationId, orgId), q.where, visibility);
  const rows = await tx
    .select()
    .from(boards)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(boards).where(where));
  return { rows, total };
}

export async function insertBoard(tx: Tx, orgId: number, values: BoardValues) {
  const [row] = await tx
    .insert(boards)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .returning();
  return row;
}

export async function updateBoard(tx: Tx, orgId: number, id: number, values: Partial<BoardValues>) {
  const [row] = await tx
    .update(boards)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(boards.organizationId, orgId), eq(boards.id, id)))
    .returning();
  return row;
}

/** Foreign keys cascade to phases, fields, conditions, tags, members and the cards area's tables. */
export async function deleteBoard(tx: Tx, orgId: number, id: number) {
  await tx.delete(boards).where(and(eq(boards.organizationId, orgId), eq(boards.id, id)));
}

/** Serialises slug generation for one base slug of one organization until the transaction ends. */
export async function lockBoardSlug(tx: Tx, orgId: number, base: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`boards.slug:${orgId}:${base}`}, 0))`);
}

export async function boardSlugsLike(tx: Tx, orgId: number, base: string) {
  const rows = await tx
    .select({ slug: boards.slug })
    .from(boards)
    .where(and(eq(boards.organizationId, orgId), sql`${boards.slug} like ${`${base}%`}`));
  return new Set(rows.map((r) => r.slug));
}

// ---- board members

export async function listBoardMembers(tx: Executor, orgId: number, boardIds: number[]) {
  if (boardIds.length === 0) return [];
  return tx
    .select()
    .from(boardMembers)
    .where(and(eq(boardMembers.organizationId, orgId), inArray(boardMembers.boardId, boardIds)));
}

export async function membershipKinds(tx: Executor, orgId: number, boardId: number, membershipId: number) {
  const rows = await tx
    .select({ kind: boardMembers.kind })
    .from(boardMembers)
    .where(
      and(
        eq(boardMembers.organizationId, orgId),
        eq(boardMembers.boardId, boardId),
        eq(boardMembers.membershipId, membershipId),
      ),
    );
  return new Set(rows.map((r) => r.kind));
}

export async function replaceBoardMembers(
  tx: Tx,
  orgId: number,
  boardId: number,
  kind: 'member' | 'editor',
  membershipIds: number[],
) {
  await tx
    .delete(boardMembers)
    .where(
      and(
        eq(boardMembers.organizationId, orgId),
        eq(boardMembers.boardId, boardId),
        eq(boardMembers.kind, kind),
      ),
    );
  const unique = [...new Set(membershipIds)];
  if (unique.length === 0) return;
  await tx
    .insert(boardMembers)
    .values(unique.map((membershipId) => ({ organizationId: orgId, boardId, membershipId, kind })));
}

// ---- phases

export async function listPhases(tx: Executor, orgId: number, boardIds: number[]) {
  if (boardIds.length === 0) return [];
  return tx
    .select()
    .from(phases)
    .where(and(eq(phases.organizationId, orgId), inArray(phases.boardId, boardIds)))
    .orderBy(asc(phases.boardId), asc(phases.order), asc(phases.id));
}

export async function insertPhase(tx: Tx, orgId: number, boardId: number, values: PhaseValues) {
  const [row] = await tx
    .insert(phases)
    .values({ ...values, organizationId: orgId, boardId, documentId: newDocumentId() })
    .returning();
  return row;
}

export async function updatePhase(tx: Tx, orgId: number, id: number, values: Partial<PhaseValues>) {
  const [row] = await tx
    .update(phases)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(phases.organizationId, orgId), eq(phases.id, id)))
    .returning();
  return row;
}

export async function deletePhase(tx: Tx, orgId: number, id: number) {
  await tx.delete(phases).where(and(eq(phases.organizationId, orgId), eq(phases.id, id)));
}

export async function countCardsInPhase(tx: Tx, orgId: number, boardId: number, phaseId: number) {
  const [{ n }] = await tx
    .select({ n: count() })
    .from(cards)
    .where(
      and(eq(cards.organizationId, orgId), eq(cards.boardId, boardId), eq(cards.currentPhaseId, phaseId)),
    );
  return n;
}

/** Writes `order` 0..n-1 in the given sequence; the phase at 0 is the entry form, always public. */
export async function renumberPhases(tx: Tx, orgId: number, boardId: number, orderedIds: number[]) {
  if (orderedIds.length === 0) return;
  const cases = sql.join(
    orderedIds.map((id, i) => sql`when ${id}::bigint then ${i}::int`),
    sql` `,
  );
  await tx.execute(sql`update phases set "order" = case id ${cases} end,
      is_public = case when id = ${orderedIds[0]}::bigint then true else is_public end
    where organization_id = ${orgId} and board_id = ${boardId} and id in ${orderedIds}`);
}

// ---- fields

export async function insertField(tx: Tx, orgId: number, boardId: number, values: FieldValues) {
  const [row] = await tx
    .insert(fieldDefinitions)
    .values({ ...values, organizationId: orgId, boardId, documentId: newDocumentId() })
    .returning();
  return row;
}

export async function updateField(tx: Tx, orgId: number, id: number, values: Partial<FieldValues>) {
  const [row] = await tx
    .update(fieldDefinitions)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(fieldDefinitions.organizationId, orgId), eq(fieldDefinitions.id, id)))
    .returning();
  return row;
}

export async function deleteField(tx: Tx, orgId: number, id: number) {
  await tx
    .delete(fieldDefinitions)
    .where(and(eq(fieldDefinitions.organizationId, orgId), eq(fieldDefinitions.id, id)));
}

// ---- field conditions

export async function listConditions(tx: Executor, orgId: number, boardId: number) {
  return tx
    .select()
    .from(fieldConditions)
    .where(and(eq(fieldConditions.organizationId, orgId), eq(fieldConditions.boardId, boardId)))
    .orderBy(asc(fieldConditions.order), asc(fieldConditions.id));
}

export async function insertCondition(tx: Tx, orgId: number, boardId: number, values: ConditionValues) {
  const [row] = await tx
    .insert(fieldConditions)
    .values({ ...values, organizationId: orgId, boardId, documentId: newDocumentId() })
    .returning();
  return row;
}

export async function updateCondition(tx: Tx, orgId: number, id: number, values: Partial<ConditionValues>) {
  const [row] = await tx
    .update(fieldConditions)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(fieldConditions.organizationId, orgId), eq(fieldConditions.id, id)))
    .returning();
  return row;
}

export async function deleteCondition(tx: Tx, orgId: number, id: number) {
  await tx
    .delete(fieldConditions)
    .where(and(eq(fieldConditions.organizationId, orgId), eq(fieldConditions.id, id)));
}

// ---- tags

export async function insertTag(tx: Tx, orgId: number, boardId: number, values: TagValues) {
  const [row] = await tx
    .insert(tags)
    .values({ ...values, organizationId: orgId, boardId, documentId: newDocumentId() })
    .returning();
  return row;
}

export async function updateTag(tx: Tx, orgId: number, id: number, values: Partial<TagValues>) {
  const [row] = await tx
    .update(tags)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(tags.organizationId, orgId), eq(tags.id, id)))
    .returning();
  return row;
}

export async function deleteTag(tx: Tx, orgId: number, id: number) {
  await tx.delete(tags).where(and(eq(tags.organizationId, orgId), eq(tags.id, id)));
}

// ---- structure in one statement

export interface StructureRows {
  phases: PhaseRow[];
  fields: FieldRow[];
  tags: TagRow[];
  /** The boards' field conditions, ordered like listConditions (per board): card writes need them. */
  conditions: ConditionRow[];
}

/**
 * The phase, field and tag rows of some boards in one statement, each list ordered like listPhases,
 * listFields and listTags order it, with the same values (a `json_agg` per table, mapped back to rows).
 */
export async function listStructure(tx: Executor, orgId: number, boardIds: number[]): Promise<StructureRows> {
  if (boardIds.length === 0) return { phases: [], fields: [], tags: [], conditions: [] };
  const [row] = await preparedRows<Record<keyof StructureRows, Record<string, unknown>[]>>(
    tx,
    sql`select
      (select coalesce(json_agg(p order by p.board_id, p."order", p.id), '[]') from phases p
        where p.organization_id = ${orgId} and p.board_id = any(${sql.param(boardIds)}::bigint[])) as phases,
      (select coalesce(json_agg(f order by f."order", f.id), '[]') from field_definitions f
        where f.organization_id = ${orgId} and f.board_id = any(${sql.param(boardIds)}::bigint[])) as fields,
      (select coalesce(json_agg(t order by t.name, t.id), '[]') from tags t
        where t.organization_id = ${orgId} and t.board_id = any(${sql.param(boardIds)}::bigint[])) as tags,
      (select coalesce(json_agg(c order by c.board_id, c."order", c.id), '[]') from field_conditions c
        where c.organization_id = ${orgId} and c.board_id = any(${sql.param(boardIds)}::bigint[])) as conditions`,
  );
  return {
    phases: rowsFromJson(phases, row.phases),
    fields: rowsFromJson(fieldDefinitions, row.fields),
    tags: rowsFromJson(tags, row.tags),
    conditions: rowsFromJson(fieldConditions, row.conditions),
  };
}

/**
 * A board (by documentId) and its structure rows in ONE statement: what every card request reads first (one round
 * trip instead of two). Undefined when there is no such board in the organization. `queued`: whether the board
 * has an active distribution queue (a card create without one needs no queue read of its own).
 *
 * The structure rows are remembered per process with the board's `structure_version` (structure-version.ts): the
 * statement sends them only when the board's number differs from the one remembered, read in the same statement
 * as the board row, so a change committed by any process is seen by the next read. A number is never reused, so
 * rows remembered from a transaction that rolled back are never matched. The rows are frozen (shared by requests).
 */
export async function findBoardWithStructure(
  tx: Executor,
  orgId: number,
  documentId: string,
): Promise<{ board: BoardRow; rows: StructureRows; queued: boolean } | undefined> {
  const key = `${orgId}:${documentId}`;
  const known = structures.get(key);
  const [row] = await preparedRows<
    { board: Record<string, unknown> | null; queued: boolean; fresh: boolean } & Record<
      keyof StructureRows,
      Record<string, unknown>[]
    >
  >(
    tx,
    sql`with b as (select * from boards where organization_id = ${orgId} and document_id = ${documentId}),
      fresh as (select not exists (select 1 from b where id = ${known?.boardId ?? -1}::bigint
        and structure_version = ${known?.version ?? -1}::bigint) as yes)
    select
      (select to_jsonb(b) from b) as board,
      (select coalesce(json_agg(p order by p.board_id, p."order", p.id), '[]') from phases p
        where (select yes from fresh) and p.organization_id = ${orgId} and p.board_id = (select id from b)) as phases,
      (select coalesce(json_agg(f order by f."order", f.id), '[]') from field_definitions f
        where (select yes from fresh) and f.organization_id = ${orgId} and f.board_id = (select id from b)) as fields,
      (select coalesce(json_agg(t order by t.name, t.id), '[]') from tags t
        where (select yes from fresh) and t.organization_id = ${orgId} and t.board_id = (select id from b)) as tags,
      (select coalesce(json_agg(c order by c.board_id, c."order", c.id), '[]') from field_conditions c
        where (select yes from fresh) and c.organization_id = ${orgId} and c.board_id = (select id from b)) as conditions,
      (select yes from fresh) as fresh,
      exists (select 1 from distribution_queues q
        where q.organization_id = ${orgId} and q.board_id = (select id from b) and q.active) as queued`,
  );
  if (!row?.board) return undefined;
  const board = rowsFromJson(boards, [row.board])[0];
  if (!row.fresh && known) return { queued: row.queued, board, rows: known.rows };
  const rows = deepFreeze({
    phases: rowsFromJson(phases, row.phases),
    fields: rowsFromJson(fieldDefinitions, row.fields),
    tags: rowsFromJson(tags, row.tags),
    conditions: rowsFromJson(fieldConditions, row.conditions),
  });
  if (structures.size >= STRUCTURES_KEPT) structures.delete(structures.keys().next().value!);
  structures.set(key, { boardId: board.id, version: board.structureVersion, rows });
  return { queued: row.queued, board, rows };
}

/** The structures findBoardWithStructure remembers, by organization and board documentId (oldest out first). */
const structures = new Map<string, { boardId: number; version: number; rows: StructureRows }>();
const STRUCTURES_KEPT = 2_000;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * Rows of `table` from `json_agg` objects: snake_case keys become the column properties; timestamps (ISO
 * strings in JSON) become Dates as Drizzle maps them. Ids and integers are JSON numbers already (bigint
 * fits in 2^53) and jsonb comes parsed, so those are kept as they are.
 */
function rowsFromJson<T extends PgTable>(table: T, raw: Record<string, unknown>[]): T['$inferSelect'][] {
  const columns = Object.entries(getTableColumns(table));
  return raw.map((r) => {
    const out: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = r[column.name] ?? null;
      out[key] =
        column.dataType === 'date' && typeof value === 'string' ? column.mapFromDriverValue(value) : value;
    }
    return out as T['$inferSelect'];
  });
}

// ---- public form

/**
 * The organization of a board, found by documentId alone. Runs on `db.system` (outside RLS) because the
 * public form has no tenant header; it returns the organization id only, and everything after it runs
 * in a tenant transaction of that organization.
 */
export async function findBoardOrganization(system: Executor, documentId: string) {
  const [row] = await system
    .select({ organizationId: boards.organizationId })
    .from(boards)
    .where(eq(boards.documentId, documentId))
    .limit(1);
  return row?.organizationId;
}
