import type { SQL } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { validationError } from '../../platform/http/errors.js';
import { compileFilters } from '../../platform/http/list-query.js';
import { laggingRead, type TenantContext } from '../../platform/tenancy/context.js';
import type { BoardStructure, FieldStructure } from '../boards/index.js';
import { openBoard } from './board-scope.js';
import { optionLabel } from './fields.js';
import { cardModelFor } from './query-model.js';
import * as reportRepo from './report-repo.js';
import { compactReport, REPORT_COMPACT_AFTER } from './report-rollups.js';

/** The board report (summary, phases, assignees, tags, days) and the card aggregate (fn of a value, by a group). */

export async function boardReport(
  ctx: TenantContext,
  boardId: string,
  range: { from?: string; to?: string },
) {
  // A read that may lag: on the read replica when it is close enough (tenancy/context.ts).
  return laggingRead(ctx, async (tx, on) => {
    const scope = await openBoard(tx, ctx, boardId, false);
    const { structure } = scope;
    const to = range.to ? new Date(range.to) : new Date();
    const from = range.from ? new Date(range.from) : structure.board.createdAt;
    if (from > to)
      throw validationError('from must not be after to', [
        { path: ['from'], message: 'must not be after to', name: 'ValidationError' },
      ]);
    const s: reportRepo.ReportScope = {
      orgId: ctx.orgId,
      boardId: structure.board.id,
      from,
      to,
      assigneeOnly: scope.assigneeOnly,
    };
    const { wonPhaseId, lostPhaseId } = structure.settings;
    const rows = await reportRepo.boardReport(tx, s, wonPhaseId, lostPhaseId);
    const pending = rows.find((r) => r.kind === 'pending');
    // Folding writes: on the primary only (the replica gets the maintenance's folds by replication).
    if (pending && pending.count > REPORT_COMPACT_AFTER && on === 'primary')
      await compactReport(tx, ctx.orgId, s.boardId);
    const of = (kind: reportRepo.ReportRow['kind']) => rows.filter((r) => r.kind === kind);
    const one = (kind: reportRepo.ReportRow['kind']) => of(kind)[0];
    const byAssignee = of('assignee');
    const byTag = new Map(of('tag').map((r) => [r.key, r.count]));
    const createdByDay = of('day')
      .map((r) => ({ date: r.day!, count: r.count }))
      .sort((a, b) => a.date.localeCompare(b.date));
    const summary = {
      totalCards: one('total').count,
      wonCount: one('won').count,
      lostCount: one('lost').count,
      unassignedCount: byAssignee.find((r) => r.key === null)?.count ?? 0,
      untaggedCount: byTag.get(null) ?? 0,
      totalValue: one('total').value,
      wonValue: one('won').value,
      opportunityValue: one('open').value,
    };
    return {
      boardId: structure.board.documentId,
      boardName: structure.board.name,
      showValue: structure.settings.showValue,
      currency: structure.settings.currency,
      dateRange: { from: from.toISOString(), to: to.toISOString() },
      summary,
      phases: reportPhases(structure, of('phase')),
      assignees: byAssignee
        .map((r) => ({
          membershipId: r.documentId,
          displayName: r.username ?? 'Unassigned',
          count: r.count,
          value: r.value,
        }))
        .sort((a, b) => b.count - a.count || a.displayName.localeCompare(b.displayName)),
      tags: structure.tags.map((t) => ({
        tagId: t.documentId,
        name: t.name,
        color: t.color,
        count: byTag.get(t.id) ?? 0,
      })),
      createdByDay,
    };
  });
}

/** Every phase of the board in order, counted or not, and a "No phase" row for cards without a (live) phase. */
function reportPhases(structure: BoardStructure, phaseRows: reportRepo.ReportRow[]) {
  const { wonPhaseId, lostPhaseId } = structure.settings;
  const byPhase = phaseRows.map((r) => ({ phaseId: r.key, count: r.count, value: r.value }));
  const phases = structure.phases.map((p) => {
    const hit = byPhase.find((r) => r.phaseId === p.id);
    return {
      phaseId: p.documentId,
      name: p.name,
      slug: p.slug,
      order: p.order,
      count: hit?.count ?? 0,
      value: hit?.value ?? 0,
      isWon: p.id === wonPhaseId,
      isLost: p.id === lostPhaseId,
    };
  });
  // Cards without a phase, or whose phase was deleted.
  const orphans = byPhase.filter((r) => r.phaseId === null || !structure.phasesById.has(r.phaseId));
  if (orphans.length) {
    phases.push({
      phaseId: '__no_phase__',
      name: 'No phase',
      slug: '__no_phase__',
      order: -1,
      count: orphans.reduce((n, r) => n + r.count, 0),
      value: orphans.reduce((n, r) => n + r.value, 0),
      isWon: false,
      isLost: false,
    });
  }
  return phases;
}

