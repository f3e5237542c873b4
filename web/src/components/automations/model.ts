import { useQuery } from '@tanstack/react-query';
import { type Board, client, type Ref, unwrap } from '../../api';
import { wordsOf } from '../../lib/area-words';
import { personName } from '../../lib/people';
import * as catalogue from '../../words/automations';

/** The automations' words, and what the page and its editor share: shapes, the codes shown as words, look-ups. */
export const aw = wordsOf(catalogue);
export type Key = keyof typeof catalogue.ptBR;

/** The event types of the service (src/platform/events/outbox.ts). */
export const EVENTS = [
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
  'campaign.completed',
  'lead.received',
] as const;
export const isCardEvent = (e: string) => e.startsWith('card.');
export const eventWord = (e: string) => aw(`ev_${e}` as Key);

export const OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'exists'] as const;
export type Op = (typeof OPS)[number];
export const opWord = (op: string) => aw(`op_${op}` as Key);

/** The fields of each event's data a condition usually compares (docs/automations.md, "Events"). */
const CARD_FIELDS = ['card.value', 'card.title', 'card.phase.slug'];
export const FIELDS_OF: Record<string, string[]> = {
  'card.created': CARD_FIELDS,
  'card.updated': [...CARD_FIELDS, 'changes'],
  'card.phase_changed': [...CARD_FIELDS, 'to.slug', 'from.slug'],
  'card.won': CARD_FIELDS,
  'card.lost': CARD_FIELDS,
  'card.deleted': CARD_FIELDS,
  'contact.created': ['contact.name', 'contact.email', 'contact.phone'],
  'contact.updated': ['contact.name', 'contact.email', 'contact.phone', 'changes'],
  'conversation.created': [],
  'message.received': ['content', 'contentType'],
  'task.completed': ['task.name'],
  'campaign.completed': ['campaign.name', 'stats.sent', 'stats.failed'],
  'lead.received': ['card.title', 'card.value', 'contact.email', 'contact.name', 'route.name'],
};
export const NUMERIC_FIELDS = new Set(['card.value', 'stats.sent', 'stats.failed']);
export const PHASE_FIELDS = new Set(['card.phase.slug', 'to.slug', 'from.slug']);
export const fieldWord = (f: string) => {
  const k = `f_${f}` as Key;
  return aw(k) === k ? f : aw(k);
};

export const ACTION_TYPES = [
  'move_card',
  'add_tag',
  'remove_tag',
  'assign',
  'set_field',
  'set_due_date',
  'create_task',
  'send_template_message',
  'send_email',
  'http_request',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export const actionWord = (t: string) => aw(`a_${t}` as Key);
/** Actions on the triggering card: a card trigger (not card.deleted); these three need the board too. */
export const CARD_ACTIONS = new Set([
  'move_card',
  'assign',
  'add_tag',
  'remove_tag',
  'set_field',
  'set_due_date',
]);
export const BOARD_ACTIONS = new Set(['move_card', 'add_tag', 'remove_tag', 'set_field']);

export interface Condition {
  field: string;
  op: Op;
  value?: unknown;
}
export interface Action {
  type: ActionType;
  params: Record<string, any>;
}
export interface Automation {
  documentId: string;
  name: string;
  enabled: boolean;
  board: { documentId: string; name: string } | null;
  trigger: { event: string; conditions: Condition[] };
  actions: Action[];
  createdAt: string;
  updatedAt: string;
}
export interface ActionResult {
  type: string;
  ok: boolean;
  message: string | null;
  output?: any;
}
export type RunStatus = 'pending' | 'succeeded' | 'failed' | 'skipped';
export interface Run {
  id: number;
  eventId: string;
  eventType: string;
  subject: string;
  depth: number;
  status: RunStatus;
  attempts: number;
  message: string | null;
  results: ActionResult[];
  createdAt: string;
  finishedAt: string | null;
}

/** A condition in words: "Valor do card é maior que 1000". */
export function conditionWords(c: Condition, board?: Board | null): string {
  if (c.op === 'exists') return `${fieldWord(c.field)} ${opWord(c.op)}`;
  let v = Array.isArray(c.value) ? c.value.join(', ') : String(c.value ?? '');
  if (PHASE_FIELDS.has(c.field)) v = board?.phases.find((p) => p.slug === v)?.name ?? v;
  return `${fieldWord(c.field)} ${opWord(c.op)} ${v}`;
}

/** A board with its phases, fields and tags (null: none chosen). */
export function useBoard(id: string | null | undefined) {
  return useQuery({
    queryKey: ['automation-board', id],
    enabled: !!id,
    queryFn: async () =>
      (await unwrap(client.GET('/api/boards/{id}', { params: { path: { id: id! } } }))) as unknown as Board,
  });
}

export function useMembers() {
  return useQuery({
    queryKey: ['automation-members'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/memberships', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as unknown as Ref[],
  });
}
export const memberName = (members: Ref[] | undefined, id: string) =>
  personName(members?.find((m) => m.documentId === id)) || id;

/** A phase, tag or field named by documentId or slug, as the board calls it. */
export const phaseName = (board: Board | null | undefined, ref: string) =>
  board?.phases.find((p) => p.documentId === ref || p.slug === ref)?.name ?? ref;
export const tagName = (board: Board | null | undefined, ref: string) =>
  board?.tags.find((t) => t.documentId === ref || t.slug === ref)?.name ?? ref;
export const fieldLabel = (board: Board | null | undefined, slug: string) =>
  board?.phases.flatMap((p) => p.fields).find((f) => f.slug === slug)?.label ?? slug;
