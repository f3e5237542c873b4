import { type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { fold, foldedPattern } from '../db/search-fold.js';
import { AppError, type FieldError } from './errors.js';
import { didYouMean } from './hints.js';
import { hasOwnKey, ownEntry } from './own.js';

/**
 * The list query language (spec: card list query parameters), one piece for every list route:
 * pagination, sort, populate and Strapi-style `filters[...]`, compiled to parameterised SQL against a
 * QueryModel that names what may be filtered. Anything unknown is a 400, never silently dropped.
 * Over 600 lines by choice: one language whose parts (filters, sort, populate, pages) call each other.
 */

const pageNumber = z.coerce.number({ error: 'must be an integer' }).int('must be an integer');

/**
 * Strapi v5's two pagination forms: by page (`page`, `pageSize`) or by offset (`start`, `limit`). Mixing them
 * is a 400, as in Strapi. `limit` is capped like `pageSize` (Strapi's `limit=-1` "everything" is refused: a
 * tenant's whole table in one response is what the cap exists to prevent).
 */
export const paginationSchema = z
  .strictObject({
    page: pageNumber.min(1, 'page starts at 1').optional(),
    pageSize: pageNumber.min(1, 'pageSize is at least 1').max(100, 'pageSize is at most 100').optional(),
    start: pageNumber.min(0, 'start is at least 0').optional(),
    limit: pageNumber.min(1, 'limit is at least 1').max(100, 'limit is at most 100').optional(),
    withCount: z.enum(['true', 'false']).optional(),
  })
  .superRefine((p, ctx) => {
    if (
      (p.page !== undefined || p.pageSize !== undefined) &&
      (p.start !== undefined || p.limit !== undefined)
    )
      ctx.addIssue({
        code: 'custom',
        path: ['start'],
        message: 'page/pageSize and start/limit cannot be used in the same query',
      });
  })
  .describe(
    '`pagination[page]` (from 1) and `pagination[pageSize]` (1..100, default 25), or the offset form ' +
      '`pagination[start]` (from 0) and `pagination[limit]` (1..100, default 25) — not both; ' +
      '`pagination[withCount]=false` skips the total (meta without total/pageCount)',
  );
export type PaginationInput = z.infer<typeof paginationSchema>;

/** The window a pagination input selects, in whichever form the caller used. */
export interface PageWindow {
  mode: 'page' | 'offset';
  page: number;
  pageSize: number;
  offset: number;
  withCount: boolean;
}

export function pageWindow(p: PaginationInput | undefined): PageWindow {
  const withCount = p?.withCount !== 'false';
  if (p && (p.start !== undefined || p.limit !== undefined)) {
    const offset = p.start ?? 0;
    const limit = p.limit ?? 25;
    return { mode: 'offset', page: Math.floor(offset / limit) + 1, pageSize: limit, offset, withCount };
  }
  const page = p?.page ?? 1;
  const pageSize = p?.pageSize ?? 25;
  return { mode: 'page', page, pageSize, offset: (page - 1) * pageSize, withCount };
}

/** One sort term: `attribute:asc`, or the Strapi object form `{ attribute: 'asc' }`. */
const sortTerm = z.union([z.string(), z.record(z.string(), z.string())]);

export const listQueryShape = {
  pagination: paginationSchema.optional(),
  sort: z
    .union([z.string(), z.array(sortTerm), z.record(z.string(), sortTerm)])
    .optional()
    .describe(
      '`attribute:asc|desc` (direction defaults to asc); several as `sort=a:asc,b:desc` or `sort[0]=…&sort[1]=…`; ' +
        'the Strapi object form `sort[attribute]=asc|desc` (several keys in order, or `sort[0][attribute]=desc`)',
    ),
  populate: z
    .union([z.string(), z.array(z.string()), z.record(z.string(), z.unknown())])
    .optional()
    .describe(
      'relations to include: `populate=*`, `populate=a,b`, `populate[0]=tags` or `populate[tags]=true`; ' +
        'without it, the relations the spec shows (see docs/strapi-compatibility.md)',
    ),
  fields: z
    .union([z.string(), z.array(z.string()), z.record(z.string(), z.string())])
    .optional()
    .describe(
      'attributes to return: `fields[0]=name&fields[1]=email` or `fields=name,email` (documentId always; ' +
        'populated relations still appear)',
    ),
  filters: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'Strapi-style filters: `filters[field][$op]=value`, nested relation paths, `$or`/`$and`/`$not`. ' +
        'Sent in bracket form (deepObject); OpenAPI defines one level (`filters[name]=x`), so a client sends ' +
        'deeper ones with a qs-style serializer (`qs.stringify(query)`)',
    ),
};

