import { and, asc, count, eq, or, type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { boards } from '../boards/table.js';
import { memberships } from '../organizations/table.js';
import { savedFilters } from './table.js';

export const savedFilterModel: QueryModel = {
  table: 'saved_filters',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    resource: { column: 'resource', type: 'string' },
    visibility: { column: 'visibility', type: 'string' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
};

export type SavedFilterRow = typeof savedFilters.$inferSelect & {
  boardDocumentId: string | null;
  boardName: string | null;
  ownerDocumentId: string | null;
};

/** Who is asking: their membership, and whether they see every board (owners and admins). */
export interface Viewer {
  membershipId: number;
  allBoards: boolean;
}

/**
 * What a member sees: organization filters and their own private ones, and of cards filters only those of boards
 * they can see (a shared filter must not name a board, or show its query, to someone the board is hidden from).
 */
const visibleTo = ({ membershipId, allBoards }: Viewer): SQL =>
  and(
    or(eq(savedFilters.visibility, 'organization'), eq(savedFilters.ownerMembershipId, membershipId)),
    allBoards
      ? undefined
      : sql`(${savedFilters.boardId} is null or exists (
          select 1 from boards b where b.organization_id = ${savedFilters.organizationId} and b.id = ${savedFilters.boardId}
            and (b.owner_membership_id = ${membershipId} or exists (
              select 1 from board_members m where m.organization_id = b.organization_id and m.board_id = b.id
                and m.membership_id = ${membershipId}))))`,
  ) as SQL;

const selection = {
  row: savedFilters,
  boardDocumentId: boards.documentId,
  boardName: boards.name,
  ownerDocumentId: memberships.documentId,
};

function select(tx: Tx, orgId: number) {
  return tx
    .select(selection)
    .from(savedFilters)
    .leftJoin(boards, and(eq(boards.organizationId, orgId), eq(boards.id, savedFilters.boardId)))
    .leftJoin(
      memberships,
      and(eq(memberships.organizationId, orgId), eq(memberships.id, savedFilters.ownerMembershipId)),
    );
}

const flatten = (r: {
  row: typeof savedFilters.$inferSelect;
  boardDocumentId: string | null;
  boardName: string | null;
  ownerDocumentId: string | null;
}): SavedFilterRow => ({
  ...r.row,
  boardDocumentId: r.boardDocumentId,
  boardName: r.boardName,
  ownerDocumentId: r.ownerDocumentId,
});

export async function findVisible(tx: Tx, orgId: number, viewer: Viewer, documentId: string) {
  const [row] = await select(tx, orgId).where(
    and(eq(savedFilters.organizationId, orgId), eq(savedFilters.documentId, documentId), visibleTo(viewer)),
  );
  return row ? flatten(row) : undefined;
}

export async function listVisible(
  tx: Tx,
  orgId: number,
  viewer: Viewer,
  q: CompiledList,
  resource: string | undefined,
) {
  const where = and(
    eq(savedFilters.organizationId, orgId),
    visibleTo(viewer),
    resource ? eq(savedFilters.resource, resource) : undefined,
    q.where,
  );
  const rows = await select(tx, orgId)
    .where(where)
    .orderBy(q.orderBy, asc(savedFilters.id))
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(savedFilters).where(where));
  return { rows: rows.map(flatten), total };
}

export interface SavedFilterValues {
  name: string;
  resource: string;
  boardId: number | null;
  query: unknown;
  visibility: string;
  ownerMembershipId: number;
}

export async function insertSavedFilter(tx: Tx, orgId: number, values: SavedFilterValues) {
  const [row] = await tx
    .insert(savedFilters)
    .values({ organizationId: orgId, documentId: newDocumentId(), ...values })
    .returning({ documentId: savedFilters.documentId });
  return row.documentId;
}

export async function updateSavedFilter(
  tx: Tx,
  orgId: number,
  id: number,
  values: Partial<Pick<SavedFilterValues, 'name' | 'query' | 'visibility'>>,
) {
  await tx
    .update(savedFilters)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(savedFilters.organizationId, orgId), eq(savedFilters.id, id)));
}

export async function deleteSavedFilter(tx: Tx, orgId: number, id: number) {
  await tx.delete(savedFilters).where(and(eq(savedFilters.organizationId, orgId), eq(savedFilters.id, id)));
}
