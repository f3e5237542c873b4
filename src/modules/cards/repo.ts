import { and, asc, eq, inArray, isNull, lt, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { deferStatement, preparedRows, queryRows, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { sqlRowMapper } from '../../platform/db/rows.js';
import type { MembershipRef } from '../../platform/http/schemas.js';
import type { ContactRef } from '../contacts/repo.js';
import { memberships } from '../organizations/table.js';
import { users } from '../users/table.js';
import { cardAssignees, cardFiles, cards, cardTags, comments } from './table.js';

export type CardRow = typeof cards.$inferSelect;
export type CommentRow = typeof comments.$inferSelect;
export type FileRow = typeof cardFiles.$inferSelect;
export type CardValues = Omit<typeof cards.$inferInsert, 'organizationId' | 'id' | 'documentId' | 'boardId'>;

/** Cards a non-admin may see on a board that restricts viewing to assignees. */
export function assignedTo(membershipId: number): SQL {
  return sql`exists (select 1 from card_assignees va where va.organization_id = ${cards.organizationId} and va.card_id = ${cards.id} and va.membership_id = ${membershipId})`;
}

function cardScope(orgId: number, boardId: number, visibility: SQL | undefined, where?: SQL) {
  return and(eq(cards.organizationId, orgId), eq(cards.boardId, boardId), visibility, where);
}

/** `where` narrowed to one phase by id (for the planner: the same set when `where` already pins that phase). */
export function inPhase(where: SQL, phaseId: number): SQL {
  return and(where, eq(cards.currentPhaseId, phaseId))!;
}

export async function findCard(
  tx: Tx,
  orgId: number,
  boardId: number,
  documentId: string,
  visibility: SQL | undefined,
  forUpdate = false,
) {
  const query = tx
    .select()
    .from(cards)
    .where(cardScope(orgId, boardId, visibility, eq(cards.documentId, documentId)));
  // Writes lock the row: field merges and moves are read-modify-write.
  const [row] = forUpdate ? await query.for('update') : await query;
  return row;
}

const cardRow = sqlRowMapper(cards);

/**
 * New cards of one board with their assignees, tags and history comments in ONE statement (data-modifying CTEs; one
 * round trip however many cards, instead of four per card). The rows come back in the order given, as jsonb mapped
 * to drizzle rows by the columns' own decoders (sqlRowMapper).
 */
export async function insertCardsWithLinks(
  tx: Tx,
  orgId: number,
  boardId: number,
  items: { values: CardValues; assigneeIds: number[]; tagIds: number[]; history: CommentValues }[],
): Promise<CardRow[]> {
  const documentIds = items.map(() => newDocumentId());
  const insert = tx
    .insert(cards)
    .values(
      items.map((it, i) => ({ ...it.values, organizationId: orgId, boardId, documentId: documentIds[i] })),
    )
    .returning()
    .getSQL();
  // The links name their card by documentId (the cards' ids are known only inside the statement).
  const pairs = (pick: (it: (typeof items)[number]) => number[]) =>
    JSON.stringify(items.flatMap((it, i) => pick(it).map((x) => ({ d: documentIds[i], x: Math.trunc(x) }))));
  const history = items.map((it, i) => {
    const h = it.history;
    return {
      d: documentIds[i],
      document_id: newDocumentId(),
      content: h.content,
      content_format: h.contentFormat ?? 'plain',
      type: h.type ?? 'user',
      activity_type: h.activityType ?? null,
      mentions: h.mentions ?? [],
      author_membership_id: h.authorMembershipId ?? null,
      metadata: h.metadata ?? {},
    };
  });
  const raw = await queryRows<{ row: Record<string, unknown> }>(
    tx,
    sql`with c as (${insert}),
      a as (
        insert into card_assignees (organization_id, card_id, membership_id)
        select c.organization_id, c.id, l.x
        from jsonb_to_recordset(${pairs((it) => it.assigneeIds)}::jsonb) as l(d text, x bigint)
        join c on c.document_id = l.d
        on conflict do nothing
      ),
      t as (
        insert into card_tags (organization_id, card_id, tag_id)
        select c.organization_id, c.id, l.x
        from jsonb_to_recordset(${pairs((it) => it.tagIds)}::jsonb) as l(d text, x bigint)
        join c on c.document_id = l.d
        on conflict do nothing
      ),
      h as (
        insert into comments (organization_id, document_id, card_id, content, content_format, type, activity_type,
          mentions, author_membership_id, metadata)
        select c.organization_id, h.document_id, c.id, h.content, h.content_format, h.type, h.activity_type,
          array(select jsonb_array_elements_text(h.mentions)), h.author_membership_id, h.metadata
        from jsonb_to_recordset(${JSON.stringify(history)}::jsonb) as h(d text, document_id text, content text,
          content_format text, type text, activity_type text, mentions jsonb, author_membership_id bigint, metadata jsonb)
        join c on c.document_id = h.d
      )
      select to_jsonb(c) as row from c`,
  );
  const byDocumentId = new Map(raw.map(({ row }) => [row.document_id as string, cardRow.map(row)]));
  return documentIds.map((d) => byDocumentId.get(d)!);
}

export async function updateCard(tx: Tx, orgId: number, id: number, values: Partial<CardValues>) {
  const [row] = await tx
    .update(cards)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(cards.organizationId, orgId), eq(cards.id, id)))
    .returning();
  return row;
}

