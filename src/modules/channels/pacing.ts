import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import { type Executor, queryRows, type Tx } from '../../platform/db/client.js';
import { whatsappLimit } from '../../platform/providers/whatsapp/errors.js';

/**
 * WhatsApp's own limits (docs/messaging.md, "WhatsApp limits"), shared by every sender and every worker process
 * through PostgreSQL rows (docs/decisions.md, "WhatsApp pacing in PostgreSQL"): the channel's send clock
 * (`chat_channels.send_window_at`, messages per second per business number) and the per-recipient clock
 * (`channel_recipient_clocks`, one message every CRM_WHATSAPP_PAIR_INTERVAL_MS to the same person). Each booking is
 * one statement on one row, serialised by its row lock.
 */

export type PaceConfig = Pick<Config, 'CRM_WHATSAPP_RATE_PER_SECOND' | 'CRM_WHATSAPP_PAIR_INTERVAL_MS'>;

/** Sends per second through a channel: `settings.ratePerSecond`, else 80 for WhatsApp (the env's) and 10 for others. */
export function channelRate(row: { type: string; settings: Record<string, unknown> }, config: PaceConfig) {
  const set = Number(row.settings.ratePerSecond);
  if (Number.isFinite(set) && set > 0) return set;
  return row.type === 'whatsapp' ? config.CRM_WHATSAPP_RATE_PER_SECOND : 10;
}

/** The per-recipient clock's key: a SHA-256 of the number's digits (the table keeps no phone number). */
export const recipientKey = (to: string) => createHash('sha256').update(to.replace(/\D/g, '')).digest('hex');

const secs = (ms: number) => sql`make_interval(secs => ${Math.max(0, ms) / 1000}::float8)`;

/** Books `n` sends on the channel's clock; answers how long (ms) to wait before sending them. */
export async function reserveChannelSlots(
  tx: Tx,
  orgId: number,
  channelId: number,
  n: number,
  ratePerSecond: number,
) {
  const [row] = await queryRows<{ delay_ms: number }>(
    tx,
    sql`update chat_channels
          set send_window_at = greatest(coalesce(send_window_at, now()), now()) + make_interval(secs => ${n}::float8 / ${ratePerSecond})
        where organization_id = ${orgId} and id = ${channelId}
        returning extract(epoch from (send_window_at - make_interval(secs => ${n}::float8 / ${ratePerSecond}) - now())) * 1000 as delay_ms`,
  );
  return Math.max(0, Number(row?.delay_ms ?? 0));
}

/** Moves the channel's clock at least `ms` ahead: every sender through the number waits (a throughput refusal). */
export async function holdChannel(tx: Tx, orgId: number, channelId: number, ms: number) {
  await tx.execute(
    sql`update chat_channels set send_window_at = greatest(coalesce(send_window_at, now()), now() + ${secs(ms)})
        where organization_id = ${orgId} and id = ${channelId}`,
  );
}

/** Moves one recipient's clock at least `ms` ahead (a pair-rate refusal). */
export async function holdRecipient(tx: Tx, orgId: number, channelId: number, to: string, ms: number) {
  await tx.execute(
    sql`insert into channel_recipient_clocks (organization_id, channel_id, recipient, next_at)
        values (${orgId}, ${channelId}, ${recipientKey(to)}, now() + ${secs(ms)})
        on conflict (organization_id, channel_id, recipient) do update
          set next_at = greatest(channel_recipient_clocks.next_at, excluded.next_at)`,
  );
}

/**
 * After messages left: each recipient's clock at least `intervalMs` after now (the send's end), so a message that
 * left later than its slot (a slow provider, a busy machine) still keeps the next one an interval away.
 */
export async function touchRecipients(
  tx: Tx,
  orgId: number,
  channelId: number,
  tos: string[],
  intervalMs: number,
) {
  if (tos.length === 0) return;
  const keys = [...new Set(tos.map(recipientKey))].join(',');
  await tx.execute(
    sql`insert into channel_recipient_clocks (organization_id, channel_id, recipient, next_at)
        select ${orgId}, ${channelId}, k, now() + ${secs(intervalMs)} from unnest(string_to_array(${keys}, ',')) as k
        on conflict (organization_id, channel_id, recipient) do update
          set next_at = greatest(channel_recipient_clocks.next_at, excluded.next_at)`,
  );
}

/**
 * Books the recipient's next free slot at or after `afterMs` from now (a later message waits its turn, never
 * dropped); answers how long (ms) to wait for it.
 */
export async function bookRecipientSlot(
  tx: Tx,
  orgId: number,
  channelId: number,
  to: string,
  afterMs: number,
  intervalMs: number,
) {
  const [row] = await queryRows<{ delay_ms: number }>(
    tx,
    sql`insert into channel_recipient_clocks (organization_id, channel_id, recipient, next_at)
        values (${orgId}, ${channelId}, ${recipientKey(to)}, now() + ${secs(afterMs)} + ${secs(intervalMs)})
        on conflict (organization_id, channel_id, recipient) do update
          set next_at = greatest(channel_recipient_clocks.next_at, now() + ${secs(afterMs)}) + ${secs(intervalMs)}
        returning extract(epoch from (next_at - ${secs(intervalMs)} - now())) * 1000 as delay_ms`,
  );
  return Math.max(0, Number(row.delay_ms));
}

