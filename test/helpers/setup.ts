import { beforeAll } from 'vitest';
import { getApp } from './app.js';

// Each worker process of the suite has its own job queues (one per fork, kept across its files): on a shared
// PostgreSQL database another fork's workers would otherwise take this one's jobs (a reminder mailed through
// that fork's SMTP peer, a sweep of that fork's data dir). Processes the tests spawn inherit it.
process.env.CRM_JOBS_NAMESPACE ??= `t${process.pid}`;

// The worker's app and database start once, before the first test of each file (cached afterwards), so a
// slow start on a busy machine counts against the hook timeout, not a test's.
beforeAll(async () => {
  await getApp();
});
