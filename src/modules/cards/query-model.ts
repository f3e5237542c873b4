import { type SQL, sql } from 'drizzle-orm';
import { AppError, validationError } from '../../platform/http/errors.js';
import { compileOp, type FieldDef, type FieldType, type QueryModel } from '../../platform/http/list-query.js';
import { hasOwnKey } from '../../platform/http/own.js';
import { normalizePhone } from '../../platform/phones.js';
import { membershipModel } from '../../platform/tenancy/memberships.js';
import type { BoardStructure, FieldStructure } from '../boards/index.js';
import { contactModel } from '../contacts/index.js';
import { BOOLEAN_TYPES, NUMERIC_TYPES } from './field-values.js';
import { CREATION_SOURCES, DUE_DATE_SOURCES } from './table.js';

/**
 * What the card list may filter, sort and populate (spec: card list query parameters). Built per board:
 * the dynamic-field filters (`filters[fieldData]…`, `filters[fields][<slug>]…`) resolve slugs against the
 * board's field definitions, and card values live in `cards.fields` keyed by field documentId.
 */

const phaseModel: QueryModel = {
  table: 'phases',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    slug: { column: 'slug', type: 'string' },
    order: { column: 'order', type: 'number' },
  },
};

const tagModel: QueryModel = {
  table: 'tags',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    slug: { column: 'slug', type: 'string' },
  },
};

export const CARD_POPULATE = ['fieldData', 'assignees', 'tags', 'contact', 'currentPhase'] as const;

export function cardModelFor(structure: BoardStructure): QueryModel {
  return {
    table: 'cards',
    fields: {
      documentId: { column: 'document_id', type: 'string' },
      title: { column: 'title', type: 'string' },
      description: { column: 'description', type: 'string' },
      value: { column: 'value', type: 'number' },
      dueDate: { column: 'due_date', type: 'datetime' },
      dueDateSource: { column: 'due_date_source', type: 'string', values: DUE_DATE_SOURCES },
      creationSource: { column: 'creation_source', type: 'string', values: CREATION_SOURCES },
      currentPhaseEnteredAt: { column: 'current_phase_entered_at', type: 'datetime' },
      createdAt: { column: 'created_at', type: 'datetime' },
      updatedAt: { column: 'updated_at', type: 'datetime' },
    },
    relations: {
      currentPhase: {
        model: () => phaseModel,
        on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."current_phase_id"`),
        foreignKey: 'current_phase_id',
      },
      assignees: {
        model: () => membershipModel,
        on: (outer, inner) =>
          sql.raw(
            `exists (select 1 from card_assignees ca where ca.organization_id = "${outer}"."organization_id" and ca.card_id = "${outer}"."id" and ca.membership_id = "${inner}"."id")`,
          ),
      },
      tags: {
        model: () => tagModel,
        on: (outer, inner) =>
          sql.raw(
            `exists (select 1 from card_tags ct where ct.organization_id = "${outer}"."organization_id" and ct.card_id = "${outer}"."id" and ct.tag_id = "${inner}"."id")`,
          ),
      },
      contact: {
        model: () => contactModel,
        on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."contact_id"`),
        foreignKey: 'contact_id',
      },
    },
    custom: {
      fieldData: (node, alias, path) => compileFieldData(structure, node, alias, path),
      fields: (node, alias, path) => compileFieldsMap(structure, node, alias, path),
    },
    privateFields: ['id', 'organizationId', 'boardId', 'currentPhaseId', 'contactId', 'tracking'],
    unknownFieldHint: (name) =>
      structure.fieldsBySlug.has(name)
        ? `${name} is a field of this board: filter it as filters[fields][${name}][$eq]=… (or filters[fieldData][field]=${name}&filters[fieldData][val]=…)`
        : undefined,
    populate: CARD_POPULATE,
    // fieldData (the raw form) only on request; the rest is the spec's card shape.
    defaultPopulate: CARD_POPULATE.filter((p) => p !== 'fieldData'),
  };
}

function badFilter(path: string[], message: string): never {
  throw validationError(`Invalid filter filters[${path.join('][')}]: ${message}`, [
    { path: ['filters', ...path], message, name: 'ValidationError' },
  ]);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function listOf(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isObject(v) && Object.keys(v).every((k) => /^\d+$/.test(k))) return Object.values(v);
  return [v];
}

