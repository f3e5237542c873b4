import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api';
import { wordsOf } from '../../lib/area-words';
import { personName } from '../../lib/people';
import { w } from '../../lib/words';
import * as catalogue from '../../words/segments';

/** The segments area's words (web/src/words/segments.ts). */
export const gw = wordsOf(catalogue);
export type SegmentKey = keyof typeof catalogue.ptBR;

export type Logic = 'AND' | 'OR';
export const STRING_FIELDS = [
  'name',
  'email',
  'phone',
  'city',
  'state',
  'country',
  'address',
  'postal_code',
  'cpf',
  'cnpj',
  'contact_type',
] as const;
export const OPERATORS = ['contains', 'eq', 'startsWith', 'endsWith', 'empty', 'notEmpty'] as const;
export const RELATION_OPERATORS = ['eq', 'empty', 'notEmpty'] as const;
export const takesValue = (op: string) => op !== 'empty' && op !== 'notEmpty';

/** A condition as the API stores it (SegmentCondition). */
export interface ApiCondition {
  kind?: 'field' | 'relation' | 'custom';
  field?: string;
  op?: string;
  value?: string | number | boolean | null;
  slug?: string;
  documentId?: string;
}
export interface Segment {
  documentId: string;
  name: string;
  description: string | null;
  active: boolean;
  filters: { logic: Logic; conditions: ApiCondition[] };
  requiredSegments: string[];
  excludedSegments: string[];
  contactCount: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * A condition as the editor holds it: `field` is a contact field, `owner`, `team` or `custom:<key>`; `value` the
 * text typed or the documentId picked.
 */
export interface Rule {
  field: string;
  op: string;
  value: string;
}

export interface FilterOptions {
  owners: { documentId: string; user: { username: string; name?: string | null } }[];
  teams: { documentId: string; name: string }[];
  customFields: { keys: { slug: string; contacts: number }[] };
  segments: { documentId: string; name: string }[];
}

/** What conditions can name (people, teams, custom keys), one cached read for the list and the editor. */
export function useFilterOptions() {
  return useQuery({
    queryKey: ['segment-filter-options'],
    staleTime: 60_000,
    queryFn: async () =>
      (await unwrap(client.GET('/api/segments/filter-options'))) as unknown as FilterOptions,
  });
}

const isRelation = (f: string) => f === 'owner' || f === 'team';

export function toRule(c: ApiCondition): Rule {
  if (c.kind === 'relation')
    return { field: c.field ?? 'owner', op: c.op ?? 'eq', value: c.documentId ?? '' };
  if (c.kind === 'custom')
    return { field: `custom:${c.slug ?? ''}`, op: c.op ?? 'eq', value: String(c.value ?? '') };
  return { field: c.field ?? 'name', op: c.op ?? 'contains', value: c.value == null ? '' : String(c.value) };
}

/** A rule the API can take; null while it is incomplete (no value for an operator that needs one). */
export function toCondition(r: Rule): ApiCondition | null {
  const needs = takesValue(r.op);
  if (needs && r.value.trim() === '') return null;
  if (isRelation(r.field)) {
    return r.op === 'eq'
      ? { kind: 'relation', field: r.field, op: 'eq', documentId: r.value }
      : { kind: 'relation', field: r.field, op: r.op };
  }
  if (r.field.startsWith('custom:')) {
    const slug = r.field.slice(7);
    return needs
      ? { kind: 'custom', slug, op: r.op, value: r.value.trim() }
      : { kind: 'custom', slug, op: r.op };
  }
  return needs ? { field: r.field, op: r.op, value: r.value.trim() } : { field: r.field, op: r.op };
}

export const operatorsOf = (field: string): readonly string[] =>
  isRelation(field) ? RELATION_OPERATORS : OPERATORS;

/** A field of a rule as a word. */
export function fieldWord(field: string): string {
  if (field.startsWith('custom:')) return gw('f_custom', { key: field.slice(7) });
  const key = `f_${field}` as SegmentKey;
  return key in catalogue.ptBR ? gw(key) : field;
}

/** An operator as a word (a relation's `eq` reads "é"). */
export function opWord(field: string, op: string): string {
  if (isRelation(field) && op === 'eq') return gw('rel_eq');
  const key = `op_${op}` as SegmentKey;
  return key in catalogue.ptBR ? gw(key) : op;
}

/** A rule's value as a person reads it: people and teams by name, contact types as words. */
export function valueWord(r: Rule, options: FilterOptions | undefined): string {
  if (!takesValue(r.op)) return '';
  if (r.field === 'owner') {
    const m = options?.owners.find((o) => o.documentId === r.value);
    return m ? personName(m) : gw('someone');
  }
  if (r.field === 'team') return options?.teams.find((t) => t.documentId === r.value)?.name ?? '';
  if (r.field === 'contact_type' && (r.value === 'pessoa' || r.value === 'empresa'))
    return gw(`type_${r.value}`);
  return `"${r.value}"`;
}

/** A segment's rules in one sentence: "Cidade é igual a "Recife" e E-mail está preenchido". */
export function rulesSentence(s: Pick<Segment, 'filters'>, options: FilterOptions | undefined): string {
  return s.filters.conditions
    .map(toRule)
    .map((r) => [fieldWord(r.field), opWord(r.field, r.op), valueWord(r, options)].filter(Boolean).join(' '))
    .join(` ${gw(s.filters.logic === 'OR' ? 'join_OR' : 'join_AND')} `);
}

/** The API's "at least 1 character" on a required text said as "obrigatório" (it was left empty). */
export const emptyIsRequired = (message: string) =>
  /(>=\s*1 character|at least 1 character)/i.test(message) ? w('fe_required') : null;
