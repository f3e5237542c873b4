import { beforeAll, describe, expect, test } from 'vitest';
import { addMember, getApp, newTenant, type Tenant } from '../../helpers/app.js';

let t: Tenant;
beforeAll(async () => {
  await getApp();
  t = await newTenant();
});

const create = (tenant: Tenant, data: Record<string, unknown>) => tenant.api.post('/tasks', { data });

describe('tasks CRUD', () => {
  test('creates a task with defaults and reads it back', async () => {
    const res = await create(t, { name: 'Call Ana', description: '<p>About the <b>renewal</b></p>' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Call Ana',
      description: '<p>About the <b>renewal</b></p>',
      type: 'reminder',
      taskStatus: 'pending',
      priority: 'medium',
      recurrence: 'none',
      recurrenceInterval: 1,
      dueDate: null,
      completedAt: null,
      card: null,
      assignees: [],
    });
    const got = await t.api.get(`/tasks/${res.body.documentId}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  test('assignees are membership documentIds in and MembershipRefs out', async () => {
    const m = await addMember(t, 'member');
    const res = await create(t, { name: 'Assigned', assignees: [m.membershipId, t.membershipId] });
    expect(res.status).toBe(201);
    expect(res.body.assignees.map((a: any) => a.documentId).sort()).toEqual(
      [m.membershipId, t.membershipId].sort(),
    );
    expect(res.body.assignees[0].user).toHaveProperty('email');
  });

  test('updates fields and deletes', async () => {
    const { body } = await create(t, { name: 'Draft', type: 'action', priority: 'low' });
    const upd = await t.api.put(`/tasks/${body.documentId}`, {
      data: { name: 'Final', priority: 'urgent', type: 'follow-up', dueDate: '2030-01-01T10:00:00Z' },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({
      name: 'Final',
      priority: 'urgent',
      type: 'follow-up',
      dueDate: '2030-01-01T10:00:00.000Z',
    });
    const del = await t.api.delete(`/tasks/${body.documentId}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ documentId: body.documentId, deleted: true });
    expect((await t.api.get(`/tasks/${body.documentId}`)).status).toBe(404);
  });

  test('status changes stamp and clear completedAt', async () => {
    const { body } = await create(t, { name: 'Status' });
    const done = await t.api.put(`/tasks/${body.documentId}/status`, { data: { taskStatus: 'completed' } });
    expect(done.status).toBe(200);
    expect(done.body.taskStatus).toBe('completed');
    expect(done.body.completedAt).not.toBeNull();
    const reopened = await t.api.put(`/tasks/${body.documentId}/status`, {
      data: { taskStatus: 'in-progress' },
    });
    expect(reopened.body.completedAt).toBeNull();
  });
});

