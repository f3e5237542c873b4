import type { SQL } from 'drizzle-orm';
import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import {
  AppError,
  type FieldError,
  notFound,
  onUnique,
  validationError,
} from '../../platform/http/errors.js';
import {
  compileListQuery,
  type ListQueryInput,
  listPage,
  metaFor,
  pageWindow,
} from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { contactModel } from '../contacts/index.js';
import { SegmentGraphError, type SegmentNode, type SegmentRoot, segmentPredicate } from './compile.js';
import { contactPage } from './contacts.js';
import * as repo from './repo.js';
import {
  CONTACT_TYPES,
  OPERATORS,
  type PreviewInput,
  RELATION_OPERATORS,
  ruleKey,
  ruleToCondition,
  type SegmentCondition,
  type SegmentFilters,
  type SegmentInput,
  type SegmentUpdate,
  STRING_FIELDS,
  VALUELESS,
} from './schema.js';

type Path = (string | number)[];

/** Token scopes are declared by the routes (routes that return contacts also need contacts:read). */
function canWrite(ctx: TenantContext) {
  requireRole(ctx, 'member');
}

/** Where, in the request body, each part of a segment definition was written. */
interface Paths {
  condition: (index: number, key: keyof SegmentCondition) => Path;
  link: (list: 'requiredSegments' | 'excludedSegments', index?: number) => Path;
}

const storedPaths = (base: Path): Paths => ({
  condition: (i, key) => [...base, 'filters', 'conditions', i, key],
  link: (list, i) => (i === undefined ? [...base, list] : [...base, list, i]),
});

const specPaths: Paths = {
  condition: (i, key) => ['rules', 'rules', i, ruleKey(key)],
  link: (list, i) => (i === undefined ? [list] : [list, i]),
};

interface Definition {
  filters: SegmentFilters;
  requiredSegments: string[];
  excludedSegments: string[];
  /**
   * false when the filters are the stored ones, unchanged: an owner or team removed since then makes
   * its condition match nobody, and must not block renaming the segment.
   */
  checkRelations?: boolean;
}

const fieldErrors = (errors: FieldError[]) =>
  validationError(
    errors.length === 1 ? `Invalid segment: ${errors[0].message}` : 'Invalid segment definition',
    errors.map((e) => ({ ...e, path: e.path.map(String), name: 'ValidationError' })),
  );

/**
 * Checks what only the database knows (owners, teams and linked segments exist in this organization;
 * no cycle) and returns the definition as a compilable root plus the graph it links into.
 */
async function resolveDefinition(
  tx: Tx,
  orgId: number,
  def: Definition,
  paths: Paths,
  selfId?: number,
): Promise<{ root: SegmentRoot; graph: Map<number, SegmentNode> }> {
  const errors: FieldError[] = [];
  const relationRefs = def.filters.conditions.flatMap((c, i) =>
    c.kind === 'relation' && c.documentId && def.checkRelations !== false
      ? [{ i, field: c.field, documentId: c.documentId }]
      : [],
  );
  const found = await repo.existingRelationIds(
    tx,
    orgId,
    relationRefs.filter((r) => r.field === 'owner').map((r) => r.documentId),
    relationRefs.filter((r) => r.field === 'team').map((r) => r.documentId),
  );
  for (const r of relationRefs) {
    const ok = r.field === 'owner' ? found.owners.has(r.documentId) : found.teams.has(r.documentId);
    if (!ok) {
      const what = r.field === 'owner' ? 'member (membership)' : 'team';
      errors.push({
        path: paths.condition(r.i, 'documentId'),
        message: `no ${what} ${r.documentId} in this organization`,
      });
    }
  }

  const ids = await repo.segmentIdsByDocumentIds(tx, orgId, [
    ...def.requiredSegments,
    ...def.excludedSegments,
  ]);
  const seen = new Set<string>();
  const resolved = { required: [] as number[], excluded: [] as number[] };
  for (const list of ['requiredSegments', 'excludedSegments'] as const) {
    def[list].forEach((documentId, i) => {
      const id = ids.get(documentId);
      if (seen.has(documentId))
        errors.push({ path: paths.link(list, i), message: `segment ${documentId} is listed twice` });
      else if (id === undefined)
        errors.push({ path: paths.link(list, i), message: `no segment ${documentId} in this organization` });
      else if (id === selfId)
        errors.push({ path: paths.link(list, i), message: 'a segment cannot require or exclude itself' });
      else resolved[list === 'requiredSegments' ? 'required' : 'excluded'].push(id);
      seen.add(documentId);
    });
  }
  if (errors.length) throw fieldErrors(errors);

  const graph = await repo.loadGraph(tx, orgId, [...resolved.required, ...resolved.excluded]);
  if (selfId !== undefined) {
    for (const list of ['requiredSegments', 'excludedSegments'] as const) {
      def[list].forEach((documentId, i) => {
        const id = ids.get(documentId);
        if (id !== undefined && reaches(graph, id, selfId)) {
          errors.push({
            path: paths.link(list, i),
            message: `segment ${documentId} already depends on this segment: linking it would form a cycle`,
          });
        }
      });
    }
    if (errors.length) throw fieldErrors(errors);
  }
  return { root: { id: selfId, filters: def.filters, ...resolved }, graph };
}

