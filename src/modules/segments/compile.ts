import { type SQL, sql } from 'drizzle-orm';
import { AppError } from '../../platform/http/errors.js';
import { ownEntry } from '../../platform/http/own.js';
import type { SegmentCondition, SegmentFilters } from './schema.js';

/**
 * Segment conditions → one parameterised SQL predicate over the `contacts` row (alias `contacts`, the
 * alias compileListQuery uses, so both combine in one WHERE). Values are always bound parameters; the
 * only identifiers spliced in come from the closed list of string fields below.
 */

export interface SegmentNode {
  id: number;
  documentId: string;
  filters: SegmentFilters;
  /** internal ids, in their saved order */
  required: number[];
  excluded: number[];
}

/** Upper bound of conditions after expanding linked segments: keeps one query's text reasonable. */
export const MAX_EXPANDED_CONDITIONS = 1000;

const FIELD_COLUMNS: Record<string, string> = {
  phone: 'phone',
  email: 'email',
  name: 'name',
  address: 'address',
  city: 'city',
  state: 'state',
  country: 'country',
  postal_code: 'postal_code',
  cpf: 'cpf',
  cnpj: 'cnpj',
  contact_type: 'contact_type',
};

const col = (name: string) => sql.raw(`"contacts"."${name}"`);

/** cpf/cnpj are stored bare and phones as E.164: compare the value in the same form. */
function normaliseValue(c: SegmentCondition): string {
  const text = String(c.value).trim();
  if (c.kind === 'custom' || c.kind === 'relation') return text;
  if (c.field === 'cpf' || c.field === 'cnpj') return text.replace(/\D/g, '');
  if (c.field === 'phone') return text.replace(/[^\d+]/g, '');
  return text;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

function textPredicate(expr: SQL, c: SegmentCondition): SQL {
  switch (c.op) {
    case 'empty':
      return sql`(${expr} is null or btrim(${expr}) = '')`;
    case 'notEmpty':
      return sql`(${expr} is not null and btrim(${expr}) <> '')`;
  }
  const v = normaliseValue(c);
  switch (c.op) {
    case 'eq':
      return sql`lower(${expr}) = lower(${v})`;
    case 'contains':
      return sql`${expr} ilike ${`%${escapeLike(v)}%`}`;
    case 'startsWith':
      return sql`${expr} ilike ${`${escapeLike(v)}%`}`;
    case 'endsWith':
      return sql`${expr} ilike ${`%${escapeLike(v)}`}`;
    default:
      throw new AppError('ValidationError', `Unknown operator ${String(c.op)}`);
  }
}

function relationPredicate(orgId: number, c: SegmentCondition): SQL {
  const [table, column] = c.field === 'owner' ? ['memberships', 'owner_id'] : ['teams', 'team_id'];
  const fk = col(column);
  const rel = sql.raw(`"${table}"`);
  // A contact may still carry the id of a removed membership: it counts as no owner (docs/contacts.md).
  const exists = sql`exists (select 1 from ${rel} r where r.organization_id = ${orgId} and r.id = ${fk})`;
  switch (c.op ?? 'eq') {
    case 'empty':
      return sql`not ${exists}`;
    case 'notEmpty':
      return exists;
    default:
      // Uncorrelated: planned once as an init plan; an unknown documentId matches nobody.
      return sql`${fk} = (select r.id from ${rel} r where r.organization_id = ${orgId} and r.document_id = ${c.documentId})`;
  }
}

export function conditionPredicate(orgId: number, c: SegmentCondition): SQL {
  if (c.kind === 'relation') return relationPredicate(orgId, c);
  if (c.kind === 'custom') return textPredicate(sql`(${col('custom_fields')} ->> ${c.slug})`, c);
  // Own entries only: a stored condition naming `constructor` must not reach Object.prototype.
  const column = ownEntry(FIELD_COLUMNS, c.field ?? '');
  if (!column) throw new AppError('ValidationError', `Unknown segment field ${String(c.field)}`);
  return textPredicate(col(column), c);
}

export function filtersPredicate(orgId: number, filters: SegmentFilters): SQL {
  const parts = filters.conditions.map((c) => conditionPredicate(orgId, c));
  if (parts.length === 1) return parts[0];
  return sql`(${sql.join(parts, filters.logic === 'AND' ? sql` and ` : sql` or `)})`;
}

export interface SegmentRoot {
  filters: SegmentFilters;
  required: number[];
  excluded: number[];
  /** the segment's own id when it is stored: a link back to it is a cycle */
  id?: number;
}

export class SegmentGraphError extends Error {
  constructor(
    readonly reason: 'cycle' | 'too_complex' | 'missing',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The root's predicate with every required segment AND-ed in and every excluded one negated, inlined
 * recursively from `graph` (all segments reachable from the root). Negations are NULL-safe: a contact
 * with no email is outside "email contains x", so it is inside "not (email contains x)".
 */
export function segmentPredicate(orgId: number, root: SegmentRoot, graph: Map<number, SegmentNode>): SQL {
  let expanded = 0;
  const visit = (node: SegmentRoot, stack: number[]): SQL => {
    expanded += node.filters.conditions.length;
    if (expanded > MAX_EXPANDED_CONDITIONS) {
      throw new SegmentGraphError(
        'too_complex',
        `segment expands to more than ${MAX_EXPANDED_CONDITIONS} conditions through its linked segments`,
      );
    }
    const link = (id: number): SQL => {
      if (stack.includes(id)) throw new SegmentGraphError('cycle', 'linked segments form a cycle');
      const next = graph.get(id);
      if (!next) throw new SegmentGraphError('missing', 'a linked segment no longer exists');
      return visit(next, [...stack, id]);
    };
    const parts = [filtersPredicate(orgId, node.filters)];
    for (const id of node.required) parts.push(link(id));
    for (const id of node.excluded) parts.push(sql`not coalesce(${link(id)}, false)`);
    return parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` and `)})`;
  };
  return visit(root, root.id === undefined ? [] : [root.id]);
}
