import type { ModuleRegistration } from '../../platform/modules.js';
import { registerQuoteExpiry } from './expiry.js';

/** What the platform runs for the quotes module (src/platform/modules.ts). */
export const quotesModule: ModuleRegistration = {
  name: 'quotes',
  // Sent quotes past their validUntil become expired (expiry.ts).
  registerWorkers: registerQuoteExpiry,
};