/** Query string schema of a plain list route; extend it with the route's own parameters. */
export const listQuerySchema = z.strictObject(listQueryShape);
export type ListQueryInput = z.infer<typeof listQuerySchema>;

export type FieldType = 'string' | 'number' | 'boolean' | 'datetime' | 'date' | 'json';

export interface FieldDef {
  /** Column name in the model's table, or an expression built on the table alias. */
  column: string | ((alias: string) => SQL);
  type: FieldType;
  sortable?: boolean;
  /** Allowed values (enums): others are a 400 instead of an empty result. */
  values?: readonly string[];
}

export interface RelationDef {
  model: () => QueryModel;
  /** Correlates the related row (alias `inner`) with the outer row (alias `outer`). */
  on: (outer: string, inner: string) => SQL;
  /** For to-one relations: the outer row's foreign key, so `$null` works on the relation. */
  foreignKey?: string;
}

export interface QueryModel {
  table: string;
  /** A table without `organization_id` (users): relations to it skip the tenant correlation. */
  global?: boolean;
  fields: Record<string, FieldDef>;
  relations?: Record<string, RelationDef>;
  /** Names that exist but must never be filtered or sorted on (hashes, secrets): a 400. */
  privateFields?: string[];
  /** Fields with their own compiler (e.g. dynamic card fields). */
  custom?: Record<string, (node: unknown, alias: string, path: string[]) => SQL>;
  /** Relations `populate` may name; each is a top-level key of the representation. */
  populate?: readonly string[];
  /**
   * What is populated when the request names nothing: the representation the spec shows. Defaults to every
   * name in `populate` (they were always returned before `populate` narrowed them).
   */
  defaultPopulate?: readonly string[];
  /** Representation keys `fields` may name besides `fields` (e.g. customFields), never private ones. */
  selectable?: readonly string[];
  /** How to write a filter on a name the model does not know, when the model can tell (dynamic fields). */
  unknownFieldHint?: (name: string) => string | undefined;
}

/** `unknown field x` plus how to write it: the model's own hint, else the closest public name. */
function unknownField(model: QueryModel, name: string): string {
  const known = [
    ...Object.keys(model.fields),
    ...Object.keys(model.relations ?? {}),
    ...Object.keys(model.custom ?? {}),
  ].filter((k) => !model.privateFields?.includes(k));
  const hint = model.unknownFieldHint?.(name) ?? didYouMean(name, known);
  return hint ? `unknown field ${name}: ${hint}` : `unknown field ${name}`;
}

export interface CompiledList {
  page: number;
  /** Rows to return: pageSize, or limit in the offset form. */
  pageSize: number;
  offset: number;
  where: SQL;
  orderBy: SQL;
  populate: Set<string>;
  /** Pagination form the caller used: decides the meta's shape. */
  mode?: 'page' | 'offset';
  /** `pagination[withCount]=false`: the total is neither computed nor returned. */
  withCount?: boolean;
  /** `fields` selection: the attributes to keep (undefined = all). */
  fields?: string[];
  /** The model's relation names: those not in `populate` are dropped from the representation. */
  relations?: readonly string[];
}

const comparison = ['$eq', '$eqi', '$ne', '$nei', '$lt', '$lte', '$gt', '$gte'] as const;
const textOps = [
  '$contains',
  '$notContains',
  '$containsi',
  '$notContainsi',
  '$startsWith',
  '$startsWithi',
  '$endsWith',
  '$endsWithi',
] as const;
const setOps = ['$in', '$notIn', '$between'] as const;
const nullOps = ['$null', '$notNull'] as const;
export const FILTER_OPERATORS = [...comparison, ...textOps, ...setOps, ...nullOps, '$or', '$and', '$not'];

class FilterError extends AppError {}

function bad(path: string[], message: string): never {
  const errors: FieldError[] = [{ path: ['filters', ...path], message, name: 'ValidationError' }];
  throw new FilterError('ValidationError', `Invalid filter filters[${path.join('][')}]: ${message}`, {
    errors,
  });
}

