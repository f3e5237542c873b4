import type { Config } from '../../config.js';
import type { Database } from '../../platform/db/client.js';
import type { Jobs } from '../../platform/jobs/jobs.js';
import type { SafeFetch } from '../../platform/outbound/safe-fetch.js';
import type { TenantContext } from '../../platform/tenancy/context.js';

/** What an action runs with (actions.ts runs it; messaging.ts sends its messages). */
export interface ActionEnv {
  db: Database;
  config: Config;
  jobs: Jobs;
  fetch: SafeFetch;
  /** Acts as the automation's admin; its next transaction records the action's result in the same commit. */
  ctx: TenantContext;
  /** Arms `ctx` so that its next transaction also records this action's result (exactly once with the change). */
  arm: (output: Output) => void;
  event: { id: string; type: string; timestamp: string; data: Record<string, unknown> };
  /** Standard Webhooks signing of http_request (the automation's secret). */
  secret: string;
  /**
   * Commits "sending, outcome unknown" as the action's result before a message goes out: a crash after it never
   * sends the message again (at most once, as campaigns); the runner overwrites it with the outcome. Throws, and
   * the message must not be sent, when the run is no longer this worker's (claimed again after its lease).
   */
  reserve: () => Promise<void>;
  /** Stable per run and action: the webhook-id of an http_request, the same on every retry. */
  messageId: string;
}

/** What an action did, shown in the run. */
export type Output = Record<string, unknown> | undefined;
