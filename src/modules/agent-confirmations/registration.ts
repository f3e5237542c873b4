import type { ModuleRegistration } from '../../platform/modules.js';
import { pruneAgentConfirmations } from './repo.js';

/** What the platform runs for the agent confirmations module (src/platform/modules.ts). */
export const agentConfirmationsModule: ModuleRegistration = {
  name: 'agent-confirmations',
  // Confirmation requests expired for more than a day.
  maintenance: [{ report: 'agentConfirmationsDeleted', run: pruneAgentConfirmations }],
};