export function compileListQuery(
  model: QueryModel,
  query: ListQueryInput,
  defaultSort = 'createdAt:desc',
): CompiledList {
  const w = pageWindow(query.pagination);
  return {
    page: w.page,
    pageSize: w.pageSize,
    offset: w.offset,
    mode: w.mode,
    withCount: w.withCount,
    where: compileFilters(model, query.filters ?? {}),
    orderBy: compileSort(model, query.sort, defaultSort),
    populate: compilePopulate(model, query.populate),
    fields: compileFields(model, query.fields),
    relations: model.populate,
  };
}

/**
 * `fields` (Strapi: select only some attributes). Names come from the model's fields (what the list filters
 * and sorts on, which are the representation's own attribute names) and `selectable`; private or unknown
 * names are a 400, never silently ignored. `*` means all.
 */
export function compileFields(model: QueryModel, raw: ListQueryInput['fields']): string[] | undefined {
  if (raw === undefined) return undefined;
  let names: unknown[];
  if (typeof raw === 'string') names = raw.split(',').map((s) => s.trim());
  else if (Array.isArray(raw)) names = raw;
  else names = asList(raw) ?? [raw];
  if (names.includes('*')) return undefined;
  names.forEach((n, i) => {
    const name = String(n);
    const known =
      typeof n === 'string' &&
      (ownEntry(model.fields, name) !== undefined || model.selectable?.includes(name) === true) &&
      !model.privateFields?.includes(name);
    if (!known)
      throw new AppError('ValidationError', `Invalid fields: cannot select ${name}`, {
        errors: [
          { path: ['fields', i], message: `unknown or private attribute ${name}`, name: 'ValidationError' },
        ],
      });
  });
  return names as string[];
}

export function compileFilters(
  model: QueryModel,
  filters: Record<string, unknown>,
  alias = model.table,
): SQL {
  return compileFilterTree(model, filters, alias).where;
}

export interface CompiledFilter {
  where: SQL;
  /**
   * How many conditions the filter holds (operators on fields, relation tests, custom-field filters). Zero
   * means it restricts nothing, whatever its shape (`{}`, `{ $and: [{}] }`, `{ name: {} }`): a mass operation
   * then asks for an explicit `all: true`.
   */
  conditions: number;
}

export function compileFilterTree(
  model: QueryModel,
  filters: Record<string, unknown>,
  alias = model.table,
): CompiledFilter {
  const counter = { conditions: 0 };
  const where = compileNode(model, filters, alias, [], 0, counter);
  return { where, conditions: counter.conditions };
}

interface Counter {
  conditions: number;
}

function asList(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.every((k) => /^\d+$/.test(k)))
      return keys.sort((a, b) => Number(a) - Number(b)).map((k) => (v as any)[k]);
  }
  return undefined;
}

function and(parts: SQL[]): SQL {
  if (parts.length === 0) return sql`true`;
  if (parts.length === 1) return parts[0];
  return sql`(${sql.join(parts, sql` and `)})`;
}

function or(parts: SQL[]): SQL {
  if (parts.length === 0) return sql`false`;
  if (parts.length === 1) return parts[0];
  return sql`(${sql.join(parts, sql` or `)})`;
}

function compileNode(
  model: QueryModel,
  node: unknown,
  alias: string,
  path: string[],
  depth: number,
  counter: Counter,
): SQL {
  if (depth > 6) bad(path, 'filters are nested too deeply');
  if (!node || typeof node !== 'object' || Array.isArray(node)) bad(path, 'expected an object of fields');
  const parts: SQL[] = [];
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    const here = [...path, key];
    if (key === '$or' || key === '$and') {
      const list = asList(value);
      if (!list || list.length === 0) bad(here, `${key} takes a non-empty list`);
      const subs = list.map((item, i) =>
        compileNode(model, item, alias, [...here, String(i)], depth + 1, counter),
      );
      parts.push(key === '$or' ? or(subs) : and(subs));
      continue;
    }
    if (key === '$not') {
      parts.push(sql`not ${compileNode(model, value, alias, here, depth + 1, counter)}`);
      continue;
    }
    if (key.startsWith('$')) bad(here, `operator ${key} needs a field before it`);
    if (model.privateFields?.includes(key)) bad(here, `${key} cannot be filtered`);
    // Own entries only: `constructor`, `toString`… are names of Object.prototype, not of the model.
    const custom = ownEntry(model.custom, key);
    const field = ownEntry(model.fields, key);
    const relation = ownEntry(model.relations, key);
    if (custom) {
      counter.conditions++;
      parts.push(custom(value, alias, here));
    } else if (field) {
      parts.push(compileField(field, value, alias, here, counter));
    } else if (relation) {
      counter.conditions++;
      parts.push(compileRelation(relation, value, alias, here, depth, counter));
    } else {
      bad(here, unknownField(model, key));
    }
  }
  return and(parts);
}

