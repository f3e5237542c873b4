import type { BoardStructure } from '../boards/index.js';
import type { ConditionAction, ConditionExpression, ConditionGroup } from '../boards/table.js';
import { isEmptyValue } from './field-values.js';
import type { StoredFields } from './fields.js';

/**
 * Field conditions (show/hide rules) evaluated against a card's values, so that a required field the
 * rules hide is not required (docs/cards.md). Pure: the caller loads the enabled conditions.
 */

export interface ConditionRule {
  enabled: boolean;
  criteria: ConditionGroup[];
  actionsWhenTrue: ConditionAction[];
  actionsWhenFalse: ConditionAction[];
}

function asNumber(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

function equals(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(actual)) return actual.some((a) => equals(a, expected));
  if (actual === null || actual === undefined) return expected === null || expected === undefined;
  return String(actual) === String(expected);
}

function compare(actual: unknown, expected: unknown): number | undefined {
  const a = asNumber(actual);
  const e = asNumber(expected);
  if (a !== undefined && e !== undefined) return a - e;
  if (typeof actual === 'string' && typeof expected === 'string')
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  return undefined;
}

function holds(structure: BoardStructure, values: StoredFields, e: ConditionExpression): boolean {
  const field = structure.fieldsBySlug.get(e.fieldSlug);
  const actual = field ? values[field.documentId] : undefined;
  const list = Array.isArray(e.value) ? e.value : [e.value];
  switch (e.operator) {
    case 'empty':
      return !field || isEmptyValue(field.type, actual);
    case 'notEmpty':
      return !!field && !isEmptyValue(field.type, actual);
    case 'eq':
      return equals(actual, e.value);
    case 'ne':
      return !equals(actual, e.value);
    case 'in':
      return list.some((v) => equals(actual, v));
    case 'notIn':
      return !list.some((v) => equals(actual, v));
    case 'contains':
    case 'notContains': {
      const found = Array.isArray(actual)
        ? actual.some((a) => equals(a, e.value))
        : typeof actual === 'string' && actual.toLowerCase().includes(String(e.value ?? '').toLowerCase());
      return e.operator === 'contains' ? found : !found;
    }
    default: {
      const c = compare(actual, e.value);
      if (c === undefined) return false;
      return e.operator === 'gt'
        ? c > 0
        : e.operator === 'gte'
          ? c >= 0
          : e.operator === 'lt'
            ? c < 0
            : c <= 0;
    }
  }
}

/**
 * Field documentIds hidden for these values. Groups are ORed, expressions of a group ANDed. A field is
 * hidden when an applied action hides it, or when a `show` action of the branch not taken names it
 * ("show X when …" means hidden otherwise), unless an applied action shows it.
 */
export function hiddenFields(
  structure: BoardStructure,
  rules: ConditionRule[],
  values: StoredFields,
): Set<string> {
  const hide = new Set<string>();
  const show = new Set<string>();
  for (const rule of rules) {
    if (!rule.enabled) continue;
    const result = rule.criteria.some((g) => g.expressions.every((e) => holds(structure, values, e)));
    const applied = result ? rule.actionsWhenTrue : rule.actionsWhenFalse;
    const other = result ? rule.actionsWhenFalse : rule.actionsWhenTrue;
    for (const action of applied)
      for (const slug of action.targetFieldSlugs) (action.type === 'hide' ? hide : show).add(slug);
    for (const action of other)
      if (action.type === 'show') for (const slug of action.targetFieldSlugs) hide.add(slug);
  }
  const out = new Set<string>();
  for (const slug of hide) {
    const field = structure.fieldsBySlug.get(slug);
    if (field && !show.has(slug)) out.add(field.documentId);
  }
  return out;
}
