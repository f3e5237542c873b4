import { beforeAll } from 'vitest';
import { getApp } from './app.js';
import { distIsCurrent } from './built.js';

// Each worker process of the suite has its own job queues (one per fork, kept across its files): on a shared
// PostgreSQL database another fork's workers would otherwise take this one's jobs (a reminder mailed through
// that fork's SMTP peer, a sweep of that fork's data dir). Processes the tests spawn inherit it.
process.env.CRM_JOBS_NAMESPACE ??= `t${process.pid}`;

// Processes the tests spawn (bin/crm.js, bin/crm-mcp.js) run the code under test, never a stale dist/: the compiled
// dist/ when it is current (a second less of CPU per process than compiling the sources through tsx, and the suite
// starts a few hundred), else the sources. Decided before each file, so a watch run after an edit runs the sources;
// CRM_FROM_SOURCE=1 given to the test command keeps the sources throughout.
process.env.CRM_TEST_FROM_SOURCE ??= process.env.CRM_FROM_SOURCE ?? '';
process.env.CRM_FROM_SOURCE = process.env.CRM_TEST_FROM_SOURCE || !distIsCurrent() ? '1' : '';

// The worker's app and database start once, before the first test of each file (cached afterwards), so a
// slow start on a busy machine counts against the hook timeout, not a test's.
beforeAll(async () => {
  await getApp();
});
