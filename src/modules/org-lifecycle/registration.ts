import type { ModuleRegistration } from '../../platform/modules.js';
import { registerOrgLifecycleWorkers } from './sweep.js';

/** What the platform runs for the org-lifecycle module: the export job and the LGPD sweep (src/platform/modules.ts). */
export const orgLifecycleModule: ModuleRegistration = {
  name: 'org-lifecycle',
  registerWorkers: registerOrgLifecycleWorkers,
};
