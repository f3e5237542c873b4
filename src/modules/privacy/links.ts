import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../../config.js';
import type { Database } from '../../platform/db/client.js';
import { instanceSecret } from '../../platform/secrets/secrets.js';

/**
 * The signed one-time link of a data export (docs/lgpd.md, "Access and portability"):
 * `/api/data-exports/<org>.<request documentId>.<expiry, unix seconds>.<HMAC-SHA256, base64url>`. Nothing of the
 * link is stored: the status read derives it again while the export is downloadable; the request row says
 * whether it was used.
 */

/** How long a finished export can be downloaded (then its file is removed). */
export const EXPORT_TTL_SECONDS = 15 * 60;

export const exportsDir = (config: Pick<Config, 'CRM_DATA_DIR'>) => join(config.CRM_DATA_DIR, 'exports');
export const exportFilePath = (config: Pick<Config, 'CRM_DATA_DIR'>, orgId: number, documentId: string) =>
  join(exportsDir(config), String(orgId), `${documentId}.zip`);

const keys = new WeakMap<Database, Promise<Buffer>>();

function linkKey(db: Database) {
  let key = keys.get(db);
  if (!key) {
    key = instanceSecret(db, 'data-export-links').then((s) => createHash('sha256').update(s).digest());
    keys.set(db, key);
  }
  return key;
}

const signature = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest('base64url');

export async function signExportLink(db: Database, orgId: number, documentId: string, expiresAt: Date) {
  const body = `${orgId}.${documentId}.${Math.floor(expiresAt.getTime() / 1000)}`;
  return `/api/data-exports/${body}.${signature(await linkKey(db), body)}`;
}

export type LinkCheck =
  | { ok: true; orgId: number; documentId: string }
  | { ok: false; reason: 'invalid' | 'expired' };

/** Checks a link's token: its signature, then its expiry. */
export async function verifyExportToken(db: Database, token: string, now = Date.now()): Promise<LinkCheck> {
  const m = /^(\d{1,15})\.([a-z0-9]{24})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return { ok: false, reason: 'invalid' };
  const [, org, documentId, expires, sig] = m;
  const expected = Buffer.from(signature(await linkKey(db), `${org}.${documentId}.${expires}`));
  if (!timingSafeEqual(expected, Buffer.from(sig))) return { ok: false, reason: 'invalid' };
  if (Number(expires) * 1000 <= now) return { ok: false, reason: 'expired' };
  return { ok: true, orgId: Number(org), documentId };
}
