import type { ModuleRegistration } from '../../platform/modules.js';
import { registerTaskWorkers } from './jobs.js';

/** What the platform runs for the tasks module (src/platform/modules.ts). */
export const tasksModule: ModuleRegistration = { name: 'tasks', registerWorkers: registerTaskWorkers };
