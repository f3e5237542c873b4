import type { ModuleRegistration } from '../../platform/modules.js';
import { registerQueuedSweep } from './queued-sweep.js';
import { registerSnoozeSweep } from './snooze-sweep.js';

/** What the platform runs for the inbox module (src/platform/modules.ts). */
export const inboxModule: ModuleRegistration = {
  name: 'inbox',
  // One UPDATE per inbound or outbound message (last message, unread count: indexed, so never HOT): a busy
  // inbox turns its conversations over many times a minute, and the list's count reads them all.
  bookkeepingTables: ['conversations'],
  // Fails the sends a crash left queued (queued-sweep.ts); reopens the conversations whose snooze has passed.
  registerWorkers: async (deps) => {
    await registerQueuedSweep(deps);
    await registerSnoozeSweep(deps);
  },
};
