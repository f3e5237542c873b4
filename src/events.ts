import { modules } from './modules.js';
import type { Database } from './platform/db/client.js';
import {
  dispatchEvents as dispatchAll,
  dispatchOrganization as dispatchOne,
} from './platform/events/dispatch.js';
import { eventConsumersOf } from './platform/modules.js';

/**
 * Everything that consumes domain events (the modules' ModuleRegistration.eventConsumers, src/modules.ts); each
 * gets every event once (src/platform/events/dispatch.ts). The dispatcher itself: src/platform/events/dispatcher.ts.
 */
export const eventConsumers = eventConsumersOf(modules);

export const dispatchEvents = (db: Database) => dispatchAll(db, eventConsumers);
export const dispatchOrganization = (db: Database, orgId: number) => dispatchOne(db, orgId, eventConsumers);
