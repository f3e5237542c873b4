import type { WorkerDeps } from '../../platform/deps.js';
import { runErasure } from './erase-job.js';
import { expireDataExport, runDataExport } from './export-job.js';
import { exportExpiryQueue, type PrivacyJobData, privacyRequestQueue } from './queues.js';
import * as repo from './repo.js';

/**
 * One privacy request's job: claims the request (queued → running; a request already finished, or failed by an
 * erasure, is left alone), runs its export or erasure, and records a failure on the request with its reason (the
 * caller asks again). The claim takes the person's lock (repo.lockPerson), so an export never starts inside an
 * erasure's transaction. A failure after an erasure committed leaves it done (erase-job.ts records warnings).
 */
export async function runPrivacyRequest(
  deps: Pick<WorkerDeps, 'db' | 'config' | 'jobs'>,
  data: PrivacyJobData,
) {
  const { db } = deps;
  const request = await db.tenantTransaction(data.orgId, async (tx) => {
    const seen = await repo.requestById(tx, data.orgId, data.requestId);
    if (!seen || seen.status === 'done' || seen.status === 'failed') return null;
    // The person's lock before the row's (an erasure takes them in this order too: no deadlock).
    await repo.lockPerson(tx, data.orgId, seen.contactId);
    const row = await repo.requestById(tx, data.orgId, data.requestId, true);
    if (!row || row.status === 'done' || row.status === 'failed') return null;
    await repo.updateRequest(tx, data.orgId, row.id, { status: 'running' });
    return row;
  });
  if (!request) return;
  try {
    if (request.kind === 'data_export') await runDataExport(deps, request);
    else await runErasure(deps, request, data.userId);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await db.tenantTransaction(data.orgId, (tx) =>
      repo.failRequest(
        tx,
        data.orgId,
        request.id,
        `The ${request.kind === 'data_export' ? 'export' : 'erasure'} failed: ${message.slice(0, 300)}`,
      ),
    );
  }
}

export async function registerPrivacyWorkers(deps: WorkerDeps) {
  await deps.jobs.work<PrivacyJobData>(privacyRequestQueue, (data) => runPrivacyRequest(deps, data));
  await deps.jobs.work<PrivacyJobData>(exportExpiryQueue, async (data) => {
    const row = await deps.db.tenantTransaction(data.orgId, (tx) =>
      repo.requestById(tx, data.orgId, data.requestId),
    );
    if (row) await expireDataExport(deps.config, data.orgId, row.documentId);
  });
}
