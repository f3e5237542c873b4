import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { reminderQueue } from '../../../src/modules/tasks/jobs.js';
import { type Database, queryRows } from '../../../src/platform/db/client.js';
import type { WorkerDeps } from '../../../src/workers.js';
import { addMember, newTenant, type Tenant } from '../../helpers/app.js';
import { mailingApp, type ReceivedMail, type TestSmtp } from '../../helpers/smtp.js';

/** An app whose workers run (as in `crm serve` with CRM_WORKERS=inline) and deliver over real SMTP. */
let mailing: Awaited<ReturnType<typeof mailingApp>>;
let smtp: TestSmtp;
let db: Database;
let background: WorkerDeps;
let app: FastifyInstance;
let t: Tenant;
const LEAD_MINUTES = 60;

beforeAll(async () => {
  mailing = await mailingApp({ CRM_TASK_REMINDER_LEAD_MINUTES: LEAD_MINUTES });
  ({ smtp, db, background, app } = mailing);
  t = await newTenant(app);
});

afterAll(() => mailing?.close());

// Members joined by invitation also receive their invitation e-mail: only reminders count here.
const isReminderTo = (mail: ReceivedMail, email: string) =>
  mail.to.includes(email) && mail.subject.startsWith('Reminder:');

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

async function reminderJob(documentId: string) {
  const [row] = await queryRows<{ reminder_job_id: string | null }>(
    db.system,
    sql`select reminder_job_id from tasks where document_id = ${documentId}`,
  );
  return row.reminder_job_id ? background.jobs.getJob(reminderQueue, row.reminder_job_id) : null;
}

test('a task due within the lead time e-mails its assignee over SMTP and records a notification', async () => {
  const m = await addMember(t, 'member');
  const res = await t.api.post('/tasks', {
    data: { name: 'Send the proposal', dueDate: inMinutes(30), assignees: [m.membershipId] },
  });
  expect(res.status).toBe(201);
  await smtp.waitFor((mail) => mail.some((x) => isReminderTo(x, m.user.email)), 30_000);
  const mail = smtp.received.find((x) => isReminderTo(x, m.user.email))!;
  expect(mail.subject).toBe('Reminder: Send the proposal');
  expect(mail.raw).toContain('Send the proposal');

  const list = await m.api.get('/notifications');
  expect(list.status).toBe(200);
  expect(list.body.meta.pagination.total).toBe(1);
  const n = list.body.data[0];
  expect(n).toMatchObject({
    type: 'task_reminder',
    title: 'Reminder: Send the proposal',
    subject: { kind: 'task', documentId: res.body.documentId },
    read: false,
    readAt: null,
  });
  // The owner is not assigned: nothing for them.
  expect((await t.api.get('/notifications')).body.data).toEqual([]);

  const read = await m.api.post(`/notifications/${n.documentId}/read`);
  expect(read.status).toBe(200);
  expect(read.body.read).toBe(true);
  expect((await m.api.get('/notifications', { unread: 'true' })).body.data).toEqual([]);
  // Another member cannot mark it (404: not theirs).
  expect((await t.api.post(`/notifications/${n.documentId}/read`)).status).toBe(404);
  // Another organization neither lists nor reads it.
  const other = await newTenant(app);
  expect((await other.api.get('/notifications')).body.meta.pagination.total).toBe(0);
  expect((await other.api.post(`/notifications/${n.documentId}/read`)).status).toBe(404);
  expect((await reminderJob(res.body.documentId))?.state).toBe('completed');
});

test('without assignees the creator is reminded', async () => {
  const tenant = await newTenant(app);
  await tenant.api.post('/tasks', { data: { name: 'Self reminder', dueDate: inMinutes(-5) } });
  await smtp.waitFor((mail) => mail.some((x) => x.to.includes(tenant.user.email)), 30_000);
  const list = await tenant.api.get('/notifications');
  expect(list.body.data.map((x: any) => x.title)).toEqual(['Reminder: Self reminder']);
});

test('the reminder runs the lead time before the due date; changing the due date reschedules it', async () => {
  const due = inMinutes(3 * 24 * 60);
  const { body } = await t.api.post('/tasks', { data: { name: 'Later', dueDate: due } });
  const first = (await reminderJob(body.documentId))!;
  expect(first.state).toBe('created');
  expect(new Date(first.startAfter).getTime()).toBe(new Date(due).getTime() - LEAD_MINUTES * 60_000);

  const due2 = inMinutes(5 * 24 * 60);
  await t.api.put(`/tasks/${body.documentId}`, { data: { dueDate: due2 } });
  const second = (await reminderJob(body.documentId))!;
  expect(second.id).not.toBe(first.id);
  expect(new Date(second.startAfter).getTime()).toBe(new Date(due2).getTime() - LEAD_MINUTES * 60_000);
  expect((await background.jobs.getJob(reminderQueue, first.id))?.state).toBe('cancelled');

  // Other edits keep the job.
  await t.api.put(`/tasks/${body.documentId}`, { data: { name: 'Later, renamed' } });
  expect((await reminderJob(body.documentId))?.id).toBe(second.id);

  // Removing the due date cancels it.
  await t.api.put(`/tasks/${body.documentId}`, { data: { dueDate: null } });
  expect(await reminderJob(body.documentId)).toBeNull();
  expect((await background.jobs.getJob(reminderQueue, second.id))?.state).toBe('cancelled');
});

test('completing or deleting a task cancels its reminder', async () => {
  const a = await t.api.post('/tasks', { data: { name: 'Done early', dueDate: inMinutes(600) } });
  const jobA = (await reminderJob(a.body.documentId))!;
  await t.api.put(`/tasks/${a.body.documentId}/status`, { data: { taskStatus: 'completed' } });
  expect((await background.jobs.getJob(reminderQueue, jobA.id))?.state).toBe('cancelled');
  expect(await reminderJob(a.body.documentId)).toBeNull();

  const b = await t.api.post('/tasks', { data: { name: 'Dropped', dueDate: inMinutes(600) } });
  const jobB = (await reminderJob(b.body.documentId))!;
  await t.api.delete(`/tasks/${b.body.documentId}`);
  expect((await background.jobs.getJob(reminderQueue, jobB.id))?.state).toBe('cancelled');
});

test('moving a due date into the lead window sends the reminder once, for the new date', async () => {
  const m = await addMember(t, 'member');
  const { body } = await t.api.post('/tasks', {
    data: { name: 'Moved up', dueDate: inMinutes(10_000), assignees: [m.membershipId] },
  });
  await t.api.put(`/tasks/${body.documentId}`, { data: { dueDate: inMinutes(10) } });
  await smtp.waitFor((mail) => mail.some((x) => isReminderTo(x, m.user.email)), 30_000);
  await new Promise((r) => setTimeout(r, 1500));
  expect(smtp.received.filter((x) => isReminderTo(x, m.user.email))).toHaveLength(1);
  expect((await m.api.get('/notifications')).body.meta.pagination.total).toBe(1);
});
