import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config.js';

/**
 * Secrets at rest (channel credentials, provider tokens): AES-256-GCM with a random 96-bit IV per value. The
 * additional authenticated data binds a ciphertext to its owner (`org:<id>:channel:<documentId>`), so a value
 * copied into another organization's row fails to open instead of leaking there.
 */

const keys = new Map<string, Buffer>();

function keyFrom(raw: string): Buffer {
  const trimmed = raw.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const b64 = Buffer.from(trimmed, 'base64');
  if (b64.length === 32 && /^[A-Za-z0-9+/_-]+=*$/.test(trimmed)) return b64;
  return createHash('sha256').update(trimmed).digest();
}

/** CRM_ENCRYPTION_KEY, else a key generated once into the data dir (mode 0600; first process wins). */
export function encryptionKey(config: Pick<Config, 'CRM_ENCRYPTION_KEY' | 'CRM_DATA_DIR'>): Buffer {
  const cacheKey = config.CRM_ENCRYPTION_KEY
    ? `env:${config.CRM_ENCRYPTION_KEY}`
    : `dir:${config.CRM_DATA_DIR}`;
  let key = keys.get(cacheKey);
  if (!key) {
    if (config.CRM_ENCRYPTION_KEY) key = keyFrom(config.CRM_ENCRYPTION_KEY);
    else {
      const file = join(config.CRM_DATA_DIR, 'encryption.key');
      mkdirSync(config.CRM_DATA_DIR, { recursive: true });
      try {
        writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      key = keyFrom(readFileSync(file, 'utf8'));
    }
    keys.set(cacheKey, key);
  }
  return key;
}

export function sealSecret(key: Buffer, aad: string, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    body.toString('base64url'),
  ].join(':');
}

/** Throws when the value was sealed with another key or for another owner. */
export function openSecret<T>(key: Buffer, aad: string, sealed: string): T {
  const [version, iv, tag, body] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('Not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
  return JSON.parse(text) as T;
}
