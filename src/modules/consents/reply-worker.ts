import type { WorkerDeps } from '../../platform/deps.js';
import { ProviderError } from '../../platform/providers/provider-error.js';
import { channelProvider, findChannelById, lazyChannelKit } from '../channels/index.js';
import { type StopReplyJob, stopReplyQueue } from './keywords.js';

/** Sends after the first, each only when the previous one was refused with proof that nothing was sent. */
const RETRIES = 3;
const RETRY_DELAY_MS = 10_000;

/**
 * Sends a stop keyword's confirmation (keywords.ts) inside the 24-hour window the person's message opened. Tried
 * again, as a new job, only when the provider proves nothing was sent (refused connection, 429, 5xx); otherwise
 * given up: a confirmation twice is worse than none, and the withdrawal is recorded either way. The job itself is
 * never retried (stopReplyQueue): a worker that dies after the send leaves the job to expire as failed.
 */
export async function registerStopReplyWorker(deps: WorkerDeps) {
  const kit = lazyChannelKit(deps.config, deps.db);
  await deps.jobs.work<StopReplyJob>(stopReplyQueue, async (job) => {
    const channel = await deps.db.tenantTransaction(job.orgId, (tx) =>
      findChannelById(tx, job.orgId, job.channelId),
    );
    if (channel?.type !== 'whatsapp') return;
    const p = channelProvider(await kit(), channel);
    if (p.type !== 'whatsapp') return;
    try {
      await p.client.sendText(job.to, job.text);
    } catch (err) {
      const nothingSent = err instanceof ProviderError && !err.permanent && !err.outcomeUnknown;
      const attempt = job.attempt ?? 0;
      if (!nothingSent || attempt >= RETRIES) return;
      const startAfter = new Date(Date.now() + RETRY_DELAY_MS * 2 ** attempt);
      await deps.jobs.send(stopReplyQueue, { ...job, attempt: attempt + 1 }, { startAfter });
    }
  });
}
