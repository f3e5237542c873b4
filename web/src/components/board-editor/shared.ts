import { useQueryClient } from '@tanstack/react-query';
import { ApiError, type Board, reason } from '../../api';
import type { Condition } from '../../conditions';
import { wordsOf } from '../../lib/area-words';
import { list } from '../../lib/words';
import * as catalogue from '../../words/boards-editor';

/** The board editor's words (web/src/words/boards-editor.ts). */
export const bw = wordsOf(catalogue);
export type EditorKey = keyof typeof catalogue.ptBR;

/** Every field type the API takes (boards/table.ts FIELD_TYPES), in the order the picker shows them. */
export const FIELD_TYPES = [
  'text',
  'textarea',
  'richtext',
  'number',
  'currency',
  'email',
  'phone',
  'url',
  'date',
  'datetime',
  'time',
  'select',
  'multiselect',
  'radio',
  'checkbox',
  'switch',
  'file',
  'document',
  'card_link',
  'hidden',
  'statement',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
/** Types whose values come from options (boards/schema.ts OPTION_TYPES). */
export const OPTION_TYPES: string[] = ['select', 'multiselect', 'radio'];
export const typeWord = (type: string) => bw(`ft_${type}` as EditorKey);

/** The condition operators (boards/table.ts CONDITION_OPERATORS) — shown as words, never as codes. */
export const OPERATORS = [
  'eq',
  'ne',
  'contains',
  'notContains',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'notIn',
  'empty',
  'notEmpty',
] as const;
export const opWord = (op: string) => bw(`op_${op}` as EditorKey);

/** A field condition as the API lists it. */
export interface ConditionRow extends Condition {
  documentId: string;
  name: string;
  scope: 'phase' | 'board';
  order: number;
  phase: { documentId: string; name: string } | null;
}

/** After a structure change: the board (editor and Kanban), its conditions and its cards read again. */
export function useStructureRefresh(boardId: string) {
  const qc = useQueryClient();
  return () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['board', boardId] }),
      qc.invalidateQueries({ queryKey: ['boards'] }),
      qc.invalidateQueries({ queryKey: ['conditions', boardId] }),
      qc.invalidateQueries({ queryKey: ['cards', boardId] }),
      qc.invalidateQueries({ queryKey: ['stats', boardId] }),
    ]);
}

/**
 * A structure refusal in the chosen language: a phase that still holds cards, a field or phase that conditions
 * use (their names), else the service's reason (lib/errors.ts).
 */
export function structureRefusal(err: unknown, board?: Board): string {
  if (err instanceof ApiError) {
    const d = err.details ?? {};
    if (typeof d.cardCount === 'number') return bw('phaseHoldsCards', { n: d.cardCount });
    if (Array.isArray(d.conditions))
      return bw('usedByConditions', {
        names: list((d.conditions as { name: string }[]).map((c) => `“${c.name}”`)),
      });
  }
  return reason(err, board);
}

/** A colour for `<input type=color>` (#rrggbb): #rgb expanded, none or invalid as a grey. */
export function colorInput(c: string | null | undefined): string {
  if (!c || !/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(c)) return '#64748b';
  return c.length === 4 ? `#${[...c.slice(1)].map((x) => x + x).join('')}` : c.toLowerCase();
}

/** Phases in their order (0 is the entry form). */
export const ordered = (b: Board) => [...b.phases].sort((x, y) => x.order - y.order);
