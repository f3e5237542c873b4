import { sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import { type Database, queryRows } from '../db/client.js';
import { secretBox } from '../secrets/encryption.js';
import { isSealedRecord, sealRecord } from './commit.js';

const unsealed = (column: string) =>
  sql.raw(`(${column} is not null and not (jsonb_typeof(${column}) = 'object' and ${column} ? '$sealed'))`);

/**
 * Release 0.1.0 kept `Idempotency-Key` replay records in clear (for 24 h). Run at every start after the
 * migrations: each such record gets its answer sealed as a keyed request today would (`sealRecord`), so a retry
 * still replays the same answer and no secret shown once stays at rest in clear. Idempotent and safe for
 * processes starting together (a row changed meanwhile is left as it is: its request wrote it sealed); with
 * nothing left it is one indexed-size read of a table that holds at most a day of keys.
 */
export async function sealLegacyReplays(
  config: Pick<Config, 'CRM_ENCRYPTION_KEY'>,
  db: Database,
): Promise<number> {
  const rows = await queryRows<{
    user_id: string;
    key: string;
    response: string | null;
    provisional: string | null;
  }>(
    db.system,
    sql`select user_id::text, key, response_body::text as response, provisional_body::text as provisional
        from idempotency_keys where ${unsealed('response_body')} or ${unsealed('provisional_body')}`,
  );
  if (!rows.length) return 0;
  const box = await secretBox(config, db);
  const seal = (userId: number, key: string, json: string | null) =>
    json === null || isSealedRecord(JSON.parse(json))
      ? json
      : JSON.stringify(sealRecord(box, userId, key, json));
  let sealed = 0;
  for (const row of rows) {
    const userId = Number(row.user_id);
    const changed = await queryRows<{ key: string }>(
      db.system,
      sql`update idempotency_keys
          set response_body = ${seal(userId, row.key, row.response)}::jsonb,
              provisional_body = ${seal(userId, row.key, row.provisional)}::jsonb
          where user_id = ${userId} and key = ${row.key}
            and response_body::text is not distinct from ${row.response}
            and provisional_body::text is not distinct from ${row.provisional}
          returning key`,
    );
    sealed += changed.length;
  }
  return sealed;
}
