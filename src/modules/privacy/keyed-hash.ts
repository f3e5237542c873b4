import { createHash, createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../../platform/db/client.js';
import { instanceSecret } from '../../platform/secrets/secrets.js';
import { instanceSecrets } from '../../platform/secrets/table.js';

/**
 * The keyed hash that replaces an erased person's address on the suppression list (docs/lgpd.md, "Erasure"):
 * `hmac:<hex HMAC-SHA256(key, address)>`, the key a secret of the instance. The campaigns' audience and the
 * automations' sends look an address up as itself or as its hash, in SQL: `crm_address_hash(address)` computes
 * the same HMAC from the key's inner and outer pads (RFC 2104), kept beside the key as instance secrets, so an
 * opt-out keeps working after the person's address is gone.
 */

export const HASH_PREFIX = 'hmac:';

const BLOCK = 64;

/** The 32-byte key, from a generated instance secret (first process wins). */
async function hashKey(db: Database): Promise<Buffer> {
  return createHash('sha256')
    .update(await instanceSecret(db, 'address-hash-key'))
    .digest();
}

const pad = (key: Buffer, byte: number) => {
  const out = Buffer.alloc(BLOCK, byte);
  for (let i = 0; i < key.length; i++) out[i] = key[i] ^ byte;
  return out;
};

/** Ensures the pads the SQL function reads exist (derived from the key: every process writes the same). */
export async function addressHasher(db: Database): Promise<(address: string) => string> {
  const key = await hashKey(db);
  await db.system
    .insert(instanceSecrets)
    .values([
      { name: 'address-hash-ipad', value: pad(key, 0x36).toString('hex') },
      { name: 'address-hash-opad', value: pad(key, 0x5c).toString('hex') },
    ])
    .onConflictDoNothing();
  return (address) => HASH_PREFIX + createHmac('sha256', key).update(address, 'utf8').digest('hex');
}

/** `crm_address_hash(address)`: null until the first erasure made the pads. */
export const ADDRESS_HASH_SQL = `
CREATE OR REPLACE FUNCTION public.crm_address_hash(address text) RETURNS text
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $f$
    SELECT '${HASH_PREFIX}' || encode(sha256(decode(o.value, 'hex')
      || sha256(decode(i.value, 'hex') || convert_to(address, 'UTF8'))), 'hex')
    FROM instance_secrets i JOIN instance_secrets o ON o.name = 'address-hash-opad'
    WHERE i.name = 'address-hash-ipad'
  $f$`;

/** The same hash computed by the database (tests compare it with addressHasher's). */
export const addressHashIn = (address: string) => sql`public.crm_address_hash(${address})`;