interface AggregateQuery {
  filters?: Record<string, unknown>;
  field: string;
  fn: string;
  groupBy?: string;
}

const badAggregate = (path: string, message: string) =>
  validationError(`${path}: ${message}`, [{ path: [path], message, name: 'ValidationError' }]);

export async function aggregateCards(ctx: TenantContext, boardId: string, query: AggregateQuery) {
  // A read that may lag: on the read replica when it is close enough (tenancy/context.ts).
  return laggingRead(ctx, async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, false);
    const { structure } = scope;
    const where = compileFilters(cardModelFor(structure), query.filters ?? {});
    const expr = aggregatedExpr(structure, query);
    const { group, groupField } = aggregateGroup(structure, query.groupBy);
    const result = await reportRepo.aggregateCards(
      tx,
      ctx.orgId,
      structure.board.id,
      where,
      scope.visibility,
      {
        expr,
        fn: query.fn,
        group,
        fieldKey: groupField?.documentId,
      },
    );
    const labels = await groupLabels(
      tx,
      ctx.orgId,
      structure,
      group,
      groupField,
      result.groups.map((g) => g.key),
    );
    return {
      field: query.field,
      fn: query.fn as 'count',
      groupBy: query.groupBy ?? null,
      value: result.value,
      count: result.count,
      groups: result.groups.map((g) => {
        const label = labels(g.key);
        return { key: label.key, label: label.label, value: g.value, count: g.count };
      }),
    };
  });
}

/** What `fn` aggregates: the card value or a number/currency field; any field's filled values for count. */
function aggregatedExpr(structure: BoardStructure, query: AggregateQuery): SQL {
  if (query.field === 'value') return reportRepo.valueExpr();
  const field = structure.fieldsBySlug.get(query.field);
  if (!field) throw badAggregate('field', `no field ${query.field}; use value or a field slug`);
  if (field.type === 'number' || field.type === 'currency')
    return reportRepo.numericFieldExpr(field.documentId);
  if (query.fn === 'count') return reportRepo.filledFieldExpr(field.documentId);
  throw badAggregate(
    'fn',
    `${query.fn} needs value or a number/currency field; ${field.slug} is ${field.type}`,
  );
}

/** The grouping asked for: phase, assignee, tag or a select/radio field (by slug); none when groupBy is absent. */
function aggregateGroup(
  structure: BoardStructure,
  groupBy: string | undefined,
): { group: reportRepo.GroupKind; groupField?: FieldStructure } {
  if (groupBy === 'phase' || groupBy === 'assignee' || groupBy === 'tag') return { group: groupBy };
  if (groupBy === undefined) return { group: null };
  const groupField = structure.fieldsBySlug.get(groupBy);
  if (!groupField || (groupField.type !== 'select' && groupField.type !== 'radio'))
    throw badAggregate('groupBy', 'use phase, assignee, tag or the slug of a select/radio field');
  return { group: 'field', groupField };
}

/** The documentId and name of each group key (a phase, tag or membership id, or a field option's value). */
async function groupLabels(
  tx: Tx,
  orgId: number,
  structure: BoardStructure,
  group: reportRepo.GroupKind,
  groupField: FieldStructure | undefined,
  keys: (string | number | null)[],
): Promise<(k: string | number | null) => { key: string | null; label: string | null }> {
  const none = { key: null, label: null };
  if (group === 'phase')
    return (k) => {
      const p = k === null ? undefined : structure.phasesById.get(Number(k));
      return p ? { key: p.documentId, label: p.name } : none;
    };
  if (group === 'tag') {
    const byId = new Map(structure.tags.map((t) => [t.id, t]));
    return (k) => {
      const t = k === null ? undefined : byId.get(Number(k));
      return t ? { key: t.documentId, label: t.name } : none;
    };
  }
  if (group === 'assignee') {
    const names = await reportRepo.membershipNames(
      tx,
      orgId,
      keys.flatMap((k) => (k === null ? [] : [Number(k)])),
    );
    return (k) => {
      const m = k === null ? undefined : names.get(Number(k));
      return m ? { key: m.documentId, label: m.username } : none;
    };
  }
  const field = groupField!;
  return (k) => (k === null ? none : { key: String(k), label: optionLabel(field, String(k)) });
}