function compileRelation(
  rel: RelationDef,
  value: unknown,
  outer: string,
  path: string[],
  depth: number,
  counter: Counter,
): SQL {
  const target = rel.model();
  const inner = `${target.table}_r${depth + 1}`;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    const isNull = hasOwnKey(v, '$null');
    if (rel.foreignKey && (isNull || hasOwnKey(v, '$notNull')) && Object.keys(v).length === 1) {
      const wantNull = isNull ? parseBool(v.$null, path) : !parseBool(v.$notNull, path);
      const fk = sql.raw(`"${outer}"."${rel.foreignKey}"`);
      return wantNull ? sql`${fk} is null` : sql`${fk} is not null`;
    }
  } else {
    bad(path, 'a relation is filtered through its fields, e.g. [documentId][$eq]');
  }
  const cond = compileNode(target, value, inner, path, depth + 1, counter);
  const tenant = target.global
    ? sql`true`
    : sql.raw(`"${inner}"."organization_id" = "${outer}"."organization_id"`);
  return sql`exists (select 1 from ${sql.raw(`"${target.table}" "${inner}"`)} where ${tenant} and ${rel.on(outer, inner)} and ${cond})`;
}

export function columnOf(def: FieldDef, alias: string): SQL {
  return typeof def.column === 'string' ? sql.raw(`"${alias}"."${def.column}"`) : def.column(alias);
}

function compileField(def: FieldDef, value: unknown, alias: string, path: string[], counter: Counter): SQL {
  const col = columnOf(def, alias);
  // filters[title]=x is shorthand for $eq
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    counter.conditions++;
    if (Array.isArray(value)) return compileOp(def, col, '$in', value, path);
    return compileOp(def, col, '$eq', value, path);
  }
  const parts = Object.entries(value as Record<string, unknown>).map(([op, v]) => {
    if (op === '$or' || op === '$and') {
      const list = asList(v);
      if (!list) bad([...path, op], `${op} takes a list`);
      const subs = list.map((item, i) => compileField(def, item, alias, [...path, op, String(i)], counter));
      return op === '$or' ? or(subs) : and(subs);
    }
    if (op === '$not') return sql`not ${compileField(def, v, alias, [...path, op], counter)}`;
    counter.conditions++;
    return compileOp(def, col, op, v, [...path, op]);
  });
  return and(parts);
}