export async function deleteCard(tx: Tx, orgId: number, id: number) {
  await tx.delete(cards).where(and(eq(cards.organizationId, orgId), eq(cards.id, id)));
}

export async function listCards(
  tx: Tx,
  orgId: number,
  boardId: number,
  q: { where: SQL; orderBy: SQL; offset: number; pageSize: number },
  visibility: SQL | undefined,
) {
  return tx
    .select()
    .from(cards)
    .where(cardScope(orgId, boardId, visibility, q.where))
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
}

export interface StatsOptions {
  todayStart: Date;
  /** SLA of the one phase the filter pins, in hours. */
  slaHours: number | null;
}

/** The total and CardStats of the filtered set in one aggregate query (never rows). */
export async function countAndStats(
  tx: Tx,
  orgId: number,
  boardId: number,
  where: SQL,
  visibility: SQL | undefined,
  stats: StatsOptions | null,
) {
  return totalAndStats(tx, cards, cardScope(orgId, boardId, visibility, where), stats, {
    phaseEnteredAt: cards.currentPhaseEnteredAt,
    dueDate: cards.dueDate,
    value: cards.value,
  });
}

/**
 * The total and CardStats of the rows of `from` (the cards, or their narrow title-search copies) that `where`
 * keeps, in one aggregate; `cols` are that table's columns for the stats.
 */
export async function totalAndStats(
  tx: Tx,
  from: PgTable,
  where: SQL | undefined,
  stats: StatsOptions | null,
  cols: { phaseEnteredAt: PgColumn; dueDate: PgColumn; value: PgColumn },
) {
  if (!stats) {
    const [row] = await tx.select({ total: sql<number>`count(*)::int` }).from(from).where(where);
    return { total: row.total, stats: null };
  }
  const sla =
    stats.slaHours === null
      ? sql`0`
      : sql`count(*) filter (where ${cols.phaseEnteredAt} < now() - make_interval(hours => ${stats.slaHours}::int))`;
  const [row] = await tx
    .select({
      total: sql<number>`count(*)::int`,
      overdueCount: sql<number>`(count(*) filter (where ${cols.dueDate} < ${stats.todayStart.toISOString()}::timestamptz))::int`,
      valueSum: sql<number>`coalesce(sum(${cols.value}), 0)::float8`,
      phaseSlaBreachedCount: sql<number>`(${sla})::int`,
    })
    .from(from)
    .where(where);
  const { total, ...rest } = row;
  return { total, stats: rest };
}

// ---- relations, batched per page

export async function assigneeIdsByCard(tx: Tx, orgId: number, cardIds: number[]) {
  const out = new Map<number, number[]>();
  if (cardIds.length === 0) return out;
  const rows = await tx
    .select({ cardId: cardAssignees.cardId, membershipId: cardAssignees.membershipId })
    .from(cardAssignees)
    .where(and(eq(cardAssignees.organizationId, orgId), inArray(cardAssignees.cardId, cardIds)))
    .orderBy(asc(cardAssignees.membershipId));
  for (const r of rows) out.set(r.cardId, [...(out.get(r.cardId) ?? []), r.membershipId]);
  return out;
}

