import { beforeAll, expect, test } from 'vitest';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';

let a: Tenant;
let b: Tenant;
let taskId: string;
let memberA: Awaited<ReturnType<typeof addMember>>;

beforeAll(async () => {
  await getApp();
  a = await newTenant();
  b = await newTenant();
  memberA = await addMember(a, 'member');
  const res = await a.api.post('/tasks', {
    data: {
      name: 'Secret task',
      priority: 'urgent',
      dueDate: '2030-01-01T00:00:00Z',
      assignees: [memberA.membershipId],
      recurrence: 'daily',
    },
  });
  taskId = res.body.documentId;
});

test('another organization cannot read, change, complete or delete a task', async () => {
  expect((await b.api.get(`/tasks/${taskId}`)).status).toBe(404);
  expect((await b.api.put(`/tasks/${taskId}`, { data: { name: 'Hijacked' } })).status).toBe(404);
  expect((await b.api.put(`/tasks/${taskId}/status`, { data: { taskStatus: 'completed' } })).status).toBe(
    404,
  );
  expect((await b.api.delete(`/tasks/${taskId}`)).status).toBe(404);
  const mine = await a.api.get(`/tasks/${taskId}`);
  expect(mine.body).toMatchObject({ name: 'Secret task', taskStatus: 'pending' });
  expect((await a.api.get('/tasks')).body.meta.pagination.total).toBe(1);
});

test('another organization neither lists, counts nor filter-matches the task', async () => {
  const list = await b.api.get('/tasks');
  expect(list.body.data).toEqual([]);
  expect(list.body.meta.pagination.total).toBe(0);
  for (const q of [
    { 'filters[documentId][$eq]': taskId },
    { 'filters[name][$containsi]': 'secret' },
    { 'filters[priority][$eq]': 'urgent' },
    { 'filters[assignees][documentId][$eq]': memberA.membershipId },
  ]) {
    const res = await b.api.get('/tasks', q);
    expect(res.status).toBe(200);
    expect(res.body.meta.pagination.total).toBe(0);
  }
});

test("another organization's members cannot be assigned, nor its cards linked", async () => {
  const res = await b.api.post('/tasks', { data: { name: 'x', assignees: [memberA.membershipId] } });
  expect(res.status).toBe(400);
  expect(res.body.error.details.errors[0].path).toEqual(['assignees']);
  const upd = await b.api.post('/tasks', { data: { name: 'x', assignees: [a.membershipId] } });
  expect(upd.status).toBe(400);
});

test('notifications are per member: another organization cannot list or read them', async () => {
  const res = await b.api.get('/notifications');
  expect(res.status).toBe(200);
  expect(res.body.meta.pagination.total).toBe(0);
  expect((await b.api.post('/notifications/anything/read')).status).toBe(404);
  // The same user in another organization sees only that organization's notifications.
  expect((await b.userApi.get('/notifications')).status).toBe(400);
});