export function compileOp(def: FieldDef, col: SQL, op: string, raw: unknown, path: string[]): SQL {
  switch (op) {
    case '$null':
      return parseBool(raw, path) ? sql`${col} is null` : sql`${col} is not null`;
    case '$notNull':
      return parseBool(raw, path) ? sql`${col} is not null` : sql`${col} is null`;
    case '$in':
    case '$notIn': {
      const list = asList(raw) ?? [raw];
      if (list.length === 0) return op === '$in' ? sql`false` : sql`true`;
      if (list.length > 500) bad(path, 'at most 500 values');
      const vals = list.map((v) => coerce(def, v, path));
      const inList = sql`${col} in (${sql.join(
        vals.map((v) => sql`${v}`),
        sql`, `,
      )})`;
      return op === '$in' ? inList : sql`(${col} is null or not ${inList})`;
    }
    case '$between': {
      const list = asList(raw);
      if (list?.length !== 2) bad(path, '$between takes two values');
      return sql`${col} between ${coerce(def, list[0], path)} and ${coerce(def, list[1], path)}`;
    }
  }
  if ((textOps as readonly string[]).includes(op)) {
    if (def.type !== 'string' && def.type !== 'json') bad(path, `${op} applies to text fields only`);
    if (typeof raw !== 'string') bad(path, `${op} takes a string`);
    const insensitive = op.endsWith('i');
    const text = sql`${col}::text`;
    // The insensitive forms are accent-blind too ("vitoria" finds "Vitória"): both sides folded by crm_fold,
    // which the trigram indexes of the searchable columns are built over (platform/db/search-fold.ts). The
    // sensitive forms stay exact: the positive ones also state the folded condition (implied by the exact one,
    // crm_fold mapping character by character), so that same index finds their rows and the exact LIKE rechecks
    // them; one trigram index per column serves both (docs/performance.md "Imports of a million rows").
    const folded = sql`${fold(text)} like ${foldedPattern(op, raw)}`;
    if (insensitive) return op.startsWith('$not') ? sql`(${col} is null or not ${folded})` : folded;
    const exact = sql`${text} like ${likePattern(op, raw)}`;
    return op.startsWith('$not') ? sql`(${col} is null or not ${exact})` : sql`(${folded} and ${exact})`;
  }
  if (!(comparison as readonly string[]).includes(op)) bad(path, `unknown operator ${op}`);
  if (raw === null || raw === 'null') {
    if (op === '$eq') return sql`${col} is null`;
    if (op === '$ne') return sql`${col} is not null`;
  }
  if (op === '$eqi' || op === '$nei') {
    if (typeof raw !== 'string') bad(path, `${op} takes a string`);
    const cmp = sql`lower(${col}::text) = lower(${raw})`;
    return op === '$eqi' ? cmp : sql`not (${cmp})`;
  }
  const v = coerce(def, raw, path);
  if (def.values && (op === '$lt' || op === '$gt' || op === '$lte' || op === '$gte'))
    bad(path, `${op} does not apply to this field`);
  switch (op) {
    case '$eq':
      return sql`${col} = ${v}`;
    case '$ne':
      return sql`${col} is distinct from ${v}`;
    case '$lt':
      return sql`${col} < ${v}`;
    case '$lte':
      return sql`${col} <= ${v}`;
    case '$gt':
      return sql`${col} > ${v}`;
    default:
      return sql`${col} >= ${v}`;
  }
}

/** The LIKE pattern of a text operator's value: LIKE's own characters escaped, `%` where the operator allows more. */
export function likePattern(op: string, raw: string): string {
  const escaped = raw.replace(/[\\%_]/g, (c) => `\\${c}`);
  if (op.startsWith('$contains') || op.startsWith('$notContains')) return `%${escaped}%`;
  return op.startsWith('$startsWith') ? `${escaped}%` : `%${escaped}`;
}

/**
 * The text of `filters[<field>][$containsi]` when that is all the filter says of `field` (one string, no other
 * operator beside it), else undefined. The case a narrow search table answers (docs/performance.md, fifth pass);
 * the caller checks that the filter has no other condition it cannot answer.
 */
export function soleContainsi(
  filters: Record<string, unknown> | undefined,
  field: string,
): string | undefined {
  const node = filters ? ownEntry(filters, field) : undefined;
  if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const keys = Object.keys(node);
  const value = (node as Record<string, unknown>).$containsi;
  return keys.length === 1 && keys[0] === '$containsi' && typeof value === 'string' ? value : undefined;
}

function parseBool(raw: unknown, path: string[]): boolean {
  if (raw === true || raw === 'true' || raw === '1') return true;
  if (raw === false || raw === 'false' || raw === '0') return false;
  bad(path, 'expected true or false');
}

function coerce(def: FieldDef, raw: unknown, path: string[]): unknown {
  if (raw !== null && typeof raw === 'object') bad(path, 'expected a value, not an object');
  switch (def.type) {
    case 'number': {
      const n = typeof raw === 'number' ? raw : Number(raw);
      if (raw === '' || !Number.isFinite(n)) bad(path, 'expected a number');
      return n;
    }
    case 'boolean':
      return parseBool(raw, path);
    case 'datetime':
    case 'date': {
      const s = String(raw);
      const d = new Date(s);
      if (!/^\d{4}-\d{2}-\d{2}/.test(s) || Number.isNaN(d.getTime())) bad(path, 'expected an ISO 8601 date');
      return def.type === 'date' ? s.slice(0, 10) : d.toISOString();
    }
    default: {
      const s = String(raw);
      if (def.values && !def.values.includes(s)) bad(path, `expected one of ${def.values.join(', ')}`);
      return s;
    }
  }
}

interface SortTerm {
  name: string;
  dir: string;
  path: (string | number)[];
}

