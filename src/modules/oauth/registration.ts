import type { ModuleRegistration } from '../../platform/modules.js';
import { sweepOauthRecords } from './adapter.js';

/** What the platform runs for the OAuth module (src/platform/modules.ts). */
export const oauthModule: ModuleRegistration = {
  name: 'oauth',
  // Expired codes, tokens, interactions, sessions and grants.
  maintenance: [{ report: 'oauthRecordsDeleted', run: sweepOauthRecords }],
};
