import { beforeAll } from 'vitest';
import { getApp } from './app.js';

// The worker's app and database start once, before the first test of each file (cached afterwards), so a
// slow start on a busy machine counts against the hook timeout, not a test's.
beforeAll(async () => {
  await getApp();
});
