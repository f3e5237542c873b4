import type { Config } from '../config.js';
import type { SessionSigner } from './auth/tokens.js';
import type { Database } from './db/client.js';
import type { Jobs } from './jobs/jobs.js';
import type { Readiness } from './lifecycle/readiness.js';
import type { Mailer } from './mail/mailer.js';
import type { Metrics, ProcessMetrics } from './metrics/metrics.js';

/** What route plugins are given: explicit wiring, no container (DESIGN.md §10.5). */
export interface AppDeps {
  config: Config;
  db: Database;
  signer: SessionSigner;
  /** Enqueue background work (pg-boss): `deps.jobs.send(queue, data, { tx })`. */
  jobs: Jobs;
  mailer: Mailer;
  /** Outcomes the areas count for Prometheus (src/platform/metrics). */
  metrics: Metrics;
  /** Whether this process should get traffic (`GET /api/ready`); set by buildApp, absent in admin verbs. */
  readiness?: Readiness;
}

/** What background job handlers are given: the queue, the mailer and the process's metrics (src/workers.ts builds it). */
export interface WorkerDeps {
  config: Config;
  db: Database;
  jobs: Jobs;
  mailer: Mailer;
  /** The process's metrics (one registry per process): what the areas count, and what `/metrics` serves. */
  metrics: ProcessMetrics;
}
