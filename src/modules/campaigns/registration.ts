import type { ModuleRegistration } from '../../platform/modules.js';
import { registerCampaignWorkers } from './dispatch.js';

/** What the platform runs for the campaigns module (src/platform/modules.ts). */
export const campaignsModule: ModuleRegistration = {
  name: 'campaigns',
  registerWorkers: registerCampaignWorkers,
};
