import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { queryRows } from '../../../src/platform/db/client.js';
import { getApp, newTenant, type Tenant } from '../../helpers/app.js';
import { type Board, createBoard } from './factory.js';

let a: Tenant;
let b: Tenant;
let board: Board;
let conditionId: string;

beforeAll(async () => {
  a = await newTenant();
  b = await newTenant();
  board = await createBoard(a.api, { name: 'Secret pipeline', boardSettings: { wonPhase: 'won' } });
  const cond = await a.api.post(`/boards/${board.documentId}/field-conditions`, {
    data: {
      name: 'c',
      phase: 'lead',
      criteria: [{ expressions: [{ fieldSlug: 'email', operator: 'notEmpty' }] }],
      actionsWhenTrue: [{ type: 'show', targetFieldSlugs: ['size'] }],
    },
  });
  conditionId = cond.body.documentId;
});

describe('another organization', () => {
  test('gets 404 on the board itself', async () => {
    expect((await b.api.get(`/boards/${board.documentId}`)).status).toBe(404);
    expect((await b.api.put(`/boards/${board.documentId}`, { data: { name: 'Hijacked' } })).status).toBe(404);
    expect((await b.api.delete(`/boards/${board.documentId}`)).status).toBe(404);
  });

  test('sees nothing in lists, counts or filters', async () => {
    await createBoard(b.api, { name: 'Own board' });
    const list = await b.api.get('/boards');
    expect(list.body.data.map((x: any) => x.name)).toEqual(['Own board']);
    expect(list.body.meta.pagination.total).toBe(1);
    const byId = await b.api.get('/boards', { 'filters[documentId][$eq]': board.documentId });
    expect(byId.body.meta.pagination.total).toBe(0);
    const byName = await b.api.get('/boards', { 'filters[name][$containsi]': 'secret' });
    expect(byName.body.data).toEqual([]);
  });

  const items = () => ({
    phases: { id: board.phases[1].documentId, create: { name: 'x' }, update: { name: 'x' } },
    fields: {
      id: board.phases[0].fields[0].documentId,
      create: { label: 'x', type: 'text', phase: board.phases[0].documentId },
      update: { label: 'x' },
    },
    tags: { id: board.tags[0].documentId, create: { name: 'x' }, update: { name: 'x' } },
    'field-conditions': {
      id: conditionId,
      create: {
        name: 'x',
        scope: 'board',
        criteria: [{ expressions: [{ fieldSlug: 'email', operator: 'empty' }] }],
      },
      update: { name: 'x' },
    },
  });

  test.each(['phases', 'fields', 'tags', 'field-conditions'] as const)(
    'gets 404 on every %s route',
    async (path) => {
      const it = items()[path];
      const base = `/boards/${board.documentId}/${path}`;
      const results = [
        await b.api.get(base),
        await b.api.get(`${base}/${it.id}`),
        await b.api.post(base, { data: it.create }),
        await b.api.put(`${base}/${it.id}`, { data: it.update }),
        await b.api.delete(`${base}/${it.id}`),
      ];
      for (const res of results) {
        expect(res.status).toBe(404);
        expect(res.body.error.name).toBe('NotFoundError');
      }
    },
  );

  test('cannot reach the structure of a foreign board through its own board', async () => {
    const own = await createBoard(b.api, { name: 'Mine' });
    const foreignPhase = board.phases[0].documentId;
    const base = `/boards/${own.documentId}`;
    expect((await b.api.get(`${base}/phases/${foreignPhase}`)).status).toBe(404);
    expect((await b.api.put(`${base}/phases/${foreignPhase}`, { data: { name: 'x' } })).status).toBe(404);
    expect((await b.api.delete(`${base}/fields/${board.phases[0].fields[0].documentId}`)).status).toBe(404);
    expect((await b.api.delete(`${base}/tags/${board.tags[0].documentId}`)).status).toBe(404);
    expect((await b.api.delete(`${base}/field-conditions/${conditionId}`)).status).toBe(404);
    expect(
      (await b.api.post(`${base}/fields`, { data: { label: 'x', type: 'text', phase: foreignPhase } }))
        .status,
    ).toBe(400);
    const transition = await b.api.put(`${base}/phases/${own.phases[0].documentId}`, {
      data: { allowedTransitions: [{ phase: foreignPhase, allowed: false }] },
    });
    expect(transition.status).toBe(400);
    const won = await b.api.put(base, { data: { boardSettings: { wonPhase: foreignPhase } } });
    expect(won.status).toBe(400);
    const people = await b.api.put(base, { data: { members: [a.membershipId], owner: a.membershipId } });
    expect(people.status).toBe(400);
    const create = await b.api.post('/boards', { data: { name: 'x', editors: [a.membershipId] } });
    expect(create.status).toBe(400);
  });

  test('left the board untouched', async () => {
    const after = await a.api.get(`/boards/${board.documentId}`);
    expect(after.status).toBe(200);
    expect(after.body.name).toBe('Secret pipeline');
    expect(after.body.phases.map((p: any) => p.name)).toEqual(board.phases.map((p: any) => p.name));
    expect(after.body.tags).toHaveLength(2);
    expect((await a.api.get(`/boards/${board.documentId}/field-conditions`)).body.data).toHaveLength(1);
  });

  test('row-level security hides the rows even from a query that forgets the tenant filter', async () => {
    const { db } = await getApp();
    const [org] = await queryRows<{ id: number }>(
      db.system,
      sql`select id from organizations where slug = ${b.slug}`,
    );
    const seen = await db.tenantTransaction(org.id, (tx) =>
      queryRows<{ n: number }>(
        tx,
        sql`select (select count(*)::int from boards where document_id = ${board.documentId})
          + (select count(*)::int from phases where document_id = ${board.phases[0].documentId})
          + (select count(*)::int from tags where document_id = ${board.tags[0].documentId}) as n`,
      ),
    );
    expect(seen[0].n).toBe(0);
  });
});
