import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connect,
  fails,
  mcpEnv,
  newOrg,
  type Org,
  read,
  type Service,
  startService,
  type Transport,
  write,
} from './harness.js';

let service: Service;

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service?.close();
});

const missing = 'zzzzzzzzzzzzzzzzzzzzzzzz';

describe.each<Transport>(['stdio', 'http'])('task tools over %s', (transport) => {
  let org: Org;
  let client: Client;
  let close: () => Promise<void>;

  beforeAll(async () => {
    org = await newOrg(service);
    ({ client, close } = await connect(transport, mcpEnv(service, org)));
  });
  afterAll(async () => {
    await close?.();
  });

  it('create, list with filters, update, change status (a recurring task yields its next occurrence)', async () => {
    const me = await org.call('GET', '/memberships');
    const membershipId = me.body.data[0].documentId;
    const due = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const task = await write(client, 'crm.create_task', {
      name: 'Call Ana',
      type: 'follow-up',
      priority: 'high',
      dueDate: due,
      assignees: [membershipId],
      recurrence: 'weekly',
    });
    expect(task).toMatchObject({
      name: 'Call Ana',
      taskStatus: 'pending',
      priority: 'high',
      recurrence: 'weekly',
    });
    await write(client, 'crm.create_task', { name: 'Send proposal' });

    const high = await read(client, 'crm.list_tasks', { priority: 'high', assignee: membershipId });
    expect(high.data.map((t: any) => t.documentId)).toEqual([task.documentId]);
    const soon = await read(client, 'crm.list_tasks', {
      dueBefore: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    });
    expect(soon.meta.pagination.total).toBe(1);
    const named = await read(client, 'crm.list_tasks', { search: 'proposal' });
    expect(named.data.map((t: any) => t.name)).toEqual(['Send proposal']);

    const updated = await write(client, 'crm.update_task', {
      taskId: task.documentId,
      description: '<p>ask</p>',
    });
    expect(updated.description).toBe('<p>ask</p>');
    const done = await write(client, 'crm.update_task_status', {
      taskId: task.documentId,
      taskStatus: 'completed',
    });
    expect(done).toMatchObject({ taskStatus: 'completed', completedAt: expect.any(String) });
    const next = await read(client, 'crm.list_tasks', { search: 'call ana', taskStatus: 'pending' });
    expect(next.data).toHaveLength(1);
    expect(next.data[0].occurrenceNumber).toBe(2);
  });

  it('errors: 404 for unknown ids, 400 naming the field', async () => {
    const bad = await fails(
      client,
      'crm.create_task',
      { name: 'x', dueDate: 'tomorrow' },
      400,
      'ValidationError',
    );
    expect(JSON.stringify(bad.details)).toContain('dueDate');
    const status = await fails(
      client,
      'crm.update_task_status',
      { taskId: missing, taskStatus: 'completed' },
      404,
    );
    expect(status.name).toBe('NotFoundError');
    await fails(client, 'crm.update_task', { taskId: missing, name: 'x' }, 404, 'NotFoundError');
    const task = await write(client, 'crm.create_task', { name: 'Status check' });
    const wrong = await fails(
      client,
      'crm.update_task_status',
      { taskId: task.documentId, taskStatus: 'nope' },
      400,
    );
    expect(JSON.stringify(wrong)).toContain('taskStatus');
    await fails(client, 'crm.list_tasks', { sort: 'secret:asc' }, 400, 'ValidationError');
  });
});
