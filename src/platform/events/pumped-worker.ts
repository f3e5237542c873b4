import type { Jobs, QueueDef } from '../jobs/jobs.js';
import { onEventsDispatched, Pump } from './wake.js';

export interface PumpedWorker {
  /** What the pump's errors are logged as ('webhooks: delivery'). */
  name: string;
  /** The periodic job's queue. */
  queue: QueueDef;
  /** Seconds between the periodic runs (the safety net: work that became due later, a lost wake-up). */
  every: number;
  /** One pass; answers how much it did (0 ends the pump's run). */
  work: () => Promise<number>;
}

/**
 * An event consumer's runner (webhook deliveries, automation runs, conversion sends): woken in process when the
 * dispatcher fanned events out (wake.ts), and about every `every` seconds as a periodic job (one worker process
 * of the cluster at a time) for what became due later; both through one pump, which keeps going while there is
 * work (up to 5 s). Handlers run only in worker processes: the first periodic run subscribes to the wake-ups
 * there, and a stopping process unsubscribes and waits for the run a wake-up started.
 */
export async function registerPumpedWorker(deps: { jobs: Jobs }, w: PumpedWorker) {
  const pump = new Pump(w.name, w.work);
  let woken = false;
  await deps.jobs.every(w.queue, w.every, async () => {
    if (!woken) {
      woken = true;
      const off = onEventsDispatched(() => pump.kick());
      deps.jobs.onStop(async () => {
        off();
        woken = false;
        await pump.drain();
      });
    }
    await pump.run();
  });
}
