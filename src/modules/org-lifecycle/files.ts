import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../config.js';

/**
 * The places an organization's files live: `<CRM_DATA_DIR>/<area>/<organization id>/…` (uploads: card files;
 * imports: CSV files of background imports; exports: the organization's own exports). A new area that keeps
 * files per organization adds its directory name here.
 */
export const ORG_FILE_AREAS = ['uploads', 'imports', 'exports'] as const;
/** The areas an export carries (not the exports themselves). */
export const EXPORTED_FILE_AREAS = ['uploads', 'imports'] as const;

export const orgFilesDir = (config: Pick<Config, 'CRM_DATA_DIR'>, area: string, orgId: number) =>
  join(config.CRM_DATA_DIR, area, String(orgId));

/** Removes every file of the organization. */
export async function removeOrganizationFiles(config: Pick<Config, 'CRM_DATA_DIR'>, orgId: number) {
  for (const area of ORG_FILE_AREAS)
    await rm(orgFilesDir(config, area, orgId), { recursive: true, force: true });
}
