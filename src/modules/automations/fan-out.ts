import type { Plan } from '../../config.js';
import type { EventConsumer, PendingEvent } from '../../platform/events/dispatch.js';
import { planFeatures } from '../../platform/tenancy/context.js';
import * as repo from './repo.js';
import type { Condition } from './schema.js';

/**
 * The loop guard: a change made by an automation carries the depth of its trigger + 1; events up to this depth
 * still trigger automations (an automation's own changes re-trigger at most 3 levels deep), deeper ones are
 * recorded as skipped runs.
 */
export const MAX_DEPTH = 3;

/** The value at a dot path of the event data (`card.phase.slug`). */
export function pick(data: unknown, path: string): unknown {
  let v: unknown = data;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

export function holds(c: Condition, data: unknown): boolean {
  const v = pick(data, c.field);
  switch (c.op) {
    case 'exists':
      return v !== undefined && v !== null;
    case 'eq':
      return JSON.stringify(v) === JSON.stringify(c.value);
    case 'neq':
      return JSON.stringify(v) !== JSON.stringify(c.value);
    case 'gt':
      return typeof v === 'number' && typeof c.value === 'number' && v > c.value;
    case 'gte':
      return typeof v === 'number' && typeof c.value === 'number' && v >= c.value;
    case 'lt':
      return typeof v === 'number' && typeof c.value === 'number' && v < c.value;
    case 'lte':
      return typeof v === 'number' && typeof c.value === 'number' && v <= c.value;
    case 'in':
      return Array.isArray(c.value) && c.value.some((x) => JSON.stringify(x) === JSON.stringify(v));
    case 'contains':
      if (Array.isArray(v)) return v.some((x) => JSON.stringify(x) === JSON.stringify(c.value));
      return typeof v === 'string' && typeof c.value === 'string' && v.includes(c.value);
  }
}

/**
 * The automations' share of the event dispatch (src/platform/events/dispatch.ts): one run row per event and
 * matching enabled automation, in the dispatcher's transaction; the key (automation, event) makes it once.
 */
export const automationFanOut: EventConsumer = async (tx, orgId, events) => {
  const types = [...new Set(events.map((e) => e.type))];
  const list = await repo.enabledAutomationsFor(tx, orgId, types);
  if (list.length === 0 || !planFeatures[list[0].plan as Plan]?.includes('automations')) return;
  const rows = events.flatMap((e) =>
    list
      .filter((a) => matches(a, e))
      .map((a) => {
        const tooDeep = e.depth > MAX_DEPTH;
        return {
          automationId: Number(a.id),
          eventId: e.eventId,
          eventType: e.type,
          subject: e.subject,
          event: { id: e.eventId, type: e.type, timestamp: e.createdAt.toISOString(), data: e.data },
          depth: e.depth,
          status: tooDeep ? 'skipped' : 'pending',
          message: tooDeep
            ? `loop guard: this change was made ${e.depth} automation levels deep (at most ${MAX_DEPTH} re-trigger)`
            : null,
          finishedAt: tooDeep ? new Date() : null,
        };
      }),
  );
  await repo.insertRuns(tx, orgId, rows);
};

function matches(
  a: {
    trigger_event: string;
    conditions: Condition[];
    board_id: number | null;
    board_document_id: string | null;
  },
  e: PendingEvent,
): boolean {
  if (a.trigger_event !== e.type) return false;
  if (a.board_id !== null && pick(e.data, 'card.board.documentId') !== a.board_document_id) return false;
  return (a.conditions ?? []).every((c) => holds(c, e.data));
}
