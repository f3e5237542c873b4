import type { WorkerDeps } from '../../platform/deps.js';
import { ProviderError } from '../../platform/providers/provider-error.js';
import { channelProvider, findChannelById, lazyChannelKit } from '../channels/index.js';
import { type StopReplyJob, stopReplyQueue } from './keywords.js';

/**
 * Sends a stop keyword's confirmation (keywords.ts) inside the 24-hour window the person's message opened. Retried
 * only when the provider proves nothing was sent (refused connection, 429, 5xx); otherwise given up: a
 * confirmation twice is worse than none, and the withdrawal is recorded either way.
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
      if (err instanceof ProviderError && !err.permanent && !err.outcomeUnknown) throw err;
    }
  });
}
