import type { Config } from './config.js';
import { modules } from './modules.js';
import type { Database } from './platform/db/client.js';
import type { WorkerDeps } from './platform/deps.js';
import { createJobs } from './platform/jobs/jobs.js';
import { createMailer, registerMailWorker } from './platform/mail/mailer.js';
import { createMetrics } from './platform/metrics/metrics.js';
import { secretBox } from './platform/secrets/encryption.js';

export type { WorkerDeps } from './platform/deps.js';

/** The mail worker, then every module's job handlers (ModuleRegistration.registerWorkers, src/modules.ts). */
export async function registerWorkers(deps: WorkerDeps) {
  await registerMailWorker(deps.jobs, deps.mailer, () => secretBox(deps.config, deps.db));
  for (const m of modules) await m.registerWorkers?.(deps);
}

/** The queue and mailer of a process, every handler registered; not started. */
export async function createBackground(config: Config, db: Database): Promise<WorkerDeps> {
  const deps: WorkerDeps = {
    config,
    db,
    jobs: createJobs(db, config),
    mailer: createMailer(config),
    metrics: createMetrics(db, config.CRM_JOBS_NAMESPACE),
  };
  await registerWorkers(deps);
  return deps;
}

/** Started with or without running the handlers (CRM_WORKERS=external: the API only enqueues). */
export async function startJobs(config: Config, db: Database, workers: boolean): Promise<WorkerDeps> {
  const deps = await createBackground(config, db);
  await deps.jobs.start({ workers });
  return deps;
}
