import type { ModuleRegistration } from '../../platform/modules.js';
import { registerStopReplyWorker } from './reply-worker.js';
import { CONSENT_SQL } from './sql.js';

/** What the platform runs for the consents module (src/platform/modules.ts). */
export const consentsModule: ModuleRegistration = {
  name: 'consents',
  // The append-only rule and the trigger-kept current state (sql.ts).
  schemaSql: CONSENT_SQL,
  // The stop keyword's confirmation (keywords.ts).
  registerWorkers: registerStopReplyWorker,
};