/**
 * For a batch leaving in `afterMs`: takes the slot of every recipient free by then, in one statement. Answers the
 * recipients (as given) that are not free, with how long (ms) until they are: their senders put them back for then.
 */
export async function takeRecipientSlots(
  tx: Tx,
  orgId: number,
  channelId: number,
  tos: string[],
  afterMs: number,
  intervalMs: number,
): Promise<Map<string, number>> {
  const busy = new Map<string, number>();
  const byKey = new Map<string, string>();
  for (const to of tos) {
    const key = recipientKey(to);
    // The same person twice in one batch: the second waits a whole interval.
    if (byKey.has(key)) busy.set(to, afterMs + intervalMs);
    else byKey.set(key, to);
  }
  if (byKey.size === 0) return busy;
  const keys = [...byKey.keys()].join(',');
  const rows = await queryRows<{ recipient: string; wait_ms: number }>(
    tx,
    sql`with taken as (
          insert into channel_recipient_clocks (organization_id, channel_id, recipient, next_at)
          select ${orgId}, ${channelId}, k, now() + ${secs(afterMs)} + ${secs(intervalMs)}
          from unnest(string_to_array(${keys}, ',')) as k
          on conflict (organization_id, channel_id, recipient) do update set next_at = excluded.next_at
            where channel_recipient_clocks.next_at <= now() + ${secs(afterMs)}
          returning recipient)
        select c.recipient, extract(epoch from (c.next_at - now())) * 1000 as wait_ms
        from channel_recipient_clocks c
        where c.organization_id = ${orgId} and c.channel_id = ${channelId}
          and c.recipient = any(string_to_array(${keys}, ','))
          and c.recipient not in (select recipient from taken)`,
  );
  for (const r of rows) busy.set(byKey.get(r.recipient)!, Math.max(afterMs, Number(r.wait_ms)));
  return busy;
}

/** Maintenance: clocks a minute past their time hold nothing back any more. */
export async function pruneRecipientClocks(ex: Executor): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    ex,
    sql`with gone as (delete from channel_recipient_clocks where next_at < now() - interval '1 minute' returning 1)
        select count(*)::int as n from gone`,
  );
  return row.n;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Tries of one paced message refused for throughput or pair rate (the waits double). */
export const PACED_ATTEMPTS = 4;

/** How long a sender waits after a refusal for `limit` on its `attempt`-th try. */
export function limitBackoffMs(limit: 'throughput' | 'pair_rate', attempt: number, config: PaceConfig) {
  const base = limit === 'throughput' ? 1000 : Math.max(config.CRM_WHATSAPP_PAIR_INTERVAL_MS, 500);
  return Math.min(60_000, base * 2 ** (attempt - 1));
}

export interface PacedTarget {
  /** Runs the bookings in a tenant transaction (the caller's kind: a request context's, a worker's). */
  transaction: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;
  orgId: number;
  channel: { id: number; type: string; settings: Record<string, unknown> };
  /** The recipient's number (any format: its digits count). */
  to: string;
  config: PaceConfig;
}

/**
 * One WhatsApp message at WhatsApp's pace (inbox and automation sends): books the channel's and the recipient's
 * slots, waits for them, sends. A throughput refusal (130429) holds the whole channel back, a pair-rate refusal
 * (131056) that recipient, and the message is tried again (at most PACED_ATTEMPTS): both answers prove nothing was
 * sent, so the retry cannot make a second copy. Any other failure, or no answer at all, is thrown as is.
 */
export async function pacedSend<T>(p: PacedTarget, send: () => Promise<T>): Promise<T> {
  const { orgId, channel, to, config } = p;
  for (let attempt = 1; ; attempt++) {
    const wait = await p.transaction(async (tx) => {
      const channelWait = await reserveChannelSlots(tx, orgId, channel.id, 1, channelRate(channel, config));
      return bookRecipientSlot(tx, orgId, channel.id, to, channelWait, config.CRM_WHATSAPP_PAIR_INTERVAL_MS);
    });
    if (wait > 0) await sleep(wait);
    try {
      const sent = await send();
      await p.transaction((tx) =>
        touchRecipients(tx, orgId, channel.id, [to], config.CRM_WHATSAPP_PAIR_INTERVAL_MS),
      );
      return sent;
    } catch (err) {
      const limit = whatsappLimit(err);
      if ((limit !== 'throughput' && limit !== 'pair_rate') || attempt >= PACED_ATTEMPTS) throw err;
      const backoff = limitBackoffMs(limit, attempt, config);
      await p.transaction((tx) =>
        limit === 'throughput'
          ? holdChannel(tx, orgId, channel.id, backoff)
          : holdRecipient(tx, orgId, channel.id, to, backoff),
      );
    }
  }
}