/** `a:asc`, `a:asc,b:desc`, `['a:asc', { b: 'desc' }]`, `{ a: 'asc', b: 'desc' }` → terms in order. */
function sortTerms(raw: unknown, defaultSort: string): SortTerm[] {
  const fromString = (entry: string, path: (string | number)[]): SortTerm => {
    const [name, dir = 'asc', ...rest] = entry.trim().split(':');
    if (rest.length) throwSort(path, `sort direction of ${name} must be asc or desc`);
    return { name, dir, path };
  };
  const fromObject = (entry: object, path: (string | number)[]): SortTerm[] =>
    Object.entries(entry).map(([name, dir]) => {
      if (typeof dir !== 'string')
        throwSort([...path, name], `sort direction of ${name} must be asc or desc`);
      return { name, dir: dir.trim(), path: [...path, name] };
    });
  const fromTerm = (entry: unknown, path: (string | number)[]): SortTerm[] => {
    if (typeof entry === 'string') return [fromString(entry, path)];
    if (entry && typeof entry === 'object' && !Array.isArray(entry)) return fromObject(entry, path);
    throwSort(path, 'expected attribute:asc or attribute:desc');
  };
  if (raw === undefined) return [fromString(defaultSort, ['sort'])];
  if (typeof raw === 'string') return raw.split(',').map((entry, i) => fromString(entry, ['sort', i]));
  // sort[0]=…&sort[1]=… (an array, or an object of indexes when qs keeps one) or the object form sort[a]=asc.
  const list = asList(raw);
  if (list) return list.flatMap((entry, i) => fromTerm(entry, ['sort', i]));
  return fromTerm(raw, ['sort']);
}

export function compileSort(model: QueryModel, raw: ListQueryInput['sort'], defaultSort: string): SQL {
  const terms = sortTerms(raw, defaultSort);
  if (terms.length === 0) throwSort(['sort'], 'expected at least one attribute');
  const alias = model.table;
  const parts: SQL[] = [];
  for (const { name, dir: dirRaw, path } of terms) {
    const dir = dirRaw.toLowerCase();
    if (dir !== 'asc' && dir !== 'desc') throwSort(path, `sort direction of ${name} must be asc or desc`);
    // Own entries only: `sort=constructor` names Object.prototype's member, not a field.
    const def = ownEntry(model.fields, name);
    if (!def || def.sortable === false || model.privateFields?.includes(name)) {
      const sortable = Object.keys(model.fields).filter(
        (k) => model.fields[k].sortable !== false && !model.privateFields?.includes(k),
      );
      const hint = didYouMean(name, sortable);
      throwSort(path, hint ? `cannot sort on ${name}: ${hint}` : `cannot sort on ${name}`);
    }
    parts.push(
      sql`${columnOf(def, alias)} ${sql.raw(dir === 'asc' ? 'asc nulls first' : 'desc nulls last')}`,
    );
  }
  // A unique tie-breaker keeps pages stable.
  const last = terms[terms.length - 1].dir.toLowerCase();
  parts.push(sql.raw(`"${alias}"."id" ${last === 'desc' ? 'desc' : 'asc'}`));
  return sql.join(parts, sql`, `);
}

function throwSort(path: (string | number)[], message: string): never {
  throw new AppError('ValidationError', `Invalid sort: ${message}`, {
    errors: [{ path, message, name: 'ValidationError' }],
  });
}

export function compilePopulate(model: QueryModel, raw: ListQueryInput['populate']): Set<string> {
  const allowed = model.populate ?? [];
  if (raw === undefined) return new Set(model.defaultPopulate ?? allowed);
  // `populate=` (empty): no relation at all (Strapi's own default; here the default shows the spec's).
  if (raw === '') return new Set();
  let names: string[];
  if (typeof raw === 'string') names = raw.split(',').map((s) => s.trim());
  else if (Array.isArray(raw)) names = raw;
  else {
    const list = asList(raw);
    if (list) names = list as string[];
    else {
      // `populate[a]=true`; Strapi's nested options (`populate[a][fields]`, `[populate]`, `[filters]`…) are
      // not honoured here (relations come in the spec's fixed shape), so they are a 400, not ignored.
      for (const [name, value] of Object.entries(raw)) {
        if (value !== true && value !== 'true')
          throw new AppError('ValidationError', `Cannot populate ${name} with options`, {
            errors: [
              { path: ['populate', name], message: 'only populate[relation]=true', name: 'ValidationError' },
            ],
          });
      }
      names = Object.keys(raw);
    }
  }
  if (names.includes('*')) return new Set(allowed);
  for (const n of names) {
    if (typeof n !== 'string' || !allowed.includes(n)) {
      throw new AppError('ValidationError', `Cannot populate ${String(n)}`, {
        errors: [
          {
            path: ['populate'],
            message: `allowed: ${allowed.join(', ') || 'none'}`,
            name: 'ValidationError',
          },
        ],
      });
    }
  }
  return new Set(names);
}

