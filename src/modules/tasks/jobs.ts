import type { WorkerDeps } from '../../platform/deps.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { enqueueMail } from '../../platform/mail/mailer.js';
import { membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { insertNotification } from '../notifications/index.js';
import { assigneeIds, findTaskById } from './repo.js';

/** One job per open task with a due date; its id is kept on the task (a changed due date replaces it). */
export const reminderQueue: QueueDef = {
  name: 'task-reminder',
  retryLimit: 5,
  retryDelay: 60,
  retryBackoff: true,
};

interface ReminderData {
  orgId: number;
  taskId: number;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The reminder: a notification for each assignee (the creator when nobody is assigned) and an e-mail,
 * written in one transaction with the mail jobs. A stale job (task gone, completed, or due date moved)
 * finds another job id on the task and does nothing; a retried one finds its notifications and sends nothing twice.
 */
export async function registerTaskWorkers({ db, jobs }: WorkerDeps) {
  await jobs.work<ReminderData>(reminderQueue, async ({ orgId, taskId }, job) => {
    await db.tenantTransaction(orgId, async (tx) => {
      const task = await findTaskById(tx, orgId, taskId);
      if (!task || task.reminderJobId !== job.id || !task.dueDate) return;
      const assigned = (await assigneeIds(tx, orgId, [task.id])).get(task.id) ?? [];
      const recipients = assigned.length
        ? assigned
        : task.createdByMembershipId
          ? [task.createdByMembershipId]
          : [];
      const refs = await membershipRefsByIds(tx, orgId, recipients);
      const due = task.dueDate.toISOString();
      for (const membershipId of recipients) {
        const ref = refs.get(membershipId);
        if (!ref) continue;
        const created = await insertNotification(tx, orgId, {
          membershipId,
          type: 'task_reminder',
          title: `Reminder: ${task.name}`,
          body: `Task "${task.name}" is due ${due}.`,
          subject: { kind: 'task', documentId: task.documentId, label: task.name },
          dedupeKey: `task-reminder:${task.documentId}:${due}`,
        });
        if (!created || ref.user.blocked) continue;
        await enqueueMail(
          jobs,
          {
            to: ref.user.email,
            subject: `Reminder: ${task.name}`,
            text: `Hello ${ref.user.name ?? ref.user.username},\n\nthe task "${task.name}" is due ${due}.\n`,
            html: `<p>Hello ${escapeHtml(ref.user.name ?? ref.user.username)},</p><p>the task <strong>${escapeHtml(task.name)}</strong> is due ${due}.</p>`,
            messageId: `<task-reminder-${created.documentId}@crm.localhost>`,
          },
          { tx, orgId },
        );
      }
    });
  });
}
