import type { ModuleRegistration } from '../../platform/modules.js';
import { lazyLeadAdsKit } from './kit.js';
import { registerLeadAdsWorkers } from './leads.js';

/** What the platform runs for the lead ads module (src/platform/modules.ts). */
export const leadAdsModule: ModuleRegistration = {
  name: 'lead-ads',
  registerWorkers: (deps) => registerLeadAdsWorkers(deps, lazyLeadAdsKit(deps.config, deps.db)),
};
