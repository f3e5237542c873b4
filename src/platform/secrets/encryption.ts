import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Database } from '../db/client.js';
import { instanceSecret } from './secrets.js';

/**
 * Credentials at rest (calendar passwords, provider tokens): AES-256-GCM (DESIGN.md §8), stored as
 * `v1.<iv>.<tag>.<ciphertext>` in base64url. The key is CRM_ENCRYPTION_KEY (32 bytes, base64 or hex), else an
 * instance key generated once into the database. `context` (e.g. `calendar_connection:<org>:<id>`) is bound as
 * associated data, so a ciphertext copied onto another row does not decrypt.
 */
export interface SecretBox {
  encrypt(plain: string, context: string): string;
  decrypt(sealed: string, context: string): string;
}

function parseKey(value: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error('CRM_ENCRYPTION_KEY must be 32 bytes, as base64 or 64 hex digits');
  return key;
}

function secretBoxOf(key: Buffer): SecretBox {
  return {
    encrypt(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    decrypt(sealed, context) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

const boxes = new WeakMap<Database, Promise<SecretBox>>();

/** The process's secret box for a database (the key is read or generated once). */
export function secretBox(config: Pick<Config, 'CRM_ENCRYPTION_KEY'>, db: Database): Promise<SecretBox> {
  let box = boxes.get(db);
  if (!box) {
    box = (async () => {
      if (config.CRM_ENCRYPTION_KEY) return secretBoxOf(parseKey(config.CRM_ENCRYPTION_KEY));
      // The generated secret is 48 random bytes; hashing gives the 32-byte key.
      const seed = await instanceSecret(db, 'encryption-key');
      return secretBoxOf(createHash('sha256').update(seed).digest());
    })();
    boxes.set(db, box);
  }
  return box;
}
