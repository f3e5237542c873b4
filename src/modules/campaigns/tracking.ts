import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Database } from '../../platform/db/client.js';
import { instanceSecret } from '../../platform/secrets/secrets.js';

/**
 * Signed tokens of the public tracking routes (open pixel, click redirect, unsubscribe): `<org>.<recipient>.<mac>`,
 * the MAC an HMAC-SHA256 under a key derived per organization from an instance secret, over the kind, both ids
 * and (clicks) the target URL. A token names its organization, and only that organization's key verifies it:
 * one organization's token never reaches another's recipients, and a click cannot be re-pointed elsewhere.
 */

/**
 * `unsubscribe` names a campaign recipient; `unsubscribe_contact` names a contact (e-mail an automation sent,
 * docs/automations.md, "send_email and unsubscribe"). The kind is under the MAC: one never verifies as the other.
 */
export type TokenKind = 'open' | 'click' | 'unsubscribe' | 'unsubscribe_contact';

export interface TrackingSigner {
  sign(kind: TokenKind, orgId: number, recipientId: number, url?: string): string;
  verify(kind: TokenKind, token: string, url?: string): { orgId: number; recipientId: number } | null;
}

const signers = new WeakMap<Database, Promise<TrackingSigner>>();

export function trackingSigner(db: Database): Promise<TrackingSigner> {
  let s = signers.get(db);
  if (!s) {
    s = instanceSecret(db, 'campaign-tracking').then(makeSigner);
    signers.set(db, s);
  }
  return s;
}

function makeSigner(secret: string): TrackingSigner {
  const orgKeys = new Map<number, Buffer>();
  const orgKey = (orgId: number) => {
    let k = orgKeys.get(orgId);
    if (!k) {
      k = createHmac('sha256', secret).update(`org:${orgId}`).digest();
      orgKeys.set(orgId, k);
    }
    return k;
  };
  const mac = (kind: TokenKind, orgId: number, recipientId: number, url = '') =>
    createHmac('sha256', orgKey(orgId))
      .update(`${kind}\n${orgId}\n${recipientId}\n${url}`)
      .digest()
      .subarray(0, 18);
  return {
    sign: (kind, orgId, recipientId, url) =>
      `${orgId}.${recipientId}.${mac(kind, orgId, recipientId, url).toString('base64url')}`,
    verify(kind, token, url) {
      const m = /^(\d{1,15})\.(\d{1,15})\.([A-Za-z0-9_-]{24})$/.exec(token);
      if (!m) return null;
      const orgId = Number(m[1]);
      const recipientId = Number(m[2]);
      const given = Buffer.from(m[3], 'base64url');
      const expected = mac(kind, orgId, recipientId, url);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      return { orgId, recipientId };
    },
  };
}
