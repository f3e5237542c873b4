import type { ModuleRegistration } from '../../platform/modules.js';
import { CARD_COUNTS_SQL, foldAllCounts } from './counts.js';
import { registerUploadWorkers } from './files.js';
import { registerCardImportWorker } from './import-jobs.js';
import { MENTION_NOTICES_SQL } from './mention-notices.js';
import { foldAllReports, REPORT_ROLLUP_SQL } from './report-rollups.js';
import { CARD_TITLE_SEARCH_SQL } from './title-search.js';

/** What the platform runs for the cards module (src/platform/modules.ts). */
export const cardsModule: ModuleRegistration = {
  name: 'cards',
  schemaSql: [...CARD_COUNTS_SQL, ...REPORT_ROLLUP_SQL, ...CARD_TITLE_SEARCH_SQL, ...MENTION_NOTICES_SQL],
  // The card counts' deltas and the board report's (report-rollups.ts), the same pattern.
  maintenance: [
    { report: 'folded', run: foldAllCounts },
    { report: 'folded', run: foldAllReports },
  ],
  bookkeepingTables: [
    'card_count_deltas',
    'card_counts',
    'card_report_deltas',
    'card_report_rollups',
    'card_report_tombstones',
    // The trigger-kept search copy (docs/performance.md): every card insert lands in its trigram index's GIN
    // pending list, which every substring search reads in full until a VACUUM merges it (up to 4 MB, the server's
    // gin_pending_list_limit, then an insert pays the merge); card moves and edits leave dead rows.
    'card_title_search',
  ],
  // The uploads' sweep, and the background CSV import (import-jobs.ts).
  async registerWorkers(deps) {
    await registerUploadWorkers(deps);
    await registerCardImportWorker(deps);
  },
};
