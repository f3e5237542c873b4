import { sql } from 'drizzle-orm';
import type { Plan } from '../../config.js';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { planFeatures } from '../../platform/tenancy/context.js';
import * as repo from './repo.js';

/**
 * The member a board's queue gives its next unassigned card to, or undefined (no active queue, nobody active).
 * Runs in the card's transaction with the queue row locked, so concurrent creations take turns: the rotation
 * and the counts never see a half-made choice.
 */
export function nextAssignee(tx: Tx, orgId: number, boardId: number): Promise<number | undefined> {
  return nextOf(tx, orgId, { boardId });
}

/**
 * The member an inbox's queue gives a new inbound conversation to (docs/distribution.md, "Inboxes"), or
 * undefined; same locking as nextAssignee, in the webhook's transaction.
 */
export function nextConversationAssignee(
  tx: Tx,
  orgId: number,
  inboxId: number,
): Promise<number | undefined> {
  return nextOf(tx, orgId, { inboxId });
}

async function nextOf(tx: Tx, orgId: number, target: repo.QueueTarget) {
  const queue = await repo.lockActiveQueue(tx, orgId, target);
  // A queue kept from a plan that had the feature assigns nothing on a plan without it.
  if (!queue || !planFeatures[queue.plan as Plan]?.includes('distribution')) return undefined;
  return choose(tx, orgId, queue, target);
}

/**
 * The next member of a named queue (an automation's `assign { distributionQueue }`), the queue locked as above;
 * undefined when the queue is inactive or nobody in it is active.
 */
export async function nextFromQueue(tx: Tx, orgId: number, queueId: number): Promise<number | undefined> {
  const [queue] = await queryRows<{
    id: number;
    strategy: string;
    last_membership_id: number | null;
    board_id: number | null;
    inbox_id: number | null;
  }>(
    tx,
    sql`select id, strategy, last_membership_id, board_id, inbox_id from distribution_queues
        where organization_id = ${orgId} and id = ${queueId} and active for update`,
  );
  if (!queue) return undefined;
  const target: repo.QueueTarget =
    queue.board_id === null ? { inboxId: Number(queue.inbox_id) } : { boardId: Number(queue.board_id) };
  return choose(tx, orgId, queue, target);
}

async function choose(
  tx: Tx,
  orgId: number,
  queue: { id: number; strategy: string; last_membership_id: number | null },
  target: repo.QueueTarget,
): Promise<number | undefined> {
  const list = await repo.candidates(tx, orgId, queue.id, target, queue.strategy === 'least_open');
  if (list.length === 0) return undefined;
  if (queue.strategy === 'weighted') {
    const { chosen, weights } = smoothWeighted(list);
    await repo.recordAssignment(tx, orgId, queue.id, chosen, weights);
    return chosen;
  }
  const chosen =
    queue.strategy === 'least_open' ? leastOpen(list) : roundRobin(list, queue.last_membership_id);
  await repo.recordAssignment(tx, orgId, queue.id, chosen);
  return chosen;
}

/** The first member after the last one served, in membership order (wrapping): joins and leaves keep the turn. */
export function roundRobin(list: repo.Candidate[], last: number | null): number {
  const after = last === null ? undefined : list.find((c) => c.membershipId > Number(last));
  return (after ?? list[0]).membershipId;
}

/**
 * Smooth weighted round robin (nginx): every member gains its weight, the highest running weight is served and
 * loses the total. Over any window of sum(weights) cards each member gets exactly its weight, interleaved.
 */
export function smoothWeighted(list: repo.Candidate[]): { chosen: number; weights: Map<number, number> } {
  const total = list.reduce((s, c) => s + c.weight, 0);
  const weights = new Map(list.map((c) => [c.membershipId, c.currentWeight + c.weight]));
  let chosen = list[0].membershipId;
  for (const c of list)
    if ((weights.get(c.membershipId) ?? 0) > (weights.get(chosen) ?? 0)) chosen = c.membershipId;
  weights.set(chosen, (weights.get(chosen) ?? 0) - total);
  return { chosen, weights };
}

/** The member with the fewest open cards on the board (conversations in the inbox); ties go to whoever waited longest. */
export function leastOpen(list: repo.Candidate[]): number {
  const waited = (c: repo.Candidate) => c.lastAssignedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  return [...list].sort(
    (a, b) => a.open - b.open || waited(a) - waited(b) || a.membershipId - b.membershipId,
  )[0].membershipId;
}
