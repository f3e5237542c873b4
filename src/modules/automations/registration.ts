import type { ModuleRegistration } from '../../platform/modules.js';
import { automationFanOut } from './fan-out.js';
import { registerAutomationWorkers } from './runner.js';

/** What the platform runs for the automations module (src/platform/modules.ts). */
export const automationsModule: ModuleRegistration = {
  name: 'automations',
  registerWorkers: registerAutomationWorkers,
  eventConsumers: [automationFanOut],
};
