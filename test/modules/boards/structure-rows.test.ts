import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { expect, test } from 'vitest';
import { findBoard, findBoardWithStructure, listStructure } from '../../../src/modules/boards/repo.js';
import { fieldConditions, fieldDefinitions, phases, tags } from '../../../src/modules/boards/table.js';
import { assigneeIdsByCard, relationsByCard, tagIdsByCard } from '../../../src/modules/cards/repo.js';
import { contactRefsByIds } from '../../../src/modules/contacts/repo.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { membershipRefsByIds } from '../../../src/platform/tenancy/memberships.js';
import { addMember, getApp, newTenant } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';

// The one-statement readers must hand back exactly what the plain Drizzle selects did (Dates, numbers,
// jsonb, order): board structures and card pages are assembled from them.
test('listStructure and relationsByCard return the rows of the per-table queries', async () => {
  const { db } = await getApp();
  const t = await newTenant();
  const other = await addMember(t, 'member');
  const a = await createPipeline(t.api);
  const b = await createPipeline(t.api);
  expect((await t.api.post(`/boards/${b.boardId}/tags`, { data: { name: 'Alpha' } })).status).toBe(201);
  for (const [board, name] of [
    [a.boardId, 'Second'],
    [a.boardId, 'First'],
    [b.boardId, 'Other board'],
  ])
    expect(
      (
        await t.api.post(`/boards/${board}/field-conditions`, {
          data: {
            name,
            scope: 'board',
            criteria: [{ expressions: [{ fieldSlug: 'size', operator: 'eq', value: 'small' }] }],
            actionsWhenTrue: [{ type: 'hide', targetFieldSlugs: ['email'] }],
          },
        })
      ).status,
    ).toBe(201);
  for (let i = 0; i < 4; i++)
    await createCard(t.api, a.boardId, {
      tags: i % 2 ? ['hot', 'cold'] : [],
      assignees: i % 2 ? [other.membershipId, t.membershipId] : [t.membershipId],
    });
  for (const data of [
    { name: 'Ana Souza', email: 'ana@example.com', phone: '+5511987654321' },
    { name: 'Bruno' },
  ])
    expect((await t.api.post('/contacts', { data })).status).toBe(201);
  const stranger = await newTenant();
  expect((await stranger.api.post('/contacts', { data: { name: 'Elsewhere' } })).status).toBe(201);
  const [{ id: orgId }] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${t.slug}`,
  );
  const contactIds = (
    await queryRows<{ id: number }>(
      db.system,
      sql`select c.id from contacts c join organizations o on o.id = c.organization_id
          where o.slug in (${t.slug}, ${stranger.slug}) order by c.id`,
    )
  ).map((r) => r.id);
  expect(contactIds).toHaveLength(3);
  await db.tenantTransaction(orgId, async (tx) => {
    const boardIds = (
      await queryRows<{ id: number }>(
        tx,
        sql`select id from boards where organization_id = ${orgId} order by id`,
      )
    ).map((r) => r.id);
    // The card requests' one-statement read: the same board row and structure rows as the separate reads.
    for (const documentId of [a.boardId, b.boardId]) {
      const both = await findBoardWithStructure(tx, orgId, documentId);
      const board = await findBoard(tx, orgId, documentId);
      expect(both?.board).toStrictEqual(board);
      expect(both?.rows).toStrictEqual(await listStructure(tx, orgId, [board!.id]));
    }
    expect(await findBoardWithStructure(tx, orgId, 'no-such-board')).toBeUndefined();
    for (const ids of [boardIds, [boardIds[0]], [boardIds[1]], []]) {
      const got = await listStructure(tx, orgId, ids);
      const of = ids.length ? ids : [0];
      expect(got.phases).toStrictEqual(
        await tx
          .select()
          .from(phases)
          .where(and(eq(phases.organizationId, orgId), inArray(phases.boardId, of)))
          .orderBy(asc(phases.boardId), asc(phases.order), asc(phases.id)),
      );
      expect(got.fields).toStrictEqual(
        await tx
          .select()
          .from(fieldDefinitions)
          .where(and(eq(fieldDefinitions.organizationId, orgId), inArray(fieldDefinitions.boardId, of)))
          .orderBy(asc(fieldDefinitions.order), asc(fieldDefinitions.id)),
      );
      expect(got.tags).toStrictEqual(
        await tx
          .select()
          .from(tags)
          .where(and(eq(tags.organizationId, orgId), inArray(tags.boardId, of)))
          .orderBy(asc(tags.name), asc(tags.id)),
      );
      expect(got.conditions).toStrictEqual(
        await tx
          .select()
          .from(fieldConditions)
          .where(and(eq(fieldConditions.organizationId, orgId), inArray(fieldConditions.boardId, of)))
          .orderBy(asc(fieldConditions.boardId), asc(fieldConditions.order), asc(fieldConditions.id)),
      );
      expect(got.phases).toHaveLength(4 * ids.length);
      expect(got.phases[0]?.createdAt ?? new Date()).toBeInstanceOf(Date);
    }

    const cardIds = (
      await queryRows<{ id: number }>(tx, sql`select id from cards where organization_id = ${orgId}`)
    ).map((r) => r.id);
    const relations = await relationsByCard(tx, orgId, cardIds);
    const assigneeIds = await assigneeIdsByCard(tx, orgId, cardIds);
    const refs = await membershipRefsByIds(tx, orgId, [...new Set([...assigneeIds.values()].flat())]);
    expect(relations.assignees).toStrictEqual(
      new Map([...assigneeIds].map(([card, ids]) => [card, ids.flatMap((id) => refs.get(id) ?? [])])),
    );
    expect([...relations.assignees.values()].flat()).toHaveLength(6);
    expect(relations.tagIds).toStrictEqual(await tagIdsByCard(tx, orgId, cardIds));
    expect([...relations.tagIds.values()].flat()).toHaveLength(4);
    expect(relations.contacts).toStrictEqual(new Map());
    // The cards' contacts come with the relations: contactRefsByIds' answer, this organization's only.
    for (const [cardsOf, contactsOf] of [
      [cardIds, [...contactIds, contactIds[0]]],
      [[], contactIds],
      [cardIds.slice(0, 1), []],
    ]) {
      const got = await relationsByCard(tx, orgId, cardsOf, contactsOf);
      expect(got.contacts).toStrictEqual(await contactRefsByIds(tx, orgId, contactsOf));
      expect([...got.contacts.values()].map((c) => c.name).sort()).toStrictEqual(
        contactsOf.length ? ['Ana Souza', 'Bruno'] : [],
      );
      if (cardsOf.length) expect(got.tagIds).toStrictEqual(await tagIdsByCard(tx, orgId, cardsOf));
    }
  });
});

// Card requests read a board's structure rows only when its structure_version moved since this process last read
// them: every change of phases, fields, tags or conditions moves it, a rolled-back one leaves nothing behind.
test('findBoardWithStructure: the structure remembered until it changes; a rolled-back change is never served', async () => {
  const { db } = await getApp();
  const t = await newTenant();
  const stranger = await newTenant();
  const p = await createPipeline(t.api);
  const [{ id: orgId }] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${t.slug}`,
  );
  const read = () => db.tenantTransaction(orgId, (tx) => findBoardWithStructure(tx, orgId, p.boardId));
  const first = await read();
  const again = await read();
  // Not sent again: the same (frozen) rows.
  expect(again!.rows).toBe(first!.rows);
  expect(Object.isFrozen(again!.rows.phases[0])).toBe(true);
  // Every kind of change is seen by the next read.
  expect((await t.api.post(`/boards/${p.boardId}/tags`, { data: { name: 'Novo' } })).status).toBe(201);
  const tagged = await read();
  expect(tagged!.rows).not.toBe(first!.rows);
  expect(tagged!.rows.tags.map((x) => x.name)).toContain('Novo');
  expect(tagged!.board.structureVersion).toBeGreaterThan(first!.board.structureVersion);
  const phase = tagged!.rows.phases[1];
  expect(
    (await t.api.put(`/boards/${p.boardId}/phases/${phase.documentId}`, { data: { name: 'Renomeada' } }))
      .status,
  ).toBe(200);
  expect((await read())!.rows.phases.map((x) => x.name)).toContain('Renomeada');
  // A change read inside its own transaction, then rolled back: the number it took is never handed out again.
  await expect(
    db.tenantTransaction(orgId, async (tx) => {
      await tx.execute(
        sql`update tags set name = 'Fantasma' where organization_id = ${orgId} and name = 'Novo'`,
      );
      const inside = await findBoardWithStructure(tx, orgId, p.boardId);
      expect(inside!.rows.tags.map((x) => x.name)).toContain('Fantasma');
      throw new Error('roll back');
    }),
  ).rejects.toThrow('roll back');
  expect((await read())!.rows.tags.map((x) => x.name)).not.toContain('Fantasma');
  expect((await t.api.post(`/boards/${p.boardId}/tags`, { data: { name: 'Outra' } })).status).toBe(201);
  const after = (await read())!.rows.tags.map((x) => x.name);
  expect(after).toEqual(expect.arrayContaining(['Novo', 'Outra']));
  expect(after).not.toContain('Fantasma');
  // Another organization: no such board, whatever this process remembers.
  const [{ id: strangerId }] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${stranger.slug}`,
  );
  expect(
    await db.tenantTransaction(strangerId, (tx) => findBoardWithStructure(tx, strangerId, p.boardId)),
  ).toBeUndefined();
});
