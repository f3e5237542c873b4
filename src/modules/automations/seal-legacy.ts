import type { Config } from '../../config.js';
import type { Database } from '../../platform/db/client.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { sealActions } from './headers.js';
import { automationsWithClearHeaders, replaceActionsIfUnchanged } from './repo.js';
import { sealContext } from './service.js';

/**
 * Release 0.1.0 stored `http_request` header values in clear (`params.headers`). Run at every start after the
 * migrations: each such action gets its values sealed (`params.sealedHeaders`), as a save would. Idempotent and
 * safe for processes starting together (a row changed meanwhile is left to the next start); with nothing left it
 * is one read of the automations table (small: rules, not records). A row whose values cannot be sealed (a clear
 * value equal to the mask) is left as it was, still masked in answers.
 */
export async function sealLegacyHeaders(
  config: Pick<Config, 'CRM_ENCRYPTION_KEY'>,
  db: Database,
): Promise<number> {
  const rows = await automationsWithClearHeaders(db);
  if (!rows.length) return 0;
  const box = await secretBox(config, db);
  let sealed = 0;
  for (const row of rows) {
    const actions = JSON.parse(row.actions) as { type: string; params: unknown }[];
    let next: unknown[];
    try {
      next = sealActions(box, sealContext(row.organization_id, row.document_id), actions);
    } catch {
      continue;
    }
    if (await replaceActionsIfUnchanged(db, row.organization_id, row.document_id, row.actions, next))
      sealed++;
  }
  return sealed;
}