/** Which fields `filters[fieldData][field]` names: by slug or documentId, with a value, $eq or $in. */
function pickFields(structure: BoardStructure, node: unknown, path: string[]): FieldStructure[] {
  if (!isObject(node)) badFilter(path, 'expected [slug] or [documentId]');
  let candidates = [...structure.fieldsBySlug.values()];
  for (const [key, cond] of Object.entries(node)) {
    if (key !== 'slug' && key !== 'documentId')
      badFilter([...path, key], 'filter the field by slug or documentId');
    let wanted: unknown[];
    if (
      isObject(cond) &&
      Object.keys(cond).length === 1 &&
      (hasOwnKey(cond, '$eq') || hasOwnKey(cond, '$in'))
    ) {
      wanted = hasOwnKey(cond, '$eq') ? [cond.$eq] : listOf(cond.$in);
    } else if (!isObject(cond)) {
      wanted = listOf(cond);
    } else {
      badFilter([...path, key], 'a field is chosen with a value, $eq or $in');
    }
    if (wanted.some((w) => w !== null && typeof w === 'object'))
      badFilter([...path, key], 'a field is chosen by its slug or documentId, not an object');
    const names = wanted.map(String);
    candidates = candidates.filter((f) => names.includes(key === 'slug' ? f.slug : f.documentId));
  }
  return candidates;
}

const fieldsColumn = (alias: string) => sql.raw(`"${alias}"."fields"`);

/** A SQL expression of one field's stored value, typed for comparison. */
function fieldDef(field: FieldStructure): FieldDef {
  const key = field.documentId;
  if (NUMERIC_TYPES.includes(field.type)) {
    return {
      type: 'number',
      column: (alias) =>
        sql`(case when jsonb_typeof(${fieldsColumn(alias)} -> ${key}::text) = 'number' then (${fieldsColumn(alias)} ->> ${key}::text)::numeric end)`,
    };
  }
  if (BOOLEAN_TYPES.includes(field.type)) {
    return {
      type: 'boolean',
      column: (alias) =>
        sql`(case when jsonb_typeof(${fieldsColumn(alias)} -> ${key}::text) = 'boolean' then (${fieldsColumn(alias)} ->> ${key}::text)::boolean end)`,
    };
  }
  const type: FieldType = field.type === 'date' ? 'date' : field.type === 'datetime' ? 'datetime' : 'string';
  return { type, column: (alias) => sql`(${fieldsColumn(alias)} ->> ${key}::text)` };
}

/** `fields @> {...}` equality: answered by the GIN index. List-valued types match one element. */
function containsValue(field: FieldStructure, alias: string, raw: unknown, path: string[]): SQL {
  const col = fieldsColumn(alias);
  const doc = (v: unknown) => sql`${col} @> ${JSON.stringify({ [field.documentId]: v })}::jsonb`;
  if (raw === null || isObject(raw)) badFilter(path, 'expected a value');
  const s = String(raw);
  if (NUMERIC_TYPES.includes(field.type)) {
    const n = Number(s);
    if (s.trim() === '' || !Number.isFinite(n)) badFilter(path, 'expected a number');
    return doc(n);
  }
  if (BOOLEAN_TYPES.includes(field.type)) {
    if (s !== 'true' && s !== 'false') badFilter(path, 'expected true or false');
    return doc(s === 'true');
  }
  if (field.type === 'multiselect') return doc([s]);
  if (field.type === 'file') return doc([{ documentId: s }]);
  if (field.type === 'card_link') return sql`(${doc(s)} or ${doc([s])})`;
  if (field.type === 'phone') {
    // Phones are stored in E.164 (src/platform/phones.ts): `(11) 8765-4321` finds +551187654321; values
    // written before the rule (kept as sent) still match as written.
    const phone = normalizePhone(s);
    if (phone.ok && phone.phone !== s) return sql`(${doc(phone.phone)} or ${doc(s)})`;
  }
  return doc(s);
}

/** One value condition (`val` of fieldData, or a `fields[<slug>]` entry) against one field. */
function compileValue(field: FieldStructure, cond: unknown, alias: string, path: string[]): SQL {
  if (!isObject(cond)) {
    if (Array.isArray(cond)) return orJoin(cond.map((v) => containsValue(field, alias, v, path)));
    return containsValue(field, alias, cond, path);
  }
  const parts = Object.entries(cond).map(([op, v]) => {
    const here = [...path, op];
    if (op === '$eq' && v !== null && v !== 'null') return containsValue(field, alias, v, here);
    if (op === '$in') return orJoin(listOf(v).map((x) => containsValue(field, alias, x, here)));
    const def = fieldDef(field);
    const col = typeof def.column === 'string' ? sql.raw(def.column) : def.column(alias);
    return compileOp(def, col, op, v, here);
  });
  return andJoin(parts);
}

