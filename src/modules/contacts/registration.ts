import type { ModuleRegistration } from '../../platform/modules.js';
import { registerContactImportWorker } from './import-jobs.js';
import { CONTACT_NAME_SEARCH_SQL } from './name-search.js';

/** What the platform runs for the contacts module (src/platform/modules.ts). */
export const contactsModule: ModuleRegistration = {
  name: 'contacts',
  schemaSql: CONTACT_NAME_SEARCH_SQL,
  // The trigger-kept search copy: its GIN pending list (as cards' card_title_search).
  bookkeepingTables: ['contact_name_search'],
  // The background CSV import (import-jobs.ts).
  registerWorkers: registerContactImportWorker,
};
