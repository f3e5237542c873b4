import { createHash, randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TOKEN_PREFIX = 'crm_pat_';

/** `prefix` + 32 random bytes in base62: a secret shown once and stored only as its SHA-256. */
export function randomToken(prefix: string): string {
  let n = BigInt(`0x${randomBytes(32).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = base62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return prefix + out.padStart(43, '0');
}

/** `crm_pat_` + 32 random bytes in base62 (DESIGN.md §6). */
export const newApiToken = () => randomToken(TOKEN_PREFIX);

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export const TOKEN_EXPIRATIONS = { '1d': 1, '30d': 30, '365d': 365, '36500d': 36500 } as const;
export type TokenExpiration = keyof typeof TOKEN_EXPIRATIONS;

const SESSION_SECONDS = 2 * 60 * 60;

/** A verified session: its user and when it was issued (seconds since the epoch, the JWT's `iat`). */
export interface Session {
  userId: number;
  issuedAt: number;
}

export interface SessionSigner {
  sign(userId: number): Promise<string>;
  verify(token: string): Promise<Session | null>;
}

/** Session tokens verified recently, by their exact text: a client sends the same token on every request. */
const VERIFIED_CACHE_SIZE = 5_000;

export function sessionSigner(secret: string): SessionSigner {
  const key = new TextEncoder().encode(secret);
  // The HMAC key imported once (jose would import the raw bytes again on every call).
  const cryptoKey = crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
  // token → (user id, expiry ms). Only tokens that verified are kept, until their `exp`; the same text cannot
  // carry another signature, so a hit is exactly the earlier verification's answer. Bounded: oldest out first.
  const verified = new Map<string, Session & { exp: number }>();
  return {
    sign: async (userId) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(userId))
        .setIssuedAt()
        .setIssuer('crm')
        .setExpirationTime(`${SESSION_SECONDS}s`)
        .sign(await cryptoKey),
    verify: async (token) => {
      const hit = verified.get(token);
      if (hit) {
        if (hit.exp > Date.now()) return { userId: hit.userId, issuedAt: hit.issuedAt };
        verified.delete(token);
        return null;
      }
      try {
        // A session always expires: a token without `exp` (jose would accept it forever) is refused.
        const { payload } = await jwtVerify(token, await cryptoKey, {
          issuer: 'crm',
          algorithms: ['HS256'],
          requiredClaims: ['exp', 'iat', 'sub'],
          maxTokenAge: `${SESSION_SECONDS}s`,
        });
        const userId = Number(payload.sub);
        const issuedAt = Number(payload.iat);
        if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(issuedAt)) return null;
        // The earlier of `exp` and the maximum age from `iat` (jose checked both).
        const exp = Math.min(Number(payload.exp), issuedAt + SESSION_SECONDS) * 1000;
        if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
        verified.set(token, { userId, issuedAt, exp });
        return { userId, issuedAt };
      } catch {
        return null;
      }
    },
  };
}
