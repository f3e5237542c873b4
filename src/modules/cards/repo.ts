import { and, asc, eq, inArray, isNull, lt, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { preparedRows, queryRows, type Tx } from '../../platform/db/client.js';
import { isDeepPage, keyIn } from '../../platform/db/deep-pages.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { sqlRowMapper } from '../../platform/db/rows.js';
import type { MembershipRef } from '../../platform/http/schemas.js';
import { userRefOf } from '../../platform/tenancy/memberships.js';
import { boards } from '../boards/table.js';
import type { ContactRef } from '../contacts/index.js';
import type { CommentValues } from './comments-repo.js';
import { cardAssignees, cardFiles, cards, cardTags } from './table.js';

export type CardRow = typeof cards.$inferSelect;
export type FileRow = typeof cardFiles.$inferSelect;
export type CardValues = Omit<typeof cards.$inferInsert, 'organizationId' | 'id' | 'documentId' | 'boardId'>;

/** Cards a non-admin may see on a board that restricts viewing to assignees. */
export function assignedTo(membershipId: number | SQL): SQL {
  return sql`exists (select 1 from card_assignees va where va.organization_id = ${cards.organizationId} and va.card_id = ${cards.id} and va.membership_id = ${membershipId})`;
}

export function cardScope(orgId: number, boardId: number, visibility: SQL | undefined, where?: SQL) {
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
  const where = cardScope(orgId, boardId, visibility, q.where);
  if (!isDeepPage(q.offset))
    return tx.select().from(cards).where(where).orderBy(q.orderBy).offset(q.offset).limit(q.pageSize);
  // A deep page: its keys from the list's index first, then those rows only (deep-pages.ts).
  const keys = tx
    .select({ organizationId: cards.organizationId, id: cards.id })
    .from(cards)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  return tx
    .select()
    .from(cards)
    .where(and(eq(cards.organizationId, orgId), keyIn(cards.organizationId, cards.id, keys)))
    .orderBy(q.orderBy);
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
    /** The user's display name (null for contacts, tags and users without one). */
    userName: string | null;
  }>(
    tx,
    sql`select 'assignee' as kind, ca.card_id as "cardId", ca.membership_id as id, m.document_id as "documentId",
        u.username as name, u.email, u.blocked, null::text as phone, u.name as "userName"
      from card_assignees ca
      join memberships m on m.organization_id = ${orgId} and m.id = ca.membership_id
      join users u on u.id = m.user_id
      where ca.organization_id = ${orgId} and ca.card_id = any(${sql.param(cardIds)}::bigint[])
      union all
      select 'contact', null, c.id, c.document_id, c.name, c.email, null, c.phone, null
      from contacts c
      where c.organization_id = ${orgId} and c.id = any(${sql.param(contactIds)}::bigint[])
      union all
      select 'tag', ct.card_id, ct.tag_id, null, null, null, null, null, null
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
      user: userRefOf({ username: r.name!, email: r.email!, blocked: r.blocked!, name: r.userName }),
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

/**
 * Of these memberships, those who may read the card: an org owner or admin, else a member for whom `visible` (a
 * condition on the card joined to its board, for the member `m.id`) holds — cards/access.ts gives it.
 */
export async function membershipsSeeingCard(
  tx: Tx,
  orgId: number,
  cardId: number,
  ids: number[],
  visible: (member: SQL) => SQL,
) {
  if (ids.length === 0) return [];
  const rows = await queryRows<{ id: number }>(
    tx,
    sql`select m.id from memberships m
        join ${cards} on ${cards.organizationId} = ${orgId} and ${cards.id} = ${cardId}
        join ${boards} on ${boards.organizationId} = ${cards.organizationId} and ${boards.id} = ${cards.boardId}
        where m.organization_id = ${orgId} and m.id in ${ids}
          and (m.role in ('owner', 'admin') or ${visible(sql`m.id`)})`,
  );
  return rows.map((r) => Number(r.id));
}
