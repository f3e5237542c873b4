import { automationFanOut } from './modules/automations/fan-out.js';
import { conversionFanOut } from './modules/conversion-pixels/delivery.js';
import { webhookFanOut } from './modules/webhooks/delivery.js';
import type { Database } from './platform/db/client.js';
import type { WorkerDeps } from './platform/deps.js';
import {
  dispatchEvents as dispatchAll,
  dispatchOrganization as dispatchOne,
  type EventConsumer,
} from './platform/events/dispatch.js';
import { eventsDispatched, listenForEvents, Pump } from './platform/events/wake.js';
import type { QueueDef } from './platform/jobs/jobs.js';

/** Everything that consumes domain events; each gets every event once (src/platform/events/dispatch.ts). */
export const eventConsumers: EventConsumer[] = [webhookFanOut, automationFanOut, conversionFanOut];

export const dispatchEvents = (db: Database) => dispatchAll(db, eventConsumers);
export const dispatchOrganization = (db: Database, orgId: number) => dispatchOne(db, orgId, eventConsumers);

export const eventDispatchQueue: QueueDef = { name: 'events-dispatch', retryLimit: 0 };

/**
 * The dispatcher: woken by every commit that recorded events (src/platform/events/wake.ts) in each worker
 * process, and about every second as a periodic job (in one worker process of the cluster at a time) as the
 * safety net. Both go through one pump; while events keep coming a run goes on (up to 5 s). A pass that fanned
 * events out wakes the consumers' runners.
 */
export async function registerEventDispatch(deps: WorkerDeps) {
  const pump = new Pump('events: dispatch', async () => {
    const n = await dispatchEvents(deps.db);
    if (n > 0) eventsDispatched();
    return n;
  });
  let listening = false;
  const listen = () => {
    if (listening) return;
    listening = true;
    listenForEvents(deps.db, () => pump.kick()).then(
      (stop) =>
        deps.jobs.onStop(async () => {
          listening = false;
          await stop();
          await pump.drain();
        }),
      (err) => {
        listening = false;
        console.error(`events: LISTEN failed: ${(err as Error).message}`);
      },
    );
  };
  // Handlers run only in worker processes: the first periodic run starts listening there.
  await deps.jobs.every(eventDispatchQueue, 1, async () => {
    listen();
    await pump.run();
  });
}
