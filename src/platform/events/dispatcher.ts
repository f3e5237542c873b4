import type { WorkerDeps } from '../deps.js';
import type { QueueDef } from '../jobs/jobs.js';
import type { ModuleRegistration } from '../modules.js';
import { dispatchEvents, type EventConsumer } from './dispatch.js';
import { EVENTS_NOTIFY_SQL, eventsDispatched, listenForEvents, Pump } from './wake.js';

export const eventDispatchQueue: QueueDef = { name: 'events-dispatch', retryLimit: 0 };

/**
 * The platform's event outbox as a registration: its notify trigger (schema) and its dispatcher (worker), to the
 * modules' event consumers (`consumers`: read when the workers are registered). src/modules.ts places it in its
 * list, so the trigger is applied and the dispatcher registered where they always were.
 */
export function eventOutbox(consumers: () => EventConsumer[]): ModuleRegistration {
  return {
    name: 'events',
    schemaSql: EVENTS_NOTIFY_SQL,
    // Every event's pending row is deleted once dispatched: the service vacuums it itself (db/maintenance.ts).
    bookkeepingTables: ['domain_events_pending'],
    registerWorkers: (deps) => registerEventDispatch(deps, consumers()),
  };
}

/**
 * The dispatcher: woken by every commit that recorded events (src/platform/events/wake.ts) in each worker
 * process, and about every second as a periodic job (in one worker process of the cluster at a time) as the
 * safety net. Both go through one pump; while events keep coming a run goes on (up to 5 s). A pass that fanned
 * events out wakes the consumers' runners.
 */
export async function registerEventDispatch(deps: WorkerDeps, consumers: EventConsumer[]) {
  const pump = new Pump('events: dispatch', async () => {
    const n = await dispatchEvents(deps.db, consumers);
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
