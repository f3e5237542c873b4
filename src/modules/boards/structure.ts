import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import {
  AppError,
  type FieldError,
  notFound,
  onUnique,
  validationError,
} from '../../platform/http/errors.js';
import { type PaginationInput, pageWindow, windowPage } from '../../platform/http/list-query.js';
import { slugify } from '../../platform/slugs.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import {
  type BoardStructure,
  loadBoardForConfigure,
  loadBoardForRead,
  loadBoardStructure,
  toFieldStructure,
} from './access.js';
import { presentField, presentPhase, presentTag } from './present.js';
import * as repo from './repo.js';
import {
  type FieldCreateInput,
  type FieldUpdateInput,
  OPTION_TYPES,
  type PhaseCreateInput,
  type PhaseUpdateInput,
  type TagInput,
  type TagUpdateInput,
} from './schema.js';
import type { ConditionAction, ConditionGroup, FieldOption, FieldType, StoredTransition } from './table.js';

export type Path = (string | number)[];
export interface PageQuery {
  pagination?: PaginationInput;
}

// ---- shared rules (also used when a whole board is created)

/** `base`, else `base-2`, `base-3`, … : the first one not taken on the board. */
export function allocateSlug(taken: Set<string>, base: string): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) {
    const suffix = `-${i}`;
    const candidate = `${base.slice(0, 63 - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** An explicit slug must be free (400 naming the key); a missing one is generated from the name. */
export function chooseSlug(taken: Set<string>, explicit: string | undefined, source: string, path: Path) {
  if (explicit === undefined) return allocateSlug(taken, slugify(source));
  if (taken.has(explicit)) {
    throw new AppError('ValidationError', `The slug ${explicit} is already taken on this board`, {
      duplicateKeys: ['slug'],
      errors: [{ path, message: `slug ${explicit} is already taken`, name: 'ValidationError' }],
    });
  }
  return explicit;
}

const optionValue = (o: FieldOption) => (typeof o === 'string' ? o : o.value);

/** Options belong to select/multiselect/radio (at least one, distinct); defaults must fit the type. */
export function fieldDefinitionErrors(
  def: { type: FieldType; options?: FieldOption[] | null; defaultValue?: string | null },
  path: Path,
): FieldError[] {
  const errors: FieldError[] = [];
  const options = def.options ?? [];
  const takesOptions = (OPTION_TYPES as readonly string[]).includes(def.type);
  if (takesOptions && options.length === 0) {
    errors.push({ path: [...path, 'options'], message: `a ${def.type} field needs at least one option` });
  }
  if (!takesOptions && options.length > 0) {
    errors.push({
      path: [...path, 'options'],
      message: 'options apply to select, multiselect and radio fields only',
    });
  }
  const values = options.map(optionValue);
  const dup = values.find((v, i) => values.indexOf(v) !== i);
  if (dup !== undefined) errors.push({ path: [...path, 'options'], message: `option ${dup} appears twice` });
  const d = def.defaultValue;
  if (d != null && d !== '') {
    const bad = (message: string) => errors.push({ path: [...path, 'defaultValue'], message });
    if ((def.type === 'select' || def.type === 'radio') && options.length && !values.includes(d)) {
      bad(`the default must be one of the options: ${values.join(', ')}`);
    }
    if (def.type === 'multiselect' && options.length) {
      const unknown = d
        .split(',')
        .map((s) => s.trim())
        .filter((s) => !values.includes(s));
      if (unknown.length) bad(`not options of this field: ${unknown.join(', ')}`);
    }
    if ((def.type === 'number' || def.type === 'currency') && !Number.isFinite(Number(d)))
      bad('expected a number');
    if ((def.type === 'checkbox' || def.type === 'switch') && d !== 'true' && d !== 'false') {
      bad('expected true or false');
    }
  }
  return errors;
}

export function findPhaseRef<T extends { documentId: string; slug: string }>(list: T[], ref: string) {
  return list.find((p) => p.documentId === ref) ?? list.find((p) => p.slug === ref);
}

type TransitionInput = { phase: string | { documentId: string }; allowed?: boolean };

/** Transitions name other phases of the board by documentId or slug; stored by documentId. */
export function resolveTransitions(
  list: TransitionInput[],
  phases: { documentId: string; slug: string }[],
  self: { documentId?: string; slug: string },
  path: Path,
): StoredTransition[] {
  const errors: FieldError[] = [];
  const out: StoredTransition[] = [];
  list.forEach((t, i) => {
    const ref = typeof t.phase === 'string' ? t.phase : t.phase.documentId;
    const target = findPhaseRef(phases, ref);
    const here = [...path, i, 'phase'];
    if (!target) errors.push({ path: here, message: `no phase ${ref} on this board` });
    else if (target.documentId === self.documentId || target.slug === self.slug)
      errors.push({ path: here, message: 'a phase cannot list itself' });
    else if (out.some((o) => o.phase === target.documentId))
      errors.push({ path: here, message: `phase ${ref} is listed twice` });
    else out.push({ phase: target.documentId, allowed: t.allowed ?? true });
  });
  if (errors.length) throw validationError('Invalid allowedTransitions', errors);
  return out;
}

export function pageOf<T>(items: T[], query: PageQuery) {
  const w = pageWindow(query.pagination);
  return windowPage(items.slice(w.offset, w.offset + w.pageSize), items.length, w);
}

/** Read or configure access, then the structure, in one transaction; configure also locks the board. */
export function withStructure<T>(
  ctx: TenantContext,
  boardId: string,
  mode: 'read' | 'configure',
  fn: (tx: Tx, s: BoardStructure) => Promise<T>,
) {
  return ctx.transaction(async (tx) => {
    const { board } = await (mode === 'read' ? loadBoardForRead : loadBoardForConfigure)(tx, ctx, boardId);
    if (mode === 'configure') await repo.lockBoard(tx, ctx.orgId, board.id);
    return fn(tx, await loadBoardStructure(tx, ctx.orgId, board.id));
  });
}

function unknownPhase(ref: string, s: BoardStructure, path: Path) {
  return validationError(`No phase ${ref} on this board`, [
    { path, message: `expected one of: ${s.phases.map((p) => p.slug).join(', ') || '(no phases)'}` },
  ]);
}

// ---- phases

export const listPhases = (ctx: TenantContext, boardId: string, query: PageQuery) =>
  withStructure(ctx, boardId, 'read', async (_tx, s) => pageOf(s.phases.map(presentPhase), query));

export const getPhase = (ctx: TenantContext, boardId: string, id: string) =>
  withStructure(ctx, boardId, 'read', async (_tx, s) => {
    const phase = s.phases.find((p) => p.documentId === id);
    if (!phase) throw notFound('Phase');
    return presentPhase(phase);
  });

function checkEntryPublic(position: number, isPublic: boolean | undefined, path: Path) {
  if (position === 0 && isPublic === false) {
    throw validationError('The entry phase (order 0) is always public', [
      { path, message: 'the phase at order 0 is the entry form and is always public' },
    ]);
  }
}

export const createPhase = (ctx: TenantContext, boardId: string, input: PhaseCreateInput) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const position = Math.min(input.order ?? s.phases.length, s.phases.length);
    checkEntryPublic(position, input.isPublic, ['isPublic']);
    const slug = chooseSlug(new Set(s.phases.map((p) => p.slug)), input.slug, input.name, ['slug']);
    const transitions = resolveTransitions(input.allowedTransitions ?? [], s.phases, { slug }, [
      'allowedTransitions',
    ]);
    const row = await repo
      .insertPhase(tx, ctx.orgId, s.board.id, {
        name: input.name,
        slug,
        order: s.phases.length,
        isPublic: position === 0 || (input.isPublic ?? false),
        description: input.description ?? null,
        maxTimeInPhaseHours: input.maxTimeInPhaseHours ?? null,
        color: input.color ?? null,
        allowedTransitions: transitions,
      })
      .catch(onUnique('slug'));
    const ids = s.phases.map((p) => p.id);
    ids.splice(position, 0, row.id);
    await repo.renumberPhases(tx, ctx.orgId, s.board.id, ids);
    const after = await loadBoardStructure(tx, ctx.orgId, s.board.id);
    return presentPhase(after.phasesById.get(row.id)!);
  });

export const updatePhase = (ctx: TenantContext, boardId: string, id: string, input: PhaseUpdateInput) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const phase = s.phases.find((p) => p.documentId === id);
    if (!phase) throw notFound('Phase');
    const ids = s.phases.map((p) => p.id).filter((x) => x !== phase.id);
    const position = input.order === undefined ? phase.order : Math.min(input.order, ids.length);
    ids.splice(position, 0, phase.id);
    checkEntryPublic(position, input.isPublic, ['isPublic']);
    const others = s.phases.filter((p) => p.id !== phase.id);
    const slug =
      input.slug === undefined || input.slug === phase.slug
        ? phase.slug
        : chooseSlug(new Set(others.map((p) => p.slug)), input.slug, phase.name, ['slug']);
    await repo
      .updatePhase(tx, ctx.orgId, phase.id, {
        name: input.name,
        slug,
        isPublic: input.isPublic,
        description: input.description,
        maxTimeInPhaseHours: input.maxTimeInPhaseHours,
        color: input.color,
        allowedTransitions:
          input.allowedTransitions &&
          resolveTransitions(input.allowedTransitions, others, { documentId: phase.documentId, slug }, [
            'allowedTransitions',
          ]),
      })
      .catch(onUnique('slug'));
    if (position !== phase.order) await repo.renumberPhases(tx, ctx.orgId, s.board.id, ids);
    const after = await loadBoardStructure(tx, ctx.orgId, s.board.id);
    return presentPhase(after.phasesById.get(phase.id)!);
  });

/** Conditions (other than those `ignore` keeps) whose criteria or actions name one of `slugs`. */
function conditionsNaming(
  conditions: repo.ConditionRow[],
  slugs: Set<string>,
  ignore?: (c: repo.ConditionRow) => boolean,
) {
  return conditions.filter((c) => !ignore?.(c) && [...conditionSlugs(c)].some((x) => slugs.has(x)));
}

/** Every field slug a condition names, in its criteria or its actions. */
export function conditionSlugs(
  c: Pick<repo.ConditionRow, 'criteria' | 'actionsWhenTrue' | 'actionsWhenFalse'>,
) {
  const out = new Set<string>();
  for (const g of c.criteria) for (const e of g.expressions) out.add(e.fieldSlug);
  for (const a of [...c.actionsWhenTrue, ...c.actionsWhenFalse])
    for (const t of a.targetFieldSlugs) out.add(t);
  return out;
}

function referencedBy(names: repo.ConditionRow[], what: string): AppError {
  return new AppError(
    'UnprocessableEntityError',
    `${what} is used by field conditions: change or delete them first`,
    {
      conditions: names.map((c) => ({ documentId: c.documentId, name: c.name })),
    },
  );
}

export const deletePhase = (ctx: TenantContext, boardId: string, id: string) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const phase = s.phases.find((p) => p.documentId === id);
    if (!phase) throw notFound('Phase');
    const held = await repo.countCardsInPhase(tx, ctx.orgId, s.board.id, phase.id);
    if (held > 0) {
      throw new AppError(
        'UnprocessableEntityError',
        `Phase ${phase.slug} still holds ${held} cards: move them first`,
        {
          cardCount: held,
        },
      );
    }
    const conditions = await repo.listConditions(tx, ctx.orgId, s.board.id);
    const using = conditionsNaming(
      conditions,
      new Set(phase.fields.map((f) => f.slug)),
      (c) => c.phaseId === phase.id,
    );
    if (using.length) throw referencedBy(using, `Fields of phase ${phase.slug}`);
    for (const other of s.phases) {
      if (other.id !== phase.id && other.allowedTransitions.some((t) => t.phaseId === phase.id)) {
        await repo.updatePhase(tx, ctx.orgId, other.id, {
          allowedTransitions: other.allowedTransitions
            .filter((t) => t.phaseId !== phase.id)
            .map((t) => ({ phase: t.phaseDocumentId, allowed: t.allowed })),
        });
      }
    }
    if (s.board.wonPhaseId === phase.id || s.board.lostPhaseId === phase.id) {
      await repo.updateBoard(tx, ctx.orgId, s.board.id, {
        wonPhaseId: s.board.wonPhaseId === phase.id ? null : s.board.wonPhaseId,
        lostPhaseId: s.board.lostPhaseId === phase.id ? null : s.board.lostPhaseId,
      });
    }
    await repo.deletePhase(tx, ctx.orgId, phase.id);
    const rest = s.phases.filter((p) => p.id !== phase.id).map((p) => p.id);
    await repo.renumberPhases(tx, ctx.orgId, s.board.id, rest);
    await audit(tx, ctx, 'phase.deleted', phase.documentId, { board: s.board.documentId, slug: phase.slug });
    return { documentId: phase.documentId, deleted: true as const };
  });

// ---- fields

function allFields(s: BoardStructure) {
  return s.phases.flatMap((p) => p.fields.map((f) => ({ field: f, phase: p })));
}

export const listFields = (ctx: TenantContext, boardId: string, query: PageQuery & { phase?: string }) =>
  withStructure(ctx, boardId, 'read', async (_tx, s) => {
    let phases = s.phases;
    if (query.phase !== undefined) {
      const only = findPhaseRef(s.phases, query.phase);
      if (!only) throw unknownPhase(query.phase, s, ['phase']);
      phases = [only];
    }
    return pageOf(
      phases.flatMap((p) => p.fields.map((f) => presentField(f, p))),
      query,
    );
  });

function findField(s: BoardStructure, id: string) {
  const hit = allFields(s).find((x) => x.field.documentId === id);
  if (!hit) throw notFound('Field');
  return hit;
}

export const getField = (ctx: TenantContext, boardId: string, id: string) =>
  withStructure(ctx, boardId, 'read', async (_tx, s) => {
    const { field, phase } = findField(s, id);
    return presentField(field, phase);
  });

export function nextOrder(items: { order: number }[]) {
  return items.reduce((m, x) => Math.max(m, x.order + 1), 0);
}

export const createField = (ctx: TenantContext, boardId: string, input: FieldCreateInput) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const phase = findPhaseRef(s.phases, input.phase);
    if (!phase) throw unknownPhase(input.phase, s, ['phase']);
    const errors = fieldDefinitionErrors(input, []);
    if (errors.length) throw validationError('Invalid field definition', errors);
    const slug = chooseSlug(new Set(s.fieldsBySlug.keys()), input.slug, input.label, ['slug']);
    const row = await repo
      .insertField(tx, ctx.orgId, s.board.id, {
        phaseId: phase.id,
        label: input.label,
        slug,
        type: input.type,
        order: input.order ?? nextOrder(phase.fields),
        required: input.required ?? false,
        placeholder: input.placeholder ?? null,
        helpText: input.helpText ?? null,
        defaultValue: input.defaultValue ?? null,
        options: input.options ?? null,
      })
      .catch(onUnique('slug'));
    return presentField(toFieldStructure(row), phase);
  });

export const updateField = (ctx: TenantContext, boardId: string, id: string, input: FieldUpdateInput) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const { field, phase: current } = findField(s, id);
    if (input.type !== undefined && input.type !== field.type) {
      throw new AppError(
        'UnprocessableEntityError',
        'The type of a field cannot change: create a new field instead',
        {
          errors: [{ path: ['type'], message: `this field is ${field.type}` }],
        },
      );
    }
    const phase = input.phase === undefined ? current : findPhaseRef(s.phases, input.phase);
    if (!phase) throw unknownPhase(input.phase!, s, ['phase']);
    const merged = {
      type: field.type,
      options: input.options === undefined ? field.options : input.options,
      defaultValue: input.defaultValue === undefined ? field.defaultValue : input.defaultValue,
    };
    const errors = fieldDefinitionErrors(merged, []);
    if (errors.length) throw validationError('Invalid field definition', errors);
    const slug =
      input.slug === undefined || input.slug === field.slug
        ? field.slug
        : chooseSlug(
            new Set([...s.fieldsBySlug.keys()].filter((k) => k !== field.slug)),
            input.slug,
            field.label,
            ['slug'],
          );
    if (slug !== field.slug) await renameConditionSlug(tx, ctx.orgId, s.board.id, field.slug, slug);
    const row = await repo
      .updateField(tx, ctx.orgId, field.id, {
        phaseId: phase.id,
        label: input.label,
        slug,
        order: input.order,
        required: input.required,
        placeholder: input.placeholder,
        helpText: input.helpText,
        defaultValue: input.defaultValue,
        options: input.options,
      })
      .catch(onUnique('slug'));
    return presentField(toFieldStructure(row), phase);
  });

/** Conditions name fields by slug: a renamed slug is rewritten in them, in the same transaction. */
async function renameConditionSlug(tx: Tx, orgId: number, boardId: number, from: string, to: string) {
  const rename = (s: string) => (s === from ? to : s);
  const renameActions = (list: ConditionAction[]) =>
    list.map((a) => ({ ...a, targetFieldSlugs: a.targetFieldSlugs.map(rename) }));
  for (const c of conditionsNaming(await repo.listConditions(tx, orgId, boardId), new Set([from]))) {
    await repo.updateCondition(tx, orgId, c.id, {
      criteria: (c.criteria as ConditionGroup[]).map((g) => ({
        ...g,
        expressions: g.expressions.map((e) => ({ ...e, fieldSlug: rename(e.fieldSlug) })),
      })),
      actionsWhenTrue: renameActions(c.actionsWhenTrue as ConditionAction[]),
      actionsWhenFalse: renameActions(c.actionsWhenFalse as ConditionAction[]),
    });
  }
}

export const deleteField = (ctx: TenantContext, boardId: string, id: string) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const { field } = findField(s, id);
    const using = conditionsNaming(
      await repo.listConditions(tx, ctx.orgId, s.board.id),
      new Set([field.slug]),
    );
    if (using.length) throw referencedBy(using, `Field ${field.slug}`);
    await repo.deleteField(tx, ctx.orgId, field.id);
    await audit(tx, ctx, 'field.deleted', field.documentId, { board: s.board.documentId, slug: field.slug });
    return { documentId: field.documentId, deleted: true as const };
  });

// ---- tags

export const listTags = (ctx: TenantContext, boardId: string, query: PageQuery) =>
  withStructure(ctx, boardId, 'read', async (_tx, s) => pageOf(s.tags.map(presentTag), query));

function findTag(s: BoardStructure, id: string) {
  const t = s.tags.find((x) => x.documentId === id);
  if (!t) throw notFound('Tag');
  return t;
}

export const getTag = (ctx: TenantContext, boardId: string, id: string) =>
  withStructure(ctx, boardId, 'read', async (_tx, s) => presentTag(findTag(s, id)));

export const createTag = (ctx: TenantContext, boardId: string, input: TagInput) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const slug = chooseSlug(new Set(s.tags.map((t) => t.slug)), input.slug, input.name, ['slug']);
    const row = await repo
      .insertTag(tx, ctx.orgId, s.board.id, { name: input.name, slug, color: input.color ?? null })
      .catch(onUnique('slug'));
    return presentTag(row);
  });

export const updateTag = (ctx: TenantContext, boardId: string, id: string, input: TagUpdateInput) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const tag = findTag(s, id);
    const slug =
      input.slug === undefined || input.slug === tag.slug
        ? tag.slug
        : chooseSlug(
            new Set(s.tags.filter((t) => t.id !== tag.id).map((t) => t.slug)),
            input.slug,
            tag.name,
            ['slug'],
          );
    const row = await repo
      .updateTag(tx, ctx.orgId, tag.id, { name: input.name, slug, color: input.color })
      .catch(onUnique('slug'));
    return presentTag(row);
  });

export const deleteTag = (ctx: TenantContext, boardId: string, id: string) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const tag = findTag(s, id);
    await repo.deleteTag(tx, ctx.orgId, tag.id);
    await audit(tx, ctx, 'tag.deleted', tag.documentId, { board: s.board.documentId, slug: tag.slug });
    return { documentId: tag.documentId, deleted: true as const };
  });