export async function tagIdsByCard(tx: Tx, orgId: number, cardIds: number[]) {
  const out = new Map<number, number[]>();
  if (cardIds.length === 0) return out;
  const rows = await tx
    .select({ cardId: cardTags.cardId, tagId: cardTags.tagId })
    .from(cardTags)
    .where(and(eq(cardTags.organizationId, orgId), inArray(cardTags.cardId, cardIds)))
    .orderBy(asc(cardTags.tagId));
  for (const r of rows) out.set(r.cardId, [...(out.get(r.cardId) ?? []), r.tagId]);
  return out;
}

export interface CardRelations {
  /** Per card, its assignees as MembershipRefs, ordered by membership id. */
  assignees: Map<number, MembershipRef[]>;
  /** Per card, its tag ids in ascending order. */
  tagIds: Map<number, number[]>;
  /** The ContactRefs of the contact ids asked for (contactRefsByIds' answer). */
  contacts: Map<number, ContactRef>;
}

/**
 * What presenting a page of cards needs besides the cards, in one statement: the assignees (with the
 * membership's documentId and user, like membershipRefsByIds), the tag ids of each card and the cards'
 * contacts (like contactRefsByIds). One round trip instead of two: on a card page a statement costs the
 * service about as much CPU as all the presenting (docs/performance.md, sixth pass).
 */
export async function relationsByCard(
  tx: Tx,
  orgId: number,
  cardIds: number[],
  contactIds: number[] = [],
): Promise<CardRelations> {
  const out: CardRelations = { assignees: new Map(), tagIds: new Map(), contacts: new Map() };
  if (cardIds.length === 0 && contactIds.length === 0) return out;
  const rows = await preparedRows<{
    kind: 'assignee' | 'contact' | 'tag';
    cardId: number | null;
    id: number;
    documentId: string | null;
    /** The user's username, the contact's name. */
    name: string | null;
    email: string | null;
    blocked: boolean | null;
    phone: string | null;
  }>(
    tx,
    sql`select 'assignee' as kind, ca.card_id as "cardId", ca.membership_id as id, m.document_id as "documentId",
        u.username as name, u.email, u.blocked, null::text as phone
      from card_assignees ca
      join memberships m on m.organization_id = ${orgId} and m.id = ca.membership_id
      join users u on u.id = m.user_id
      where ca.organization_id = ${orgId} and ca.card_id = any(${sql.param(cardIds)}::bigint[])
      union all
      select 'contact', null, c.id, c.document_id, c.name, c.email, null, c.phone
      from contacts c
      where c.organization_id = ${orgId} and c.id = any(${sql.param(contactIds)}::bigint[])
      union all
      select 'tag', ct.card_id, ct.tag_id, null, null, null, null, null
      from card_tags ct
      where ct.organization_id = ${orgId} and ct.card_id = any(${sql.param(cardIds)}::bigint[])
      order by kind, id`,
  );
  for (const r of rows) {
    if (r.kind === 'tag') {
      const ids = out.tagIds.get(r.cardId!);
      if (ids) ids.push(r.id);
      else out.tagIds.set(r.cardId!, [r.id]);
      continue;
    }
    if (r.kind === 'contact') {
      out.contacts.set(r.id, { documentId: r.documentId!, name: r.name!, email: r.email, phone: r.phone });
      continue;
    }
    const ref = {
      documentId: r.documentId!,
      user: { username: r.name!, email: r.email!, blocked: r.blocked! },
    };
    const refs = out.assignees.get(r.cardId!);
    if (refs) refs.push(ref);
    else out.assignees.set(r.cardId!, [ref]);
  }
  return out;
}

export async function addAssignees(tx: Tx, orgId: number, cardId: number, membershipIds: number[]) {
  if (membershipIds.length === 0) return;
  await tx
    .insert(cardAssignees)
    .values(membershipIds.map((membershipId) => ({ organizationId: orgId, cardId, membershipId })))
    .onConflictDoNothing();
}

export async function removeAssignees(tx: Tx, orgId: number, cardId: number, membershipIds: number[]) {
  if (membershipIds.length === 0) return;
  await tx
    .delete(cardAssignees)
    .where(
      and(
        eq(cardAssignees.organizationId, orgId),
        eq(cardAssignees.cardId, cardId),
        inArray(cardAssignees.membershipId, membershipIds),
      ),
    );
}