export interface PaginationMeta {
  page?: number;
  pageSize?: number;
  pageCount?: number;
  start?: number;
  limit?: number;
  total?: number;
}

export interface Paginated<T> {
  data: T[];
  meta: { pagination: PaginationMeta };
}

export function paginated<T>(data: T[], total: number, page: number, pageSize: number): Paginated<T> {
  return { data, meta: { pagination: { page, pageSize, pageCount: Math.ceil(total / pageSize), total } } };
}

/** A page of a list without a query model (pagination only), in the caller's pagination form. */
export function windowPage<T>(data: T[], total: number, w: PageWindow): Paginated<T> {
  return { data, meta: { pagination: metaFor(w, w.withCount ? total : undefined) } };
}

/** Strapi's meta.pagination for the form the caller used; without a count, no total or pageCount. */
export function metaFor(w: Omit<PageWindow, 'withCount'>, total: number | undefined): PaginationMeta {
  const counted = total === undefined ? {} : { total };
  if (w.mode === 'offset') return { start: w.offset, limit: w.pageSize, ...counted };
  return {
    page: w.page,
    pageSize: w.pageSize,
    ...(total === undefined ? {} : { pageCount: Math.ceil(total / w.pageSize), total }),
  };
}

/**
 * The count query of a list, run only when the caller wants the total (`pagination[withCount]=false`
 * skips it, as Strapi does: on a large table the count costs more than the page).
 */
export async function countIf(
  list: Pick<CompiledList, 'withCount'>,
  query: () => PromiseLike<{ total: number }[]>,
): Promise<number | undefined> {
  if (list.withCount === false) return undefined;
  const [{ total }] = await query();
  return total;
}

/** Where a list page keeps its `fields`/`populate` projection until serialization (see projection.ts). */
export const PROJECTION = Symbol('projection');
export interface Projection {
  fields?: string[];
  relations?: readonly string[];
  populate: Set<string>;
}

/** One page of a compiled list: meta in the caller's pagination form, projection attached for the reply. */
export function listPage<T>(data: T[], total: number | undefined, list: CompiledList): Paginated<T> {
  const page: Paginated<T> = {
    data,
    meta: {
      pagination: metaFor(
        { mode: list.mode ?? 'page', page: list.page, pageSize: list.pageSize, offset: list.offset },
        list.withCount === false ? undefined : total,
      ),
    },
  };
  const narrows = list.fields !== undefined || (list.relations ?? []).some((r) => !list.populate.has(r));
  if (narrows)
    Object.defineProperty(page, PROJECTION, {
      value: { fields: list.fields, relations: list.relations, populate: list.populate } satisfies Projection,
      enumerable: false,
    });
  return page;
}

/** Keeps what a projection selects of one item: chosen attributes, documentId/id, populated relations. */
export function project(item: unknown, p: Projection): unknown {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return item;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    const isRelation = p.relations?.includes(key) ?? false;
    const keep = isRelation
      ? p.populate.has(key)
      : key === 'documentId' || key === 'id' || p.fields === undefined || p.fields.includes(key);
    if (keep) out[key] = value;
  }
  return out;
}

export const paginationMeta = z
  .object({
    page: z.number().int().optional(),
    pageSize: z.number().int().optional(),
    pageCount: z.number().int().optional(),
    start: z.number().int().optional(),
    limit: z.number().int().optional(),
    total: z.number().int().optional(),
  })
  .describe(
    'page form: page, pageSize, pageCount, total; offset form: start, limit, total; ' +
      'total and pageCount are absent with pagination[withCount]=false',
  );

export function paginatedSchema<T extends z.ZodTypeAny>(item: T) {
  return z.object({ data: z.array(item), meta: z.object({ pagination: paginationMeta }) });
}
