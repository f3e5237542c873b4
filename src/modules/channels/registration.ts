import type { ModuleRegistration } from '../../platform/modules.js';
import { pruneRecipientClocks } from './pacing.js';

/** What the platform runs for the channels module (src/platform/modules.ts). */
export const channelsModule: ModuleRegistration = {
  name: 'channels',
  // WhatsApp's per-recipient clocks a minute past their time (they hold a hash of the number).
  maintenance: [{ report: 'recipientClocksDeleted', run: pruneRecipientClocks }],
};
