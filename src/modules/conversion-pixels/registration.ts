import type { ModuleRegistration } from '../../platform/modules.js';
import { conversionFanOut, registerConversionWorkers } from './delivery.js';

/** What the platform runs for the conversion pixels module (src/platform/modules.ts). */
export const conversionPixelsModule: ModuleRegistration = {
  name: 'conversion-pixels',
  registerWorkers: registerConversionWorkers,
  eventConsumers: [conversionFanOut],
};
