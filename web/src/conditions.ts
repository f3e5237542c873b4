import type { Field } from './api';

/** Field conditions (show/hide), the service's rule (src/modules/cards/conditions.ts) over slug-keyed values. */
export interface Condition {
  enabled: boolean;
  criteria: { expressions: { fieldSlug: string; operator: string; value?: unknown }[] }[];
  actionsWhenTrue: { type: 'show' | 'hide'; targetFieldSlugs: string[] }[];
  actionsWhenFalse: { type: 'show' | 'hide'; targetFieldSlugs: string[] }[];
}

export function isEmptyValue(type: string, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (type === 'checkbox') return value !== true;
  return false;
}

const num = (v: unknown) => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};
const equals = (a: unknown, e: unknown): boolean =>
  Array.isArray(a) ? a.some((x) => equals(x, e)) : a == null ? e == null : String(a) === String(e);

function holds(
  fields: Map<string, Field>,
  values: Record<string, unknown>,
  e: Condition['criteria'][0]['expressions'][0],
) {
  const field = fields.get(e.fieldSlug);
  const actual = values[e.fieldSlug];
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
      const a = num(actual);
      const b = num(e.value);
      let c: number | undefined;
      if (a !== undefined && b !== undefined) c = a - b;
      else if (typeof actual === 'string' && typeof e.value === 'string')
        c = actual < e.value ? -1 : actual > e.value ? 1 : 0;
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

/** Slugs of the fields hidden for these values. */
export function hiddenSlugs(
  fieldList: Field[],
  rules: Condition[],
  values: Record<string, unknown>,
): Set<string> {
  const fields = new Map(fieldList.map((f) => [f.slug, f]));
  const hide = new Set<string>();
  const show = new Set<string>();
  for (const rule of rules) {
    if (!rule.enabled) continue;
    const result = rule.criteria.some((g) => g.expressions.every((e) => holds(fields, values, e)));
    const applied = result ? rule.actionsWhenTrue : rule.actionsWhenFalse;
    const other = result ? rule.actionsWhenFalse : rule.actionsWhenTrue;
    for (const a of applied) for (const s of a.targetFieldSlugs) (a.type === 'hide' ? hide : show).add(s);
    for (const a of other) if (a.type === 'show') for (const s of a.targetFieldSlugs) hide.add(s);
  }
  return new Set([...hide].filter((s) => !show.has(s)));
}
