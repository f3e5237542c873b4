import { join } from 'node:path';
import type { Config } from '../../config.js';
import { randomToken, sha256 } from '../../platform/auth/tokens.js';

/**
 * The one-time link of a data export (docs/lgpd.md, "Access and portability"): `/api/data-exports/<token>`, the
 * token 32 random bytes shown once, in the answer to the request, and stored only as its SHA-256 — the way of
 * every one-time secret of the service (API tokens, invitations, organization exports; docs/decisions.md, "One
 * kind of one-time link"). The request row says whether it is ready, used or expired.
 */

/** How long a finished export can be downloaded (then its file is removed). */
export const EXPORT_TTL_SECONDS = 15 * 60;

export const DATA_EXPORT_TOKEN_PREFIX = 'crm_dx_';

export const exportsDir = (config: Pick<Config, 'CRM_DATA_DIR'>) => join(config.CRM_DATA_DIR, 'exports');
export const exportFilePath = (config: Pick<Config, 'CRM_DATA_DIR'>, orgId: number, documentId: string) =>
  join(exportsDir(config), String(orgId), `${documentId}.zip`);

/** A new link: its token (for the answer) and the hash stored with the request. */
export function newExportLink() {
  const token = randomToken(DATA_EXPORT_TOKEN_PREFIX);
  return { token, tokenHash: sha256(token), url: `/api/data-exports/${token}` };
}

export const exportTokenHash = (token: string) => sha256(token);
