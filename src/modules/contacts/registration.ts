import type { ModuleRegistration } from '../../platform/modules.js';
import { CONTACT_COUNTS_SQL, foldAllContactCounts } from './counts.js';
import { registerContactImportWorker } from './import-jobs.js';
import { CONTACT_NAME_SEARCH_SQL } from './name-search.js';

/** What the platform runs for the contacts module (src/platform/modules.ts). */
export const contactsModule: ModuleRegistration = {
  name: 'contacts',
  schemaSql: [...CONTACT_NAME_SEARCH_SQL, ...CONTACT_COUNTS_SQL],
  // The contact counts' deltas (counts.ts), as the card counts'.
  maintenance: [{ report: 'folded', run: foldAllContactCounts }],
  // The trigger-kept search copy: its GIN pending list (as cards' card_title_search); the counts' deltas.
  bookkeepingTables: ['contact_name_search', 'contact_count_deltas', 'contact_counts'],
  // The background CSV import (import-jobs.ts).
  registerWorkers: registerContactImportWorker,
};
