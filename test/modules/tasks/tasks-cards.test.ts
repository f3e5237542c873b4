import { beforeAll, expect, test } from 'vitest';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';

let t: Tenant;
let boardId: string;
let card: { documentId: string; title: string };

beforeAll(async () => {
  await getApp();
  t = await newTenant();
  const board = await t.api.post('/boards', {
    data: { name: 'Deals', taskStatuses: ['open', 'waiting', 'completed'] },
  });
  expect(board.status).toBe(201);
  boardId = board.body.documentId;
  const c = await t.api.post(`/boards/${boardId}/cards`, { data: { title: 'ACME renewal' } });
  expect(c.status).toBe(201);
  card = { documentId: c.body.documentId, title: c.body.title };
});

test("a task linked to a card takes its board's taskStatuses", async () => {
  const res = await t.api.post('/tasks', { data: { name: 'Call ACME', card: card.documentId } });
  expect(res.status).toBe(201);
  expect(res.body.card).toEqual(card);
  expect(res.body.taskStatus).toBe('open');
  const bad = await t.api.put(`/tasks/${res.body.documentId}/status`, { data: { taskStatus: 'pending' } });
  expect(bad.status).toBe(400);
  expect(bad.body.error.details.allowed).toEqual(['open', 'waiting', 'completed']);
  const ok = await t.api.put(`/tasks/${res.body.documentId}/status`, { data: { taskStatus: 'waiting' } });
  expect(ok.status).toBe(200);
  expect(ok.body.taskStatus).toBe('waiting');
  // Unlinking: 'waiting' is not in the default set, so the status must change with it.
  const unlink = await t.api.put(`/tasks/${res.body.documentId}`, { data: { card: null } });
  expect(unlink.status).toBe(400);
  const unlinked = await t.api.put(`/tasks/${res.body.documentId}`, {
    data: { card: null, taskStatus: 'in-progress' },
  });
  expect(unlinked.status).toBe(200);
  expect(unlinked.body.card).toBeNull();
});

test('tasks are filtered by card; a recurring card task keeps its card and board statuses', async () => {
  const { body } = await t.api.post('/tasks', {
    data: {
      name: 'Weekly check',
      card: card.documentId,
      recurrence: 'weekly',
      dueDate: '2030-01-07T09:00:00Z',
    },
  });
  await t.api.put(`/tasks/${body.documentId}/status`, { data: { taskStatus: 'completed' } });
  const list = await t.api.get('/tasks', {
    'filters[card][documentId][$eq]': card.documentId,
    'filters[name][$eq]': 'Weekly check',
    sort: 'dueDate:asc',
  });
  expect(list.body.data).toHaveLength(2);
  expect(list.body.data[1]).toMatchObject({ card, taskStatus: 'open', dueDate: '2030-01-14T09:00:00.000Z' });
  expect(
    (await t.api.get('/tasks', { 'filters[card][title][$containsi]': 'acme' })).body.meta.pagination.total,
  ).toBeGreaterThanOrEqual(2);
});

test('a card on a board the caller cannot see, or of another organization, is rejected', async () => {
  const m = await addMember(t, 'member');
  const hidden = await m.api.post('/tasks', { data: { name: 'x', card: card.documentId } });
  expect(hidden.status).toBe(400);
  expect(hidden.body.error.details.errors[0].path).toEqual(['card']);
  const other = await newTenant();
  expect((await other.api.post('/tasks', { data: { name: 'x', card: card.documentId } })).status).toBe(400);
});

test('deleting the card deletes its tasks', async () => {
  const c = await t.api.post(`/boards/${boardId}/cards`, { data: { title: 'Short lived' } });
  const task = await t.api.post('/tasks', { data: { name: 'Goes with the card', card: c.body.documentId } });
  expect((await t.api.delete(`/boards/${boardId}/cards/${c.body.documentId}`)).status).toBe(200);
  expect((await t.api.get(`/tasks/${task.body.documentId}`)).status).toBe(404);
});

test('tasks on cards of a board a member cannot see are hidden from that member', async () => {
  const m = await addMember(t, 'member');
  const { body } = await t.api.post('/tasks', {
    data: { name: 'Board-private task', card: card.documentId },
  });
  const own = await m.api.post('/tasks', { data: { name: 'Free-standing task' } });
  expect((await m.api.get(`/tasks/${body.documentId}`)).status).toBe(404);
  expect(
    (await m.api.put(`/tasks/${body.documentId}/status`, { data: { taskStatus: 'waiting' } })).status,
  ).toBe(404);
  const names = (await m.api.get('/tasks', { 'pagination[pageSize]': 100 })).body.data.map(
    (x: any) => x.name,
  );
  expect(names).toContain('Free-standing task');
  expect(names).not.toContain('Board-private task');
  // Once on the board, the member sees it.
  expect((await t.api.put(`/boards/${boardId}`, { data: { members: [m.membershipId] } })).status).toBe(200);
  expect((await m.api.get(`/tasks/${body.documentId}`)).status).toBe(200);
  expect(own.status).toBe(201);
});
