import { automationFanOut } from './modules/automations/fan-out.js';
import { conversionFanOut } from './modules/conversion-pixels/delivery.js';
import { webhookFanOut } from './modules/webhooks/delivery.js';
import type { Database } from './platform/db/client.js';
import {
  dispatchEvents as dispatchAll,
  dispatchOrganization as dispatchOne,
  type EventConsumer,
} from './platform/events/dispatch.js';
import type { QueueDef } from './platform/jobs/jobs.js';
import type { WorkerDeps } from './workers.js';

/** Everything that consumes domain events; each gets every event once (src/platform/events/dispatch.ts). */
export const eventConsumers: EventConsumer[] = [webhookFanOut, automationFanOut, conversionFanOut];

export const dispatchEvents = (db: Database) => dispatchAll(db, eventConsumers);
export const dispatchOrganization = (db: Database, orgId: number) => dispatchOne(db, orgId, eventConsumers);

export const eventDispatchQueue: QueueDef = { name: 'events-dispatch', retryLimit: 0 };

/** The dispatcher: about every second, in one worker process of the cluster at a time. */
export async function registerEventDispatch(deps: WorkerDeps) {
  await deps.jobs.every(eventDispatchQueue, 1, async () => {
    // While events keep coming, up to 5 s per run: the delay to consumers is not held to the job cadence.
    const until = Date.now() + 5_000;
    while ((await dispatchEvents(deps.db)) > 0 && Date.now() < until);
  });
}
