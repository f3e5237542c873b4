import type { Tx } from '../../platform/db/client.js';
import { ProviderError } from '../../platform/providers/provider-error.js';
import { whatsappLimit } from '../../platform/providers/whatsapp/errors.js';
import {
  holdChannel,
  holdRecipient,
  limitBackoffMs,
  type PaceConfig,
  touchRecipients,
} from '../channels/index.js';
import type * as repo from './repo.js';

// What a campaign send's failure leads to (docs/messaging.md, "WhatsApp limits" and the at-most-once choice).

export const MAX_ATTEMPTS = 5;
/** Tries of a recipient refused for WhatsApp's throughput or pair rate (nothing was sent; the waits double). */
const THROTTLED_ATTEMPTS = 10;

/** A send's outcome; a WhatsApp limit refusal also holds the channel or the recipient back (settle). */
export type Settled = repo.SendResult & {
  hold?: { limit: 'throughput' | 'pair_rate'; ms: number; to: string };
};

/**
 * A failed send: retried only when the provider's answer proves nothing was sent (WhatsApp's throughput 130429 and
 * pair rate 131056 after their backoff; 429, 5xx, connection refused), failed otherwise with the provider's reason
 * (131047 names the template alternative, 131026 is undeliverable); an unanswered request is never resent.
 */
export function failureOf(pace: PaceConfig, r: repo.ClaimedRecipient, err: unknown): Settled {
  if (!(err instanceof ProviderError)) return { id: r.id, outcome: 'failed', error: (err as Error).message };
  const error = `${err.provider} provider: ${err.message}`;
  if (err.outcomeUnknown)
    return { id: r.id, outcome: 'failed', error: `${error} (outcome unknown, not resent)` };
  const limit = whatsappLimit(err);
  if (limit === 'throughput' || limit === 'pair_rate') {
    if (r.attempts >= THROTTLED_ATTEMPTS)
      return { id: r.id, outcome: 'failed', error: `${error} (gave up after ${r.attempts} attempts)` };
    const ms = limitBackoffMs(limit, r.attempts, pace);
    return {
      id: r.id,
      outcome: 'retry',
      error,
      retryInSeconds: ms / 1000,
      hold: { limit, ms, to: r.address },
    };
  }
  if (err.permanent || r.attempts >= MAX_ATTEMPTS) return { id: r.id, outcome: 'failed', error };
  return { id: r.id, outcome: 'retry', error, retryInSeconds: Math.min(300, 5 * 2 ** (r.attempts - 1)) };
}

/**
 * The clocks after a WhatsApp batch: the channel (throughput refusal) or a recipient (pair-rate refusal) waits the
 * backoff, and every recipient sent to waits an interval from now (the send's end, however late it left).
 */
export async function applyHolds(
  tx: Tx,
  c: { orgId: number; channelId: number; whatsapp: boolean; pace: PaceConfig },
  batch: repo.ClaimedRecipient[],
  results: Settled[],
) {
  if (!c.whatsapp) return;
  const holds = results.flatMap((r) => (r.hold ? [r.hold] : []));
  const throughput = Math.max(0, ...holds.filter((h) => h.limit === 'throughput').map((h) => h.ms));
  if (throughput > 0) await holdChannel(tx, c.orgId, c.channelId, throughput);
  for (const h of holds.filter((x) => x.limit === 'pair_rate'))
    await holdRecipient(tx, c.orgId, c.channelId, h.to, h.ms);
  const sent = new Set(results.filter((r) => r.outcome === 'sent').map((r) => r.id));
  const to = batch.filter((r) => sent.has(r.id)).map((r) => r.address);
  await touchRecipients(tx, c.orgId, c.channelId, to, c.pace.CRM_WHATSAPP_PAIR_INTERVAL_MS);
}
