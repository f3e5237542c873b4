import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newTenant } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';
import { automationWorld } from './helpers.js';

const world = automationWorld();

describe('automations: tenancy', () => {
  let a: Awaited<ReturnType<typeof world.track>>;
  let b: Awaited<ReturnType<typeof world.track>>;
  let boardA: string;
  let automationA: string;

  beforeAll(async () => {
    a = await world.track(await newTenant());
    b = await world.track(await newTenant());
    ({ boardId: boardA } = await createPipeline(a.api));
    const created = await a.api.post('/automations', {
      data: {
        name: 'Secret automation',
        board: boardA,
        trigger: { event: 'card.created' },
        actions: [{ type: 'add_tag', params: { tag: 'hot' } }],
      },
    });
    automationA = created.body.documentId;
    await createCard(a.api, boardA);
    await world.cycle();
  });
  afterAll(() => world.close());

  test('another organization cannot read, list, change, run-list or delete an automation', async () => {
    expect((await a.api.get(`/automations/${automationA}/runs`)).body.data).toHaveLength(1);
    expect((await b.api.get(`/automations/${automationA}`)).status).toBe(404);
    expect((await b.api.get(`/automations/${automationA}/runs`)).status).toBe(404);
    expect((await b.api.put(`/automations/${automationA}`, { data: { name: 'x' } })).status).toBe(404);
    expect((await b.api.post(`/automations/${automationA}/disable`)).status).toBe(404);
    expect((await b.api.delete(`/automations/${automationA}`)).status).toBe(404);
    const list = await b.api.get('/automations');
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.pagination.total).toBe(0);
    expect((await a.api.get(`/automations/${automationA}`)).body.enabled).toBe(true);
  });

  test("another organization's board, membership or queue cannot be named (400, as unknown)", async () => {
    const boardRef = await b.api.post('/automations', {
      data: {
        name: 'x',
        board: boardA,
        trigger: { event: 'card.created' },
        actions: [{ type: 'set_due_date', params: { inHours: 1 } }],
      },
    });
    expect(boardRef.status).toBe(400);
    expect(boardRef.body.error.message).toMatch(/Unknown board/);
    const member = await b.api.post('/automations', {
      data: {
        name: 'x',
        trigger: { event: 'card.created' },
        actions: [{ type: 'assign', params: { membership: a.membershipId } }],
      },
    });
    expect(member.status).toBe(400);
  });

  test("an automation never acts on another organization's records", async () => {
    // B: every card created anywhere (no board) gets a due date and a task; only B's events reach it.
    const own = await b.api.post('/automations', {
      data: {
        name: 'Everything',
        trigger: { event: 'card.created' },
        actions: [
          { type: 'set_due_date', params: { inHours: 5 } },
          { type: 'create_task', params: { name: 'Follow up' } },
        ],
      },
    });
    expect(own.status).toBe(201);
    const cardA = await createCard(a.api, boardA);
    await world.cycle();
    expect((await b.api.get(`/automations/${own.body.documentId}/runs`)).body.data).toEqual([]);
    const seen = (await a.api.get(`/boards/${boardA}/cards/${cardA.documentId}`)).body;
    expect(seen.dueDateSource).toBeNull();
    expect((await b.api.get('/tasks')).body.data).toEqual([]);
    // B's own card is acted on.
    const { boardId: boardB } = await createPipeline(b.api);
    const cardB = await createCard(b.api, boardB);
    await world.cycle();
    const runs = (await b.api.get(`/automations/${own.body.documentId}/runs`)).body.data;
    expect(runs.map((r: any) => [r.subject, r.status])).toEqual([[`card:${cardB.documentId}`, 'succeeded']]);
    expect((await b.api.get(`/boards/${boardB}/cards/${cardB.documentId}`)).body.dueDateSource).toBe(
      'automation',
    );
  });
});