const andJoin = (parts: SQL[]) => (parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` and `)})`);
const orJoin = (parts: SQL[]) =>
  parts.length === 0 ? sql`false` : parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` or `)})`;

/**
 * `filters[fieldData][field][slug]=email&filters[fieldData][value][val][$containsi]=x`: some filled field
 * (of the chosen ones, or any) matches. Without a value condition: the chosen field is filled.
 */
function compileFieldData(structure: BoardStructure, node: unknown, alias: string, path: string[]): SQL {
  if (!isObject(node)) badFilter(path, 'expected [field] and/or [value][val]');
  for (const key of Object.keys(node)) {
    if (key !== 'field' && key !== 'value')
      badFilter([...path, key], 'fieldData is filtered by [field] and [value][val]');
  }
  const fields = (
    node.field === undefined
      ? [...structure.fieldsBySlug.values()]
      : pickFields(structure, node.field, [...path, 'field'])
  ).filter((f) => f.type !== 'statement');
  if (node.value === undefined) {
    return orJoin(fields.map((f) => sql`${fieldsColumn(alias)} ? ${f.documentId}::text`));
  }
  if (!isObject(node.value) || Object.keys(node.value).some((k) => k !== 'val'))
    badFilter([...path, 'value'], 'the value is filtered through [value][val]');
  const cond = node.value.val;
  const here = [...path, 'value', 'val'];
  if (fields.length === 1) return compileValue(fields[0], cond, alias, here);
  // Across several fields, a value that does not fit a field's type simply cannot match that field.
  return orJoin(
    fields.flatMap((f) => {
      try {
        return [compileValue(f, cond, alias, here)];
      } catch (err) {
        if (err instanceof AppError) return [];
        throw err;
      }
    }),
  );
}

/** `filters[fields][<slug>][$op]=…`: the read shape's names, one field per key. */
function compileFieldsMap(structure: BoardStructure, node: unknown, alias: string, path: string[]): SQL {
  if (!isObject(node)) badFilter(path, 'expected [<field slug>][$operator]');
  const parts = Object.entries(node).map(([slug, cond]) => {
    const field = structure.fieldsBySlug.get(slug);
    if (!field || field.type === 'statement') badFilter([...path, slug], `unknown field ${slug}`);
    return compileValue(field, cond, alias, [...path, slug]);
  });
  if (parts.length === 0) badFilter(path, 'expected at least one field');
  return andJoin(parts);
}

/** The one phase a filter pins (`filters[currentPhase][documentId|slug]` with one value), for SLA stats. */
export function pinnedPhase(structure: BoardStructure, filters: Record<string, unknown> | undefined) {
  const node = filters?.currentPhase;
  if (!isObject(node)) return undefined;
  const keys = Object.keys(node);
  if (keys.length !== 1 || (keys[0] !== 'documentId' && keys[0] !== 'slug')) return undefined;
  const cond = node[keys[0]];
  let values: unknown[];
  if (!isObject(cond)) values = listOf(cond);
  else if (Object.keys(cond).length === 1 && (hasOwnKey(cond, '$eq') || hasOwnKey(cond, '$in')))
    values = hasOwnKey(cond, '$eq') ? [cond.$eq] : listOf(cond.$in);
  else return undefined;
  if (values.length !== 1) return undefined;
  return structure.phases.find((p) => (keys[0] === 'slug' ? p.slug : p.documentId) === String(values[0]));
}

/**
 * Whether the card counts (counts.ts) can answer a list's total and stats: no filter (the whole board, phase
 * `null`) or only the filter that pins `pinned` (pinnedPhase). Anything else is counted over the cards themselves.
 */
export function countsScope(
  filters: Record<string, unknown> | undefined,
  pinned: { id: number } | undefined,
): { phaseId: number | null } | undefined {
  const keys = filters ? Object.keys(filters) : [];
  if (keys.length === 0) return { phaseId: null };
  return keys.length === 1 && keys[0] === 'currentPhase' && pinned ? { phaseId: pinned.id } : undefined;
}
