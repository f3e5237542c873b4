import { randomUUID } from 'node:crypto';
import type { Tx } from '../db/client.js';
import { domainEvents } from './table.js';

/** The event types of DESIGN.md §11 that exist today (the others arrive with their areas). */
export const EVENT_TYPES = [
  'card.created',
  'card.updated',
  'card.phase_changed',
  'card.won',
  'card.lost',
  'card.deleted',
  'contact.created',
  'contact.updated',
  'conversation.created',
  'message.received',
  'task.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Records a domain event in the caller's transaction: committed with the change or not at all, so a crash
 * between commit and delivery loses nothing (the dispatcher finds it) and a rolled-back change emits nothing.
 */
export async function recordEvent(
  tx: Tx,
  orgId: number,
  type: EventType,
  subject: string,
  data: Record<string, unknown>,
): Promise<void> {
  await tx
    .insert(domainEvents)
    .values({ organizationId: orgId, eventId: `evt_${randomUUID()}`, type, subject, data });
}
