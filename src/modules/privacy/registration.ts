import type { ModuleRegistration } from '../../platform/modules.js';
import { ADDRESS_HASH_SQL } from './keyed-hash.js';
import { SCRUB_SQL } from './scrub-sql.js';
import { registerPrivacyWorkers } from './worker.js';

/** What the platform runs for the privacy module: the erasure's SQL functions and the request jobs. */
export const privacyModule: ModuleRegistration = {
  name: 'privacy',
  schemaSql: [ADDRESS_HASH_SQL, ...SCRUB_SQL],
  registerWorkers: registerPrivacyWorkers,
};