describe('validation', () => {
  test('name is required and at most 255 characters', async () => {
    expect((await create(t, {})).status).toBe(400);
    const long = await create(t, { name: 'x'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.error.details.errors[0].path).toContain('name');
    expect((await create(t, { name: 'x'.repeat(255) })).status).toBe(201);
  });

  test('enums and recurrenceInterval bounds', async () => {
    expect((await create(t, { name: 'a', type: 'meeting' })).status).toBe(400);
    expect((await create(t, { name: 'a', priority: 'critical' })).status).toBe(400);
    expect((await create(t, { name: 'a', recurrence: 'yearly' })).status).toBe(400);
    expect((await create(t, { name: 'a', recurrence: 'daily', recurrenceInterval: 0 })).status).toBe(400);
    expect((await create(t, { name: 'a', recurrence: 'daily', recurrenceInterval: 366 })).status).toBe(400);
    expect((await create(t, { name: 'a', recurrence: 'daily', recurrenceInterval: 365 })).status).toBe(201);
    expect((await create(t, { name: 'a', dueDate: 'tomorrow' })).status).toBe(400);
  });

  test('taskStatus outside the default set is a 400 listing the allowed ones', async () => {
    const res = await create(t, { name: 'a', taskStatus: 'blocked' });
    expect(res.status).toBe(400);
    expect(res.body.error.name).toBe('ValidationError');
    expect(res.body.error.details.allowed).toEqual(['pending', 'in-progress', 'completed', 'cancelled']);
    const { body } = await create(t, { name: 'b' });
    expect(
      (await t.api.put(`/tasks/${body.documentId}/status`, { data: { taskStatus: 'nope' } })).status,
    ).toBe(400);
  });

  test('unknown assignees and cards are 400s; unknown tasks 404', async () => {
    const a = await create(t, { name: 'a', assignees: ['nosuchmembership'] });
    expect(a.status).toBe(400);
    expect(a.body.error.details.errors[0].path).toEqual(['assignees']);
    const c = await create(t, { name: 'a', card: 'nosuchcard' });
    expect(c.status).toBe(400);
    expect((await t.api.get('/tasks/nosuchtask')).status).toBe(404);
    expect((await t.api.put('/tasks/nosuchtask', { data: { name: 'x' } })).status).toBe(404);
    expect((await t.api.put('/tasks/nosuchtask/status', { data: { taskStatus: 'pending' } })).status).toBe(
      404,
    );
    expect((await t.api.delete('/tasks/nosuchtask')).status).toBe(404);
  });

  test('viewers read but do not write', async () => {
    const v = await addMember(t, 'viewer');
    const { body } = await create(t, { name: 'Visible' });
    expect((await v.api.get(`/tasks/${body.documentId}`)).status).toBe(200);
    expect((await v.api.post('/tasks', { data: { name: 'no' } })).status).toBe(403);
    expect(
      (await v.api.put(`/tasks/${body.documentId}/status`, { data: { taskStatus: 'completed' } })).status,
    ).toBe(403);
    expect((await v.api.delete(`/tasks/${body.documentId}`)).status).toBe(403);
  });
});

describe('recurrence', () => {
  test('completing a recurring task with a dueDate creates the next occurrence once', async () => {
    const m = await addMember(t, 'member');
    const { body } = await create(t, {
      name: 'Weekly report',
      recurrence: 'weekly',
      recurrenceInterval: 2,
      dueDate: '2030-03-04T09:00:00.000Z',
      assignees: [m.membershipId],
      priority: 'high',
    });
    const done = await t.api.put(`/tasks/${body.documentId}/status`, { data: { taskStatus: 'completed' } });
    expect(done.status).toBe(200);
    const list = await t.api.get('/tasks', { 'filters[name][$eq]': 'Weekly report', sort: 'dueDate:asc' });
    expect(list.body.data).toHaveLength(2);
    const next = list.body.data[1];
    expect(next).toMatchObject({
      dueDate: '2030-03-18T09:00:00.000Z',
      taskStatus: 'pending',
      completedAt: null,
      priority: 'high',
      recurrence: 'weekly',
      recurrenceInterval: 2,
      occurrenceNumber: 2,
    });
    expect(next.assignees.map((a: any) => a.documentId)).toEqual([m.membershipId]);
    // Reopening and completing again does not create a second "next".
    await t.api.put(`/tasks/${body.documentId}/status`, { data: { taskStatus: 'pending' } });
    await t.api.put(`/tasks/${body.documentId}/status`, { data: { taskStatus: 'completed' } });
    expect(
      (await t.api.get('/tasks', { 'filters[name][$eq]': 'Weekly report' })).body.meta.pagination.total,
    ).toBe(2);
  });

  test('monthly recurrence clamps to the end of the month; no dueDate means no next occurrence', async () => {
    const { body } = await create(t, {
      name: 'Month end',
      recurrence: 'monthly',
      dueDate: '2031-01-31T12:00:00Z',
    });
    await t.api.put(`/tasks/${body.documentId}`, { data: { taskStatus: 'completed' } });
    const list = await t.api.get('/tasks', { 'filters[name][$eq]': 'Month end', sort: 'dueDate:asc' });
    expect(list.body.data.map((x: any) => x.dueDate)).toEqual([
      '2031-01-31T12:00:00.000Z',
      '2031-02-28T12:00:00.000Z',
    ]);
    const nodue = await create(t, { name: 'No due', recurrence: 'daily' });
    await t.api.put(`/tasks/${nodue.body.documentId}/status`, { data: { taskStatus: 'completed' } });
    expect((await t.api.get('/tasks', { 'filters[name][$eq]': 'No due' })).body.data).toHaveLength(1);
  });

  test('two concurrent completions create exactly one next occurrence', async () => {
    for (let i = 0; i < 3; i++) {
      const name = `Concurrent ${i}`;
      const { body } = await create(t, { name, recurrence: 'daily', dueDate: '2030-05-01T08:00:00Z' });
      const results = await Promise.all([
        t.api.put(`/tasks/${body.documentId}/status`, { data: { taskStatus: 'completed' } }),
        t.api.put(`/tasks/${body.documentId}/status`, { data: { taskStatus: 'completed' } }),
      ]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      const list = await t.api.get('/tasks', { 'filters[name][$eq]': name });
      expect(list.body.meta.pagination.total).toBe(2);
    }
  });
});

describe('list', () => {
  test('filters on taskStatus, type, priority, dueDate and assignees; sorts and paginates', async () => {
    const tenant = await newTenant();
    const m = await addMember(tenant, 'member');
    await create(tenant, { name: 'A', type: 'action', priority: 'low', dueDate: '2030-01-01T00:00:00Z' });
    await create(tenant, {
      name: 'B',
      type: 'follow-up',
      priority: 'urgent',
      dueDate: '2030-02-01T00:00:00Z',
      assignees: [m.membershipId],
    });
    const c = await create(tenant, { name: 'C', type: 'other', taskStatus: 'in-progress' });
    const names = async (q: Record<string, unknown>) =>
      (await tenant.api.get('/tasks', { sort: 'name:asc', ...q })).body.data.map((x: any) => x.name);
    expect(await names({})).toEqual(['A', 'B', 'C']);
    expect(await names({ 'filters[taskStatus][$eq]': 'in-progress' })).toEqual(['C']);
    expect(await names({ 'filters[type][$in][0]': 'action', 'filters[type][$in][1]': 'other' })).toEqual([
      'A',
      'C',
    ]);
    expect(await names({ 'filters[priority][$eq]': 'urgent' })).toEqual(['B']);
    expect(await names({ 'filters[dueDate][$gte]': '2030-01-15T00:00:00Z' })).toEqual(['B']);
    expect(await names({ 'filters[dueDate][$null]': 'true' })).toEqual(['C']);
    expect(await names({ 'filters[assignees][documentId][$eq]': m.membershipId })).toEqual(['B']);
    expect(await names({ 'filters[card][$null]': 'true' })).toEqual(['A', 'B', 'C']);
    const page = await tenant.api.get('/tasks', {
      sort: 'name:desc',
      'pagination[pageSize]': 2,
      'pagination[page]': 2,
    });
    expect(page.body.data.map((x: any) => x.name)).toEqual(['A']);
    expect(page.body.meta.pagination).toEqual({ page: 2, pageSize: 2, pageCount: 2, total: 3 });
    expect((await tenant.api.get('/tasks', { 'filters[priority][$eq]': 'critical' })).status).toBe(400);
    expect((await tenant.api.get('/tasks', { 'filters[secret][$eq]': 'x' })).status).toBe(400);
    expect(c.status).toBe(201);
  });
});
