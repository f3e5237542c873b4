import { ApiError } from '../api';

/**
 * One `Idempotency-Key` per thing the person is sending (docs/decisions.md, "The web app sends a message once"):
 * the same message sent again after an answer that never arrived (a network error, a lost connection) or a 5xx
 * reuses its key, so the service replays the first outcome instead of sending a second message (a 409 while the
 * first is still running keeps it too). Another message, or the service's definitive answer for this one (sent, or
 * refused with another 4xx), starts a new key.
 */
export interface OnceKey {
  /** The key for `payload`: the pending one when it is the same payload, else a new one. */
  keyFor(payload: unknown): string;
  /** The service answered definitively (success): the next send is a new one. */
  settle(): void;
  /**
   * After a failed send: settles on a definitive refusal (a 4xx), keeps the key when nothing is known of the first
   * send (no answer, a 5xx) or it may still go through (409: the first send with this key is still running; 429).
   */
  settleAfter(err: unknown): void;
}

/** 128 random bits as hex; `crypto.getRandomValues` also works on plain HTTP, unlike `randomUUID`. */
function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function onceKey(): OnceKey {
  let pending: { payload: string; key: string } | null = null;
  return {
    keyFor(payload) {
      const text = JSON.stringify(payload);
      if (pending?.payload !== text) pending = { payload: text, key: randomKey() };
      return pending.key;
    },
    settle() {
      pending = null;
    },
    settleAfter(err) {
      const status = err instanceof ApiError ? err.status : undefined;
      if (status !== undefined && status < 500 && status !== 409 && status !== 429) pending = null;
    },
  };
}