export async function addTags(tx: Tx, orgId: number, cardId: number, tagIds: number[]) {
  if (tagIds.length === 0) return;
  await tx
    .insert(cardTags)
    .values(tagIds.map((tagId) => ({ organizationId: orgId, cardId, tagId })))
    .onConflictDoNothing();
}

export async function removeTags(tx: Tx, orgId: number, cardId: number, tagIds: number[]) {
  if (tagIds.length === 0) return;
  await tx
    .delete(cardTags)
    .where(
      and(eq(cardTags.organizationId, orgId), eq(cardTags.cardId, cardId), inArray(cardTags.tagId, tagIds)),
    );
}

/** documentIds of cards (any board) of the organization that exist, for card_link values. */
export async function existingCardDocumentIds(tx: Tx, orgId: number, documentIds: string[]) {
  if (documentIds.length === 0) return new Set<string>();
  const rows = await tx
    .select({ documentId: cards.documentId })
    .from(cards)
    .where(and(eq(cards.organizationId, orgId), inArray(cards.documentId, documentIds)));
  return new Set(rows.map((r) => r.documentId));
}

// ---- files

export async function insertFile(
  tx: Tx,
  orgId: number,
  values: Omit<typeof cardFiles.$inferInsert, 'organizationId' | 'id'>,
) {
  const [row] = await tx
    .insert(cardFiles)
    .values({ ...values, organizationId: orgId })
    .returning();
  return row;
}

/**
 * Uploads of a board a card write references, locked until the write commits: the sweep's delete of an
 * unattached upload then waits and skips it once attached, or this finds it gone (files.ts).
 */
export async function filesByDocumentIds(tx: Tx, orgId: number, boardId: number, documentIds: string[]) {
  if (documentIds.length === 0) return new Map<string, FileRow>();
  const rows = await tx
    .select()
    .from(cardFiles)
    .where(
      and(
        eq(cardFiles.organizationId, orgId),
        eq(cardFiles.boardId, boardId),
        inArray(cardFiles.documentId, documentIds),
      ),
    )
    .for('update');
  return new Map(rows.map((r) => [r.documentId, r]));
}

/** Gives a card the uploads it references that belong to no card yet. */
export async function attachFiles(tx: Tx, orgId: number, cardId: number, fileIds: number[]) {
  if (fileIds.length === 0) return;
  await tx
    .update(cardFiles)
    .set({ cardId })
    .where(
      and(eq(cardFiles.organizationId, orgId), inArray(cardFiles.id, fileIds), isNull(cardFiles.cardId)),
    );
}

const storageKeys = (rows: { storageKey: string }[]) => rows.map((r) => r.storageKey);

export async function deleteCardFiles(tx: Tx, orgId: number, cardId: number) {
  return storageKeys(
    await tx
      .delete(cardFiles)
      .where(and(eq(cardFiles.organizationId, orgId), eq(cardFiles.cardId, cardId)))
      .returning({ storageKey: cardFiles.storageKey }),
  );
}

export async function deleteBoardFiles(tx: Tx, orgId: number, boardId: number) {
  return storageKeys(
    await tx
      .delete(cardFiles)
      .where(and(eq(cardFiles.organizationId, orgId), eq(cardFiles.boardId, boardId)))
      .returning({ storageKey: cardFiles.storageKey }),
  );
}

/** Uploads no card took within the grace period. */
export async function deleteUnattachedFiles(tx: Tx, orgId: number, createdBefore: Date) {
  return storageKeys(
    await tx
      .delete(cardFiles)
      .where(
        and(
          eq(cardFiles.organizationId, orgId),
          isNull(cardFiles.cardId),
          lt(cardFiles.createdAt, createdBefore),
        ),
      )
      .returning({ storageKey: cardFiles.storageKey }),
  );
}

/** The file documentIds among `documentIds` that still have a row. */
export async function existingFileDocumentIds(tx: Tx, orgId: number, documentIds: string[]) {
  if (documentIds.length === 0) return new Set<string>();
  const rows = await tx
    .select({ documentId: cardFiles.documentId })
    .from(cardFiles)
    .where(and(eq(cardFiles.organizationId, orgId), inArray(cardFiles.documentId, documentIds)));
  return new Set(rows.map((r) => r.documentId));
}

