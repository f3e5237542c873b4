import { and, asc, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { userRefOf } from '../../platform/tenancy/memberships.js';
import { memberships } from '../organizations/table.js';
import { teams } from '../teams/table.js';
import { users } from '../users/table.js';
import type { SegmentNode } from './compile.js';
import type { SegmentFilters } from './schema.js';
import { segmentLinks, segments } from './table.js';

export const segmentModel: QueryModel = {
  table: 'segments',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    description: { column: 'description', type: 'string' },
    active: { column: 'active', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  privateFields: ['id', 'organizationId', 'filters'],
};

export type SegmentRow = typeof segments.$inferSelect;

export interface SegmentValues {
  name: string;
  description: string | null;
  active: boolean;
  filters: SegmentFilters;
}

/**
 * Serialises writes to one organization's segment links, so two concurrent updates cannot each add
 * half of a cycle that neither sees.
 */
export async function lockSegmentGraph(tx: Tx, orgId: number) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`segments:${orgId}`}, 0))`);
}

export async function insertSegment(tx: Tx, orgId: number, values: SegmentValues) {
  const [row] = await tx
    .insert(segments)
    .values({ organizationId: orgId, documentId: newDocumentId(), ...values })
    .returning();
  return row;
}

export async function updateSegment(tx: Tx, orgId: number, id: number, values: Partial<SegmentValues>) {
  const [row] = await tx
    .update(segments)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(segments.organizationId, orgId), eq(segments.id, id)))
    .returning();
  return row;
}

export async function deleteSegment(tx: Tx, orgId: number, id: number) {
  await tx.delete(segments).where(and(eq(segments.organizationId, orgId), eq(segments.id, id)));
}

export async function findSegment(
  tx: Tx,
  orgId: number,
  documentId: string,
): Promise<SegmentRow | undefined> {
  const [row] = await tx
    .select()
    .from(segments)
    .where(and(eq(segments.organizationId, orgId), eq(segments.documentId, documentId)));
  return row;
}

export async function listSegments(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(segments.organizationId, orgId), q.where);
  const rows = await tx
    .select()
    .from(segments)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(segments).where(where));
  return { rows, total };
}

/** Internal ids of segments named by documentId in this organization; unknown ones are absent. */
export async function segmentIdsByDocumentIds(tx: Tx, orgId: number, documentIds: string[]) {
  if (documentIds.length === 0) return new Map<string, number>();
  const rows = await tx
    .select({ id: segments.id, documentId: segments.documentId })
    .from(segments)
    .where(and(eq(segments.organizationId, orgId), inArray(segments.documentId, documentIds)));
  return new Map(rows.map((r) => [r.documentId, r.id]));
}

export async function replaceLinks(
  tx: Tx,
  orgId: number,
  segmentId: number,
  links: { required: number[]; excluded: number[] },
) {
  await tx
    .delete(segmentLinks)
    .where(and(eq(segmentLinks.organizationId, orgId), eq(segmentLinks.segmentId, segmentId)));
  const rows = [
    ...links.required.map((id, position) => ({ linkedSegmentId: id, kind: 'required', position })),
    ...links.excluded.map((id, position) => ({ linkedSegmentId: id, kind: 'excluded', position })),
  ].map((r) => ({ ...r, organizationId: orgId, segmentId }));
  if (rows.length) await tx.insert(segmentLinks).values(rows);
}

/** requiredSegments / excludedSegments (documentIds, saved order) of each segment. */
export async function linkDocumentIds(tx: Tx, orgId: number, segmentIds: number[]) {
  const out = new Map<number, { required: string[]; excluded: string[] }>();
  for (const id of segmentIds) out.set(id, { required: [], excluded: [] });
  if (segmentIds.length === 0) return out;
  const rows = await tx
    .select({ segmentId: segmentLinks.segmentId, kind: segmentLinks.kind, documentId: segments.documentId })
    .from(segmentLinks)
    .innerJoin(
      segments,
      and(
        eq(segments.organizationId, segmentLinks.organizationId),
        eq(segments.id, segmentLinks.linkedSegmentId),
      ),
    )
    .where(and(eq(segmentLinks.organizationId, orgId), inArray(segmentLinks.segmentId, segmentIds)))
    .orderBy(asc(segmentLinks.position));
  for (const r of rows)
    out.get(r.segmentId)?.[r.kind === 'required' ? 'required' : 'excluded'].push(r.documentId);
  return out;
}

/** The roots and every segment reachable from them through links, with their links (internal ids). */
export async function loadGraph(tx: Tx, orgId: number, rootIds: number[]): Promise<Map<number, SegmentNode>> {
  if (rootIds.length === 0) return new Map();
  const rows = await queryRows<{
    id: number;
    document_id: string;
    filters: SegmentFilters;
    required: number[] | null;
    excluded: number[] | null;
  }>(
    tx,
    sql`with recursive reach(id) as (
      select s.id from segments s where s.organization_id = ${orgId} and s.id in ${rootIds}
      union
      select l.linked_segment_id from segment_links l join reach r on l.segment_id = r.id
      where l.organization_id = ${orgId}
    )
    select s.id, s.document_id, s.filters,
      array_agg(l.linked_segment_id order by l.position) filter (where l.kind = 'required') as required,
      array_agg(l.linked_segment_id order by l.position) filter (where l.kind = 'excluded') as excluded
    from segments s
    join reach on reach.id = s.id
    left join segment_links l on l.organization_id = s.organization_id and l.segment_id = s.id
    where s.organization_id = ${orgId}
    group by s.id, s.document_id, s.filters`,
  );
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        id: Number(r.id),
        documentId: r.document_id,
        filters: r.filters,
        required: (r.required ?? []).map(Number),
        excluded: (r.excluded ?? []).map(Number),
      },
    ]),
  );
}

/** Segments that link to this one, directly or through others (they change when it changes). */
export async function ancestorIds(tx: Tx, orgId: number, segmentId: number): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    tx,
    sql`with recursive up(id) as (
      select l.segment_id from segment_links l where l.organization_id = ${orgId} and l.linked_segment_id = ${segmentId}
      union
      select l.segment_id from segment_links l join up on l.linked_segment_id = up.id where l.organization_id = ${orgId}
    )
    select id from up`,
  );
  return rows.map((r) => Number(r.id));
}

/** Segments that name this one in requiredSegments or excludedSegments. */
export async function directDependents(tx: Tx, orgId: number, segmentId: number) {
  return tx
    .selectDistinct({ documentId: segments.documentId, name: segments.name })
    .from(segmentLinks)
    .innerJoin(
      segments,
      and(eq(segments.organizationId, segmentLinks.organizationId), eq(segments.id, segmentLinks.segmentId)),
    )
    .where(and(eq(segmentLinks.organizationId, orgId), eq(segmentLinks.linkedSegmentId, segmentId)));
}

/** How many of the organization's contacts match each predicate: one scan for all of them. */
export async function countMatches(tx: Tx, orgId: number, predicates: SQL[]): Promise<number[]> {
  if (predicates.length === 0) return [];
  const columns = predicates.map((p, i) => sql`count(*) filter (where ${p})::int as ${sql.raw(`"c${i}"`)}`);
  const [row] = await queryRows<Record<string, number>>(
    tx,
    sql`select ${sql.join(columns, sql`, `)} from contacts where contacts.organization_id = ${orgId}`,
  );
  return predicates.map((_, i) => Number(row[`c${i}`]));
}

/** customFields keys present on the organization's contacts, most used first. */
export async function customFieldKeys(tx: Tx, orgId: number, limit: number) {
  const rows = await queryRows<{ slug: string; contacts: number }>(
    tx,
    sql`select k.slug, count(*)::int as contacts
      from contacts c, jsonb_object_keys(c.custom_fields) as k(slug)
      where c.organization_id = ${orgId} and jsonb_typeof(c.custom_fields) = 'object'
      group by k.slug order by contacts desc, k.slug limit ${limit}`,
  );
  return rows.map((r) => ({ slug: r.slug, contacts: Number(r.contacts) }));
}

export async function teamOptions(tx: Tx, orgId: number, limit: number) {
  return tx
    .select({ documentId: teams.documentId, name: teams.name })
    .from(teams)
    .where(eq(teams.organizationId, orgId))
    .orderBy(asc(teams.name))
    .limit(limit);
}

export async function segmentOptions(tx: Tx, orgId: number, limit: number) {
  return tx
    .select({ documentId: segments.documentId, name: segments.name })
    .from(segments)
    .where(eq(segments.organizationId, orgId))
    .orderBy(asc(segments.name))
    .limit(limit);
}

/** Members of the organization as MembershipRefs (owner condition choices). */
export async function ownerOptions(tx: Tx, orgId: number, limit: number) {
  const rows = await tx
    .select({
      documentId: memberships.documentId,
      username: users.username,
      email: users.email,
      blocked: users.blocked,
      name: users.name,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, orgId))
    .orderBy(asc(users.username))
    .limit(limit);
  return rows.map((r) => ({
    documentId: r.documentId,
    user: userRefOf(r),
  }));
}

/** Which of these owner (membership) and team documentIds exist in the organization. */
export async function existingRelationIds(tx: Tx, orgId: number, owners: string[], teamIds: string[]) {
  const o = owners.length
    ? await tx
        .select({ documentId: memberships.documentId })
        .from(memberships)
        .where(and(eq(memberships.organizationId, orgId), inArray(memberships.documentId, owners)))
    : [];
  const t = teamIds.length
    ? await tx
        .select({ documentId: teams.documentId })
        .from(teams)
        .where(and(eq(teams.organizationId, orgId), inArray(teams.documentId, teamIds)))
    : [];
  return { owners: new Set(o.map((r) => r.documentId)), teams: new Set(t.map((r) => r.documentId)) };
}
