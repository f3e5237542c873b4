import type { ModuleRegistration } from '../../platform/modules.js';
import { BOARD_STRUCTURE_VERSION_SQL } from './structure-version.js';

/** What the platform runs for the boards module (src/platform/modules.ts). */
export const boardsModule: ModuleRegistration = {
  name: 'boards',
  schemaSql: BOARD_STRUCTURE_VERSION_SQL,
};
