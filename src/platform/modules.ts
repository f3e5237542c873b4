import type { Executor } from './db/client.js';
import type { WorkerDeps } from './deps.js';
import type { EventConsumer } from './events/dispatch.js';

/**
 * What a module asks the platform to run for it. Dependencies point one way (platform ← modules ← app,
 * docs/architecture.md): the platform never imports a module, so a module declares its contributions here and the
 * app layer (src/modules.ts) passes the list to the platform — migrateDatabase, runMaintenance/startMaintenance,
 * the workers and the event dispatch. Every part is optional.
 */
export interface ModuleRegistration {
  /** The module's folder name (for messages). */
  name: string;
  /**
   * Idempotent DDL the generated migrations cannot express (functions, triggers, backfills), run after them and
   * before the tenant policies on every migration run whose schema fingerprint changed; statements run in the
   * order of the list, modules in the order of src/modules.ts. The statements are part of the fingerprint: a
   * changed statement makes the next start apply them again.
   */
  schemaSql?: readonly string[];
  /** Steps of the periodic database maintenance (src/platform/db/maintenance.ts), in order. */
  maintenance?: readonly MaintenanceTask[];
  /** Tables of the module the maintenance VACUUMs when nothing else does (they churn: deltas, search copies…). */
  bookkeepingTables?: readonly string[];
  /** Registers the module's job handlers (in every process that has a queue; they run only in worker processes). */
  registerWorkers?(deps: WorkerDeps): Promise<void>;
  /** Consumers of the domain events: each gets every event once (src/platform/events/dispatch.ts). */
  eventConsumers?: readonly EventConsumer[];
}

/** One maintenance step: answers how many rows it handled, added to the run's report under `report`. */
export interface MaintenanceTask {
  /** The report's field, e.g. `folded`: tasks with the same field add up. */
  report: string;
  run(ex: Executor): Promise<number>;
}

/** Every module's schema statements, in order. */
export const schemaSqlOf = (modules: readonly ModuleRegistration[]): string[] =>
  modules.flatMap((m) => m.schemaSql ?? []);

/** Every module's event consumers, in order. */
export const eventConsumersOf = (modules: readonly ModuleRegistration[]): EventConsumer[] =>
  modules.flatMap((m) => m.eventConsumers ?? []);