function reaches(graph: Map<number, SegmentNode>, from: number, target: number): boolean {
  const stack = [from];
  const visited = new Set<number>();
  while (stack.length) {
    const id = stack.pop()!;
    if (id === target) return true;
    if (visited.has(id)) continue;
    visited.add(id);
    const node = graph.get(id);
    if (node) stack.push(...node.required, ...node.excluded);
  }
  return false;
}

/** Compiles, turning a graph problem into a 400 on the links when writing, a 422 when reading. */
function compileOrThrow(
  orgId: number,
  root: SegmentRoot,
  graph: Map<number, SegmentNode>,
  onWrite?: Path,
): SQL {
  try {
    return segmentPredicate(orgId, root, graph);
  } catch (err) {
    if (!(err instanceof SegmentGraphError)) throw err;
    if (onWrite) throw fieldErrors([{ path: onWrite, message: err.message }]);
    throw new AppError('UnprocessableEntityError', `This segment cannot be evaluated: ${err.message}`, {
      reason: err.reason,
    });
  }
}

function storedRoot(graph: Map<number, SegmentNode>, id: number): SegmentRoot {
  const node = graph.get(id);
  if (!node) throw notFound('Segment');
  return node;
}

function toSegment(
  row: repo.SegmentRow,
  links: { required: string[]; excluded: string[] },
  contactCount: number,
) {
  return {
    documentId: row.documentId,
    name: row.name,
    description: row.description,
    active: row.active,
    filters: row.filters,
    requiredSegments: links.required,
    excludedSegments: links.excluded,
    contactCount,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

/** Segments with their links and live counts: one graph load and one counting scan for all of them. */
async function presentSegments(tx: Tx, orgId: number, rows: repo.SegmentRow[]) {
  const ids = rows.map((r) => r.id);
  const graph = await repo.loadGraph(tx, orgId, ids);
  const links = await repo.linkDocumentIds(tx, orgId, ids);
  const counts = await repo.countMatches(
    tx,
    orgId,
    ids.map((id) => compileOrThrow(orgId, storedRoot(graph, id), graph)),
  );
  return rows.map((r, i) => toSegment(r, links.get(r.id)!, counts[i]));
}

async function findOr404(tx: Tx, orgId: number, documentId: string) {
  const row = await repo.findSegment(tx, orgId, documentId);
  if (!row) throw notFound('Segment');
  return row;
}

/** Drops the optional keys' defaults so what is stored reads back as the canonical shape. */
function canonicalFilters(filters: SegmentFilters): SegmentFilters {
  return {
    logic: filters.logic,
    conditions: filters.conditions.map((c) => {
      const kind = c.kind === 'field' ? undefined : c.kind;
      const op = kind === 'relation' ? (c.op ?? 'eq') : c.op;
      const value = op && VALUELESS.includes(op) ? undefined : c.value;
      return Object.fromEntries(
        Object.entries({ ...c, kind, op, value }).filter(([, v]) => v !== undefined),
      ) as SegmentCondition;
    }),
  };
}

export async function listSegments(ctx: TenantContext, query: ListQueryInput) {
  const q = compileListQuery(repo.segmentModel, query);
  return ctx.transaction(async (tx) => {
    const { rows, total } = await repo.listSegments(tx, ctx.orgId, q);
    return listPage(await presentSegments(tx, ctx.orgId, rows), total, q);
  });
}

export async function getSegment(ctx: TenantContext, documentId: string) {
  return ctx.transaction(async (tx) => {
    const row = await findOr404(tx, ctx.orgId, documentId);
    return (await presentSegments(tx, ctx.orgId, [row]))[0];
  });
}

export async function createSegment(ctx: TenantContext, input: SegmentInput) {
  canWrite(ctx);
  const filters = canonicalFilters(input.filters);
  const def = {
    filters,
    requiredSegments: input.requiredSegments ?? [],
    excludedSegments: input.excludedSegments ?? [],
  };
  return ctx.transaction(async (tx) => {
    await repo.lockSegmentGraph(tx, ctx.orgId);
    const { root, graph } = await resolveDefinition(tx, ctx.orgId, def, storedPaths([]));
    compileOrThrow(ctx.orgId, root, graph, ['requiredSegments']);
    const row = await repo
      .insertSegment(tx, ctx.orgId, {
        name: input.name,
        description: input.description ?? null,
        active: input.active ?? true,
        filters,
      })
      .catch(onUnique('name', `A segment named ${input.name} already exists`));
    await repo.replaceLinks(tx, ctx.orgId, row.id, root);
    return (await presentSegments(tx, ctx.orgId, [row]))[0];
  });
}

export async function updateSegment(ctx: TenantContext, documentId: string, input: SegmentUpdate) {
  canWrite(ctx);
  return ctx.transaction(async (tx) => {
    await repo.lockSegmentGraph(tx, ctx.orgId);
    const row = await findOr404(tx, ctx.orgId, documentId);
    const current = (await repo.linkDocumentIds(tx, ctx.orgId, [row.id])).get(row.id)!;
    const filters = input.filters ? canonicalFilters(input.filters) : row.filters;
    const def = {
      filters,
      requiredSegments: input.requiredSegments ?? current.required,
      excludedSegments: input.excludedSegments ?? current.excluded,
      checkRelations: input.filters !== undefined,
    };
    const { root, graph } = await resolveDefinition(tx, ctx.orgId, def, storedPaths([]), row.id);
    compileOrThrow(ctx.orgId, root, graph, ['requiredSegments']);
    const updated = await repo
      .updateSegment(tx, ctx.orgId, row.id, {
        ...(input.name !== undefined && { name: input.name }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.active !== undefined && { active: input.active }),
        filters,
      })
      .catch(onUnique('name', `A segment named ${input.name} already exists`));
    await repo.replaceLinks(tx, ctx.orgId, row.id, root);
    await checkDependents(tx, ctx.orgId, row.id);
    return (await presentSegments(tx, ctx.orgId, [updated]))[0];
  });
}

/** Segments linking to the changed one inline it: they must still compile within the limits. */
async function checkDependents(tx: Tx, orgId: number, segmentId: number) {
  const ancestors = await repo.ancestorIds(tx, orgId, segmentId);
  if (ancestors.length === 0) return;
  const graph = await repo.loadGraph(tx, orgId, ancestors);
  for (const id of ancestors) compileOrThrow(orgId, storedRoot(graph, id), graph, ['filters']);
}

export async function deleteSegment(ctx: TenantContext, documentId: string) {
  canWrite(ctx);
  return ctx.transaction(async (tx) => {
    await repo.lockSegmentGraph(tx, ctx.orgId);
    const row = await findOr404(tx, ctx.orgId, documentId);
    const dependents = await repo.directDependents(tx, ctx.orgId, row.id);
    if (dependents.length) {
      throw new AppError(
        'UnprocessableEntityError',
        'Other segments require or exclude this segment: change them first',
        { dependents },
      );
    }
    await repo.deleteSegment(tx, ctx.orgId, row.id).catch(onInUse);
    await audit(tx, ctx, 'segment.deleted', row.documentId, { name: row.name, filters: row.filters });
    return { documentId: row.documentId, deleted: true as const };
  });
}

/** Another area's row (a campaign) still pointing at the segment: SQLSTATE 23503. */
function onInUse(err: unknown): never {
  const e = err as { code?: string; cause?: { code?: string } };
  if (e?.code === '23503' || e?.cause?.code === '23503') {
    throw new AppError('UnprocessableEntityError', 'This segment is in use (for example by a campaign)');
  }
  throw err;
}

async function storedPredicate(tx: Tx, orgId: number, documentId: string) {
  const row = await findOr404(tx, orgId, documentId);
  const graph = await repo.loadGraph(tx, orgId, [row.id]);
  return compileOrThrow(orgId, storedRoot(graph, row.id), graph);
}

/**
 * The stored segment's predicate over the `contacts` table (campaign audiences): 404 when the segment is not
 * in this organization, 422 when its linked segments can no longer be compiled.
 */
export async function segmentAudiencePredicate(tx: Tx, orgId: number, documentId: string) {
  return storedPredicate(tx, orgId, documentId);
}

export async function countSegment(ctx: TenantContext, documentId: string) {
  return ctx.transaction(async (tx) => {
    const predicate = await storedPredicate(tx, ctx.orgId, documentId);
    const [count] = await repo.countMatches(tx, ctx.orgId, [predicate]);
    return { documentId, count };
  });
}

export async function segmentContacts(ctx: TenantContext, documentId: string, query: ListQueryInput) {
  const q = compileListQuery(contactModel, query);
  return ctx.transaction(async (tx) => {
    const predicate = await storedPredicate(tx, ctx.orgId, documentId);
    const { data, total } = await contactPage(tx, ctx.orgId, predicate, {
      where: q.where,
      orderBy: q.orderBy,
      offset: q.offset,
      limit: q.pageSize,
      populate: q.populate,
      withCount: q.withCount,
    });
    return listPage(data, total, q);
  });
}

/** The spec's `{ rules }` as a stored definition; the rules were validated by the body schema. */
function specDefinition(body: PreviewInput): SegmentFilters {
  const rules = body.rules!;
  return { logic: rules.condition, conditions: rules.rules.map((r) => ruleToCondition(r).condition) };
}

export async function previewSegment(ctx: TenantContext, body: PreviewInput) {
  const filters = canonicalFilters(body.filters ?? specDefinition(body));
  const def = {
    filters,
    requiredSegments: body.requiredSegments ?? [],
    excludedSegments: body.excludedSegments ?? [],
  };
  const paths = body.filters ? storedPaths([]) : specPaths;
  // The preview's `count` is its point: it is computed whatever withCount says.
  const w = { ...pageWindow(body.pagination), withCount: true };
  return ctx.transaction(async (tx) => {
    const { root, graph } = await resolveDefinition(tx, ctx.orgId, def, paths);
    const predicate = compileOrThrow(ctx.orgId, root, graph, ['requiredSegments']);
    const { data, total } = await contactPage(tx, ctx.orgId, predicate, {
      orderBy: compileListQuery(contactModel, {}).orderBy,
      offset: w.offset,
      limit: w.pageSize,
      populate: new Set(),
      withCount: true,
    });
    const count = total ?? 0;
    return { count, data, meta: { pagination: metaFor(w, count) } };
  });
}

const OPERATOR_DESCRIPTIONS: Record<(typeof OPERATORS)[number], string> = {
  contains: 'the value occurs anywhere in the field (case-insensitive)',
  eq: 'the field equals the value (case-insensitive)',
  startsWith: 'the field starts with the value (case-insensitive)',
  endsWith: 'the field ends with the value (case-insensitive)',
  empty: 'the field is missing or blank (no value)',
  notEmpty: 'the field has a non-blank value (no value)',
};

const FIELD_LABELS: Record<(typeof STRING_FIELDS)[number], string> = {
  phone: 'Phone',
  email: 'E-mail',
  name: 'Name',
  address: 'Address',
  city: 'City',
  state: 'State',
  country: 'Country',
  postal_code: 'Postal code',
  cpf: 'CPF',
  cnpj: 'CNPJ',
  contact_type: 'Contact type',
};

const OPTION_LIMIT = 500;

export async function filterOptions(ctx: TenantContext) {
  return ctx.transaction(async (tx) => ({
    logic: ['AND' as const, 'OR' as const],
    operators: OPERATORS.map((op) => ({
      op,
      takesValue: !VALUELESS.includes(op),
      description: OPERATOR_DESCRIPTIONS[op],
    })),
    fields: STRING_FIELDS.map((field) => ({
      field,
      label: FIELD_LABELS[field],
      operators: [...OPERATORS],
      ...(field === 'contact_type' && { values: [...CONTACT_TYPES] }),
    })),
    relations: [
      {
        field: 'owner' as const,
        label: 'Owner',
        operators: [...RELATION_OPERATORS],
        optionsFrom: 'owners' as const,
      },
      {
        field: 'team' as const,
        label: 'Team',
        operators: [...RELATION_OPERATORS],
        optionsFrom: 'teams' as const,
      },
    ],
    customFields: {
      operators: [...OPERATORS],
      keys: await repo.customFieldKeys(tx, ctx.orgId, OPTION_LIMIT),
    },
    owners: await repo.ownerOptions(tx, ctx.orgId, OPTION_LIMIT),
    teams: await repo.teamOptions(tx, ctx.orgId, OPTION_LIMIT),
    segments: await repo.segmentOptions(tx, ctx.orgId, OPTION_LIMIT),
  }));
}
