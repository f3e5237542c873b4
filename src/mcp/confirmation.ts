import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Why a confirmationToken was refused; the model is told to ask for a new one. */
export type TokenProblem = 'malformed' | 'mismatch' | 'expired' | 'restarted' | 'used';

const problemText: Record<TokenProblem, string> = {
  malformed: 'is not a token issued by this server',
  mismatch: 'was issued for another tool or other arguments (arguments must be exactly those of the preview)',
  expired: 'has expired',
  restarted: 'has expired: the tool server restarted after issuing it, and tokens live in its memory',
  used: 'was already used (each token confirms one call)',
};

export function describeTokenProblem(problem: TokenProblem): string {
  return `The confirmationToken ${problemText[problem]}. Call the tool again without confirmationToken to get a new preview and token, show it to the person, and repeat the call with the new token only after they agree.`;
}

/** JSON with sorted keys: the same arguments always give the same bytes, whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * One-time confirmation tokens for clients without elicitation. A token is `nonce.expiry.signature` where the
 * signature is an HMAC over nonce, expiry, tool name and the canonical arguments, under a key that lives only in
 * this process. A token is accepted once, before its expiry, for exactly the tool and arguments it was issued for.
 */
export class ConfirmationTokens {
  private readonly key = randomBytes(32);
  private readonly startedAt: number;
  /** nonce → expiry (ms) of tokens already spent; pruned as they expire. */
  private readonly spent = new Map<string, number>();

  constructor(
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
  }

  issue(tool: string, args: unknown): { token: string; expiresAt: string } {
    const nonce = randomBytes(16).toString('base64url');
    const expiry = this.now() + this.ttlMs;
    const token = `${nonce}.${expiry}.${this.sign(nonce, expiry, tool, args)}`;
    return { token, expiresAt: new Date(expiry).toISOString() };
  }

  /** Consumes the token: returns the problem, or undefined when it confirms this call. */
  redeem(token: string, tool: string, args: unknown): TokenProblem | undefined {
    const parts = token.split('.');
    if (parts.length !== 3 || !/^\d+$/.test(parts[1])) return 'malformed';
    const [nonce, expiryText, signature] = parts;
    const expiry = Number(expiryText);
    const expected = Buffer.from(this.sign(nonce, expiry, tool, args));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      // Issued before this process started: its key is gone, so say it expired rather than "mismatch".
      return expiry - this.ttlMs < this.startedAt && /^[\w-]{22}$/.test(nonce) ? 'restarted' : 'mismatch';
    const now = this.now();
    if (expiry <= now) return 'expired';
    for (const [n, exp] of this.spent) if (exp <= now) this.spent.delete(n);
    if (this.spent.has(nonce)) return 'used';
    this.spent.set(nonce, expiry);
    return undefined;
  }

  private sign(nonce: string, expiry: number, tool: string, args: unknown): string {
    return createHmac('sha256', this.key)
      .update(`${nonce}\n${expiry}\n${tool}\n${canonicalJson(args)}`)
      .digest('base64url');
  }
}
