import type { Config } from './config.js';
import { registerEventDispatch } from './events.js';
import { registerAutomationWorkers } from './modules/automations/runner.js';
import { registerCampaignWorkers } from './modules/campaigns/dispatch.js';
import { registerUploadWorkers } from './modules/cards/files.js';
import { registerConversionWorkers } from './modules/conversion-pixels/delivery.js';
import { lazyLeadAdsKit } from './modules/lead-ads/kit.js';
import { registerLeadAdsWorkers } from './modules/lead-ads/leads.js';
import { registerTaskWorkers } from './modules/tasks/jobs.js';
import { registerWebhookWorkers } from './modules/webhooks/delivery.js';
import type { Database } from './platform/db/client.js';
import type { WorkerDeps } from './platform/deps.js';
import { createJobs } from './platform/jobs/jobs.js';
import { createMailer, registerMailWorker } from './platform/mail/mailer.js';
import { createMetrics } from './platform/metrics/metrics.js';

export type { WorkerDeps } from './platform/deps.js';

/** Every area's job handlers. Adding an area's background work = one line here. */
export async function registerWorkers(deps: WorkerDeps) {
  await registerMailWorker(deps.jobs, deps.mailer);
  await registerTaskWorkers(deps);
  await registerUploadWorkers(deps);
  await registerCampaignWorkers(deps);
  await registerEventDispatch(deps);
  await registerWebhookWorkers(deps);
  await registerAutomationWorkers(deps);
  await registerConversionWorkers(deps);
  await registerLeadAdsWorkers(deps, lazyLeadAdsKit(deps.config, deps.db));
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
