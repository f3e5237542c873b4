import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Config } from '../../config.js';
import { type Database, queryRows } from '../../platform/db/client.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { instanceSecret } from '../../platform/secrets/secrets.js';

export interface ProviderKeys {
  signingKey: JWK;
  cookieKeys: string[];
}

const SEALED_CONTEXT = 'oauth:signing-key';

/**
 * The authorization server's keys, the same in every process: the cookie-signing key derived from the session
 * secret (CRM_JWT_SECRET, else the instance's generated one), never stored; the JWT signing key generated once
 * and stored sealed (AES-256-GCM with CRM_ENCRYPTION_KEY, src/platform/secrets) in oauth_records.
 */
export async function providerKeys(
  config: Pick<Config, 'CRM_JWT_SECRET' | 'CRM_ENCRYPTION_KEY'>,
  db: Database,
): Promise<ProviderKeys> {
  const secret = config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt'));
  const cookieKey = createHmac('sha256', secret).update('oauth-cookies').digest('base64url');
  const box = await secretBox(config, db);
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const fresh = box.encrypt(
    JSON.stringify({ ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig' }),
    SEALED_CONTEXT,
  );
  // The first process stores its key; every process then reads the stored one.
  await db.system.execute(sql`
    insert into oauth_records (kind, id, payload) values ('SigningKey', 'current', ${JSON.stringify({ sealed: fresh })}::jsonb)
    on conflict (kind, id) do nothing`);
  const [row] = await queryRows<{ sealed: string }>(
    db.system,
    sql`select payload->>'sealed' as sealed from oauth_records where kind = 'SigningKey' and id = 'current'`,
  );
  return { signingKey: JSON.parse(box.decrypt(row.sealed, SEALED_CONTEXT)) as JWK, cookieKeys: [cookieKey] };
}
