/**
 * One `Idempotency-Key` per thing the person is sending (docs/decisions.md, "The web app sends a message once"):
 * the same message sent again after an answer that never arrived (a network error, a lost connection) or a 5xx
 * reuses its key, so the service replays the first outcome instead of sending a second message. Another message,
 * or any answer the service gave for this one (sent, or refused with a 4xx), starts a new key.
 */
export interface OnceKey {
  /** The key for `payload`: the pending one when it is the same payload, else a new one. */
  keyFor(payload: unknown): string;
  /** The service answered definitively (success or a 4xx): the next send is a new one. */
  settle(): void;
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
  };
}
