import type { WorkerDeps } from '../../platform/deps.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { deleteDueOrganizations } from './deletion.js';
import { orgExportQueue, removeSpentExports, runExport } from './exports.js';
import { enforceRetention } from './retention.js';

export const lgpdSweepQueue: QueueDef = { name: 'lgpd-sweep', expireInSeconds: 6 * 3600 };

/** One sweep: the retention rules, the deletions whose grace period is over, the spent export files. */
export async function lgpdSweep({ db, config }: Pick<WorkerDeps, 'db' | 'config'>) {
  const retention = await enforceRetention(db.system);
  const organizationsDeleted = await deleteDueOrganizations(db, config);
  const exportsRemoved = await removeSpentExports(db, config);
  return { retention, organizationsDeleted, exportsRemoved };
}

export async function registerOrgLifecycleWorkers(deps: WorkerDeps) {
  await deps.jobs.work<{ orgId: number; exportId: number }>(orgExportQueue, (data) =>
    runExport(deps, data.orgId, data.exportId),
  );
  await deps.jobs.every(lgpdSweepQueue, deps.config.CRM_LGPD_SWEEP_SECONDS, async () => {
    await lgpdSweep(deps);
  });
}
