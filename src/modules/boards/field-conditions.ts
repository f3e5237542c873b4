import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { type FieldError, notFound, validationError } from '../../platform/http/errors.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import type { BoardStructure, PhaseStructure } from './access.js';
import { presentCondition } from './present.js';
import * as repo from './repo.js';
import type { ConditionCreateInput, ConditionUpdateInput } from './schema.js';
import { findPhaseRef, nextOrder, type PageQuery, pageOf, withStructure } from './structure.js';
import type { ConditionAction, ConditionGroup } from './table.js';

/** A board's field conditions (show or hide fields by other fields' values): checked against the board, stored. */

const VALUELESS = new Set(['empty', 'notEmpty']);
const LISTED = new Set(['in', 'notIn']);

/** Checks a whole condition (after merging an update) against the board; returns what is stored. */
function checkCondition(input: ConditionCreateInput, s: BoardStructure) {
  const errors: FieldError[] = [];
  const scope = input.scope ?? 'phase';
  let phase: PhaseStructure | undefined;
  if (scope === 'phase') {
    if (input.phase == null)
      errors.push({ path: ['phase'], message: 'a phase-scoped condition names its phase' });
    else {
      phase = findPhaseRef(s.phases, input.phase);
      if (!phase) errors.push({ path: ['phase'], message: `no phase ${input.phase} on this board` });
    }
  } else if (input.phase != null) {
    errors.push({ path: ['phase'], message: 'a board-scoped condition has no phase' });
  }
  const known = (slug: string) => s.fieldsBySlug.has(slug);
  const criteria: ConditionGroup[] = input.criteria.map((g, gi) => ({
    operator: 'AND',
    expressions: g.expressions.map((e, ei) => {
      const path = ['criteria', gi, 'expressions', ei];
      if (!known(e.fieldSlug))
        errors.push({ path: [...path, 'fieldSlug'], message: `no field ${e.fieldSlug} on this board` });
      if (!VALUELESS.has(e.operator) && e.value === undefined)
        errors.push({ path: [...path, 'value'], message: `${e.operator} needs a value` });
      if (LISTED.has(e.operator) && e.value !== undefined && !Array.isArray(e.value))
        errors.push({ path: [...path, 'value'], message: `${e.operator} takes a list of values` });
      return VALUELESS.has(e.operator)
        ? { fieldSlug: e.fieldSlug, operator: e.operator }
        : { fieldSlug: e.fieldSlug, operator: e.operator, value: e.value };
    }),
  }));
  const actions = (key: 'actionsWhenTrue' | 'actionsWhenFalse'): ConditionAction[] =>
    (input[key] ?? []).map((a, ai) => {
      a.targetFieldSlugs.forEach((t, ti) => {
        if (!known(t))
          errors.push({ path: [key, ai, 'targetFieldSlugs', ti], message: `no field ${t} on this board` });
      });
      return { type: a.type, targetFieldSlugs: a.targetFieldSlugs };
    });
  const actionsWhenTrue = actions('actionsWhenTrue');
  const actionsWhenFalse = actions('actionsWhenFalse');
  if (errors.length) throw validationError('Invalid field condition', errors);
  return { scope, phaseId: phase?.id ?? null, criteria, actionsWhenTrue, actionsWhenFalse };
}

async function findCondition(tx: Tx, orgId: number, s: BoardStructure, id: string) {
  const rows = await repo.listConditions(tx, orgId, s.board.id);
  const row = rows.find((c) => c.documentId === id);
  if (!row) throw notFound('Field condition');
  return { row, rows };
}

export const listConditions = (ctx: TenantContext, boardId: string, query: PageQuery) =>
  withStructure(ctx, boardId, 'read', async (tx, s) =>
    pageOf(
      (await repo.listConditions(tx, ctx.orgId, s.board.id)).map((c) => presentCondition(c, s.phasesById)),
      query,
    ),
  );

export const getCondition = (ctx: TenantContext, boardId: string, id: string) =>
  withStructure(ctx, boardId, 'read', async (tx, s) =>
    presentCondition((await findCondition(tx, ctx.orgId, s, id)).row, s.phasesById),
  );

export const createCondition = (ctx: TenantContext, boardId: string, input: ConditionCreateInput) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const checked = checkCondition(input, s);
    const existing = await repo.listConditions(tx, ctx.orgId, s.board.id);
    const row = await repo.insertCondition(tx, ctx.orgId, s.board.id, {
      ...checked,
      name: input.name,
      order: input.order ?? nextOrder(existing),
      enabled: input.enabled ?? true,
    });
    return presentCondition(row, s.phasesById);
  });

export const updateCondition = (
  ctx: TenantContext,
  boardId: string,
  id: string,
  input: ConditionUpdateInput,
) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const { row } = await findCondition(tx, ctx.orgId, s, id);
    const scope = input.scope ?? (row.scope as 'phase' | 'board');
    const currentPhase = row.phaseId === null ? null : (s.phasesById.get(row.phaseId)?.documentId ?? null);
    const checked = checkCondition(
      {
        name: input.name ?? row.name,
        scope,
        // Switching to board scope drops the phase unless one is sent (which is then an error).
        phase: input.phase !== undefined ? input.phase : scope === 'board' ? null : currentPhase,
        criteria: input.criteria ?? (row.criteria as ConditionGroup[]),
        actionsWhenTrue: input.actionsWhenTrue ?? (row.actionsWhenTrue as ConditionAction[]),
        actionsWhenFalse: input.actionsWhenFalse ?? (row.actionsWhenFalse as ConditionAction[]),
      },
      s,
    );
    const updated = await repo.updateCondition(tx, ctx.orgId, row.id, {
      ...checked,
      name: input.name,
      order: input.order,
      enabled: input.enabled,
    });
    return presentCondition(updated, s.phasesById);
  });

export const deleteCondition = (ctx: TenantContext, boardId: string, id: string) =>
  withStructure(ctx, boardId, 'configure', async (tx, s) => {
    const { row } = await findCondition(tx, ctx.orgId, s, id);
    await repo.deleteCondition(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'field_condition.deleted', row.documentId, {
      board: s.board.documentId,
      name: row.name,
    });
    return { documentId: row.documentId, deleted: true as const };
  });