/** Serialises the quota check and insert of one organization's uploads until the transaction ends. */
export async function lockOrganizationStorage(tx: Tx, orgId: number) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`card_files.quota:${orgId}`}, 0))`);
}

export async function organizationStorageUsed(tx: Tx, orgId: number): Promise<number> {
  const [row] = await tx
    .select({ used: sql<number>`coalesce(sum(${cardFiles.size}), 0)::bigint` })
    .from(cardFiles)
    .where(eq(cardFiles.organizationId, orgId));
  return Number(row.used);
}

export async function findFile(tx: Tx, orgId: number, boardId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(cardFiles)
    .where(
      and(
        eq(cardFiles.organizationId, orgId),
        eq(cardFiles.boardId, boardId),
        eq(cardFiles.documentId, documentId),
      ),
    );
  return row;
}

// ---- comments

export type CommentValues = Omit<typeof comments.$inferInsert, 'organizationId' | 'id' | 'documentId'>;

const insertCommentsSql = (tx: Tx, orgId: number, values: CommentValues[]) =>
  tx
    .insert(comments)
    .values(values.map((v) => ({ ...v, organizationId: orgId, documentId: newDocumentId() })));

export async function insertComments(tx: Tx, orgId: number, values: CommentValues[]) {
  if (values.length === 0) return [];
  return insertCommentsSql(tx, orgId, values).returning();
}

/** History entries nobody reads back here: the insert leaves with the transaction's next statement. */
export async function recordHistory(tx: Tx, orgId: number, values: CommentValues[]) {
  if (values.length === 0) return;
  await deferStatement(tx, insertCommentsSql(tx, orgId, values).getSQL(), values.length === 1);
}

export async function listComments(tx: Tx, orgId: number, cardId: number, offset: number, limit: number) {
  const where = and(eq(comments.organizationId, orgId), eq(comments.cardId, cardId));
  const rows = await tx
    .select()
    .from(comments)
    .where(where)
    .orderBy(asc(comments.createdAt), asc(comments.id))
    .offset(offset)
    .limit(limit);
  const [{ total }] = await tx.select({ total: sql<number>`count(*)::int` }).from(comments).where(where);
  return { rows, total };
}

export async function findComment(tx: Tx, orgId: number, cardId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(comments)
    .where(
      and(
        eq(comments.organizationId, orgId),
        eq(comments.cardId, cardId),
        eq(comments.documentId, documentId),
      ),
    );
  return row;
}

export async function updateComment(tx: Tx, orgId: number, id: number, values: Partial<CommentValues>) {
  const [row] = await tx
    .update(comments)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(comments.organizationId, orgId), eq(comments.id, id)))
    .returning();
  return row;
}

export async function deleteComment(tx: Tx, orgId: number, id: number) {
  await tx.delete(comments).where(and(eq(comments.organizationId, orgId), eq(comments.id, id)));
}

/** Display names (usernames) of memberships, for the aggregate's assignee groups. */
export async function membershipNames(tx: Tx, orgId: number, ids: number[]) {
  if (ids.length === 0) return new Map<number, { documentId: string; username: string }>();
  const rows = await tx
    .select({ id: memberships.id, documentId: memberships.documentId, username: users.username })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, orgId), inArray(memberships.id, ids)));
  return new Map(rows.map((r) => [r.id, { documentId: r.documentId, username: r.username }]));
}

// ---- report and aggregate (SQL aggregates only)

export interface ReportScope {
  orgId: number;
  boardId: number;
  from: Date;
  to: Date;
  /** Non-admins on a board restricted to assignees: their membership id. */
  assigneeOnly: number | null;
}

function reportWhere(s: ReportScope) {
  return sql`c.organization_id = ${s.orgId} and c.board_id = ${s.boardId}
    and c.created_at >= ${s.from.toISOString()}::timestamptz and c.created_at <= ${s.to.toISOString()}::timestamptz
    ${s.assigneeOnly === null ? sql`` : sql`and exists (select 1 from card_assignees va where va.organization_id = c.organization_id and va.card_id = c.id and va.membership_id = ${s.assigneeOnly})`}`;
}

export interface ReportRow {
  /** total / won / lost / open (summary), phase, assignee, tag, day; pending: the rollup deltas not folded yet. */
  kind: 'total' | 'won' | 'lost' | 'open' | 'phase' | 'assignee' | 'tag' | 'day' | 'pending';
  /** phase, membership or tag id; null = no phase / unassigned / untagged. */
  key: number | null;
  day: string | null;
  count: number;
  value: number;
  /** Assignee rows: the membership's documentId and username. */
  documentId: string | null;
  username: string | null;
}

/**
 * The whole board report in ONE statement: phases and UTC days are one GROUPING SETS pass over the board's
 * cards in range; assignees and tags one hash left join each, whose null group is the unassigned / untagged
 * count (no per-card probes); the summary is summed from the per-phase groups (numeric sums, cast once).
 * `c` is NOT materialised: each pass is an index-only scan of the board's cards, which costs less than a
 * 200k-row tuplestore and lets PostgreSQL run the joins in parallel (measured: docs/performance.md).
 */
export async function boardReportFromCards(
  tx: Tx,
  s: ReportScope,
  wonPhaseId: number | null,
  lostPhaseId: number | null,
) {
  const won = sql`${wonPhaseId ?? -1}::bigint`;
  const lost = sql`${lostPhaseId ?? -1}::bigint`;
  return queryRows<ReportRow>(
    tx,
    sql`with c as not materialized (
        select c.id, c.current_phase_id, c.value, c.created_at from cards c where ${reportWhere(s)}
      ),
      pd as (
        select c.current_phase_id as phase, (c.created_at at time zone 'UTC')::date as day,
          grouping(c.current_phase_id) as g, count(*) as n, coalesce(sum(c.value), 0) as v
        from c group by grouping sets ((c.current_phase_id), ((c.created_at at time zone 'UTC')::date))
      ),
      p as (select phase, n, v from pd where g = 0),
      a as (
        select ca.membership_id as key, count(*) as n, coalesce(sum(c.value), 0) as v
        from c left join card_assignees ca on ca.organization_id = ${s.orgId} and ca.card_id = c.id
        group by ca.membership_id
      ),
      t as (
        select ct.tag_id as key, count(*) as n
        from c left join card_tags ct on ct.organization_id = ${s.orgId} and ct.card_id = c.id
        group by ct.tag_id
      )
      select 'total' as kind, null::bigint as key, null as day, coalesce(sum(n), 0)::int as count,
        coalesce(sum(v), 0)::float8 as value, null as "documentId", null as username from p
      union all select 'won', null, null, coalesce(sum(n), 0)::int, coalesce(sum(v), 0)::float8, null, null
        from p where phase = ${won}
      union all select 'lost', null, null, coalesce(sum(n), 0)::int, coalesce(sum(v), 0)::float8, null, null
        from p where phase = ${lost}
      union all select 'open', null, null, coalesce(sum(n), 0)::int, coalesce(sum(v), 0)::float8, null, null
        from p where phase is distinct from ${won} and phase is distinct from ${lost}
      union all select 'phase', phase, null, n::int, v::float8, null, null from p
      union all select 'day', null, to_char(day, 'YYYY-MM-DD'), n::int, 0, null, null from pd where g = 1
      union all select 'assignee', a.key, null, a.n::int, a.v::float8, m.document_id, u.username from a
        left join memberships m on m.organization_id = ${s.orgId} and m.id = a.key
        left join users u on u.id = m.user_id
      union all select 'tag', key, null, n::int, 0, null, null from t`,
  );
}

const DAY_MS = 86_400_000;

/**
 * The board report from its rollups (report-rollups.ts): the whole UTC days of the range are read from
 * `card_report_rollups` + `card_report_deltas` (a few rows per day, dimension and key), the partial days at its
 * two ends from the cards themselves (a range of the created index), and both summed in ONE statement into the
 * same rows `boardReportFromCards` returns. When the range ends now (the default), its last day is read whole
 * from the rollups too, less the cards of that day created after its end (a sign of -1: none, or the last
 * minute's) — today's cards, which a busy board has thousands of, are not read one by one on every report. A
 * range shorter than a whole day, or a viewer restricted to their own cards, reads the cards
 * (`boardReportFromCards`).
 */
export async function boardReport(
  tx: Tx,
  s: ReportScope,
  wonPhaseId: number | null,
  lostPhaseId: number | null,
): Promise<ReportRow[]> {
  const firstDay = Math.ceil(s.from.getTime() / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(s.to.getTime() / DAY_MS) * DAY_MS;
  // Ends now: the last day whole from the rollups, less what that day holds after the end.
  const endsNow = s.to.getTime() >= Date.now() - 60_000;
  const endDay = endsNow ? lastDay + DAY_MS : lastDay;
  if (s.assigneeOnly !== null || firstDay >= endDay)
    return boardReportFromCards(tx, s, wonPhaseId, lostPhaseId);
  const won = sql`${wonPhaseId ?? -1}::bigint`;
  const lost = sql`${lostPhaseId ?? -1}::bigint`;
  const from = s.from.toISOString();
  const to = s.to.toISOString();
  const dA = new Date(firstDay).toISOString();
  const dB = new Date(endDay).toISOString();
  const day = (col: string) => sql.raw(`(${col} at time zone 'UTC')::date`);
  const board = sql`organization_id = ${s.orgId} and board_id = ${s.boardId}`;
  const days = sql`day >= ${dA.slice(0, 10)}::date and day < ${dB.slice(0, 10)}::date`;
  return queryRows<ReportRow>(
    tx,
    sql`with e as (
        select c.id, c.current_phase_id, c.value, c.created_at,
          case when c.created_at > ${to}::timestamptz then -1 else 1 end as s from cards c
        where c.organization_id = ${s.orgId} and c.board_id = ${s.boardId}
          and ((c.created_at >= ${from}::timestamptz and c.created_at < ${dA}::timestamptz)
            or ${
              endsNow
                ? sql`(c.created_at > ${to}::timestamptz and c.created_at < ${dB}::timestamptz)`
                : sql`(c.created_at >= ${dB}::timestamptz and c.created_at <= ${to}::timestamptz)`
            })
      ),
      r as (
        select kind, key, day, card_count as n, value_sum as v from card_report_rollups where ${board} and ${days}
        union all
        select kind, key, day, card_count, value_sum from card_report_deltas where ${board} and ${days}
        union all
        select 'p', coalesce(e.current_phase_id, 0), ${day('e.created_at')}, e.s, e.s * e.value from e
        union all
        select 'a', ca.membership_id, ${day('e.created_at')}, e.s, e.s * e.value from e
          join card_assignees ca on ca.organization_id = ${s.orgId} and ca.card_id = e.id
        union all
        select 't', ct.tag_id, ${day('e.created_at')}, e.s, e.s * e.value from e
          join card_tags ct on ct.organization_id = ${s.orgId} and ct.card_id = e.id
        union all
        select 'A', 0, ${day('e.created_at')}, e.s, e.s * e.value from e where exists (
          select 1 from card_assignees ca where ca.organization_id = ${s.orgId} and ca.card_id = e.id)
        union all
        select 'T', 0, ${day('e.created_at')}, e.s, e.s * e.value from e where exists (
          select 1 from card_tags ct where ct.organization_id = ${s.orgId} and ct.card_id = e.id)
      ),
      k as (select kind, key, sum(n) as n, coalesce(sum(v), 0) as v from r group by kind, key having sum(n) <> 0),
      p as (select nullif(key, 0) as phase, n, v from k where kind = 'p'),
      tot as (select coalesce(sum(n), 0) as n, coalesce(sum(v), 0) as v from p),
      withany as (
        select kind, coalesce(sum(n), 0) as n, coalesce(sum(v), 0) as v from k where kind in ('A', 'T') group by kind
      )
      select 'total' as kind, null::bigint as key, null as day, n::int as count, v::float8 as value,
        null as "documentId", null as username from tot
      union all select 'won', null, null, coalesce(sum(n), 0)::int, coalesce(sum(v), 0)::float8, null, null
        from p where phase = ${won}
      union all select 'lost', null, null, coalesce(sum(n), 0)::int, coalesce(sum(v), 0)::float8, null, null
        from p where phase = ${lost}
      union all select 'open', null, null, coalesce(sum(n), 0)::int, coalesce(sum(v), 0)::float8, null, null
        from p where phase is distinct from ${won} and phase is distinct from ${lost}
      union all select 'phase', phase, null, n::int, v::float8, null, null from p
      union all select 'day', null, to_char(day, 'YYYY-MM-DD'), sum(n)::int, 0, null, null from r
        where kind = 'p' group by day having sum(n) <> 0
      union all select 'assignee', k.key, null, k.n::int, k.v::float8, m.document_id, u.username from k
        left join memberships m on m.organization_id = ${s.orgId} and m.id = k.key
        left join users u on u.id = m.user_id
        where k.kind = 'a'
      union all select 'assignee', null, null, (tot.n - coalesce(a.n, 0))::int, (tot.v - coalesce(a.v, 0))::float8,
        null, null from tot left join withany a on a.kind = 'A' where tot.n - coalesce(a.n, 0) > 0
      union all select 'tag', key, null, n::int, 0, null, null from k where kind = 't'
      union all select 'tag', null, null, (tot.n - coalesce(t.n, 0))::int, 0, null, null
        from tot left join withany t on t.kind = 'T' where tot.n - coalesce(t.n, 0) > 0
      union all select 'pending', null, null, count(*)::int, 0, null, null from card_report_deltas where ${board}`,
  );
}

/** Aggregate expressions over the `cards` table. */
export const valueExpr = () => sql`${cards.value}`;
export const numericFieldExpr = (fieldDocumentId: string) =>
  sql`(case when jsonb_typeof(${cards.fields} -> ${fieldDocumentId}::text) = 'number' then (${cards.fields} ->> ${fieldDocumentId}::text)::numeric end)`;
/** Non-null when the field is filled: `count(expr)` counts filled values. */
export const filledFieldExpr = (fieldDocumentId: string) =>
  sql`(${cards.fields} -> ${fieldDocumentId}::text)`;

export type GroupKind = 'phase' | 'assignee' | 'tag' | 'field' | null;

/**
 * `fn(expr)` over the filtered cards, optionally per group, in one statement: the grouped rows plus the
 * overall value and count (a scalar subquery, so cards in several tag/assignee groups count once there).
 */
export async function aggregateCards(
  tx: Tx,
  orgId: number,
  boardId: number,
  where: SQL,
  visibility: SQL | undefined,
  agg: { expr: SQL | null; fn: string; group: GroupKind; fieldKey?: string },
) {
  const scope = cardScope(orgId, boardId, visibility, where)!;
  const value = agg.expr
    ? sql`${sql.raw(agg.fn)}(${agg.expr})::float8`
    : agg.fn === 'count'
      ? sql`count(*)::float8`
      : sql`null::float8`;
  const overall = sql`(select ${value} from cards where ${scope})`;
  const overallCount = sql`(select count(*)::int from cards where ${scope})`;
  if (!agg.group) {
    const [row] = await queryRows<{ value: number | null; count: number }>(
      tx,
      sql`select ${overall} as value, ${overallCount} as count`,
    );
    return {
      value: row.value,
      count: row.count,
      groups: [] as { key: string | number | null; value: number | null; count: number }[],
    };
  }
  const key =
    agg.group === 'phase'
      ? sql`cards.current_phase_id`
      : agg.group === 'assignee'
        ? sql`ga.membership_id`
        : agg.group === 'tag'
          ? sql`gt.tag_id`
          : sql`(cards.fields ->> ${agg.fieldKey!}::text)`;
  const join =
    agg.group === 'assignee'
      ? sql`left join card_assignees ga on ga.organization_id = cards.organization_id and ga.card_id = cards.id`
      : agg.group === 'tag'
        ? sql`left join card_tags gt on gt.organization_id = cards.organization_id and gt.card_id = cards.id`
        : sql``;
  const rows = await queryRows<{
    key: string | number | null;
    value: number | null;
    count: number;
    overall: number | null;
    total: number;
  }>(
    tx,
    sql`select ${key} as key, ${value} as value, count(*)::int as count, ${overall} as overall, ${overallCount} as total
      from cards ${join} where ${scope} group by 1 order by 2 desc nulls last, 1`,
  );
  // No matching card: the overall aggregate of an empty set.
  if (rows.length === 0) return { value: agg.fn === 'count' ? 0 : null, count: 0, groups: [] };
  return {
    value: rows[0].overall,
    count: rows[0].total,
    groups: rows.map((r) => ({ key: r.key, value: r.value, count: r.count })),
  };
}
