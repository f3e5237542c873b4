import type { z } from 'zod';
import type { MembershipRef } from '../../platform/http/schemas.js';
import { isoRequired } from '../../platform/http/schemas.js';
import type { BoardStructure, FieldStructure, PhaseStructure, TagStructure } from './access.js';
import type { BoardMemberRow, ConditionRow } from './repo.js';
import type { board, fieldCondition, fieldDefinition, phase, tag } from './schema.js';
import type { ConditionAction, ConditionGroup } from './table.js';

/** Row/structure → API objects. The cards area uses presentPhase and presentTag for card payloads. */

export function presentField(
  f: FieldStructure,
  owner: { documentId: string; name: string },
): z.infer<typeof fieldDefinition> {
  return {
    documentId: f.documentId,
    label: f.label,
    slug: f.slug,
    type: f.type,
    order: f.order,
    required: f.required,
    placeholder: f.placeholder,
    helpText: f.helpText,
    defaultValue: f.defaultValue,
    options: f.options,
    phase: { documentId: owner.documentId, name: owner.name },
  };
}

export function presentPhase(p: PhaseStructure): z.infer<typeof phase> {
  return {
    documentId: p.documentId,
    name: p.name,
    slug: p.slug,
    order: p.order,
    isPublic: p.isPublic,
    description: p.description,
    maxTimeInPhaseHours: p.maxTimeInPhaseHours,
    color: p.color,
    fields: p.fields.map((f) => presentField(f, p)),
    allowedTransitions: p.allowedTransitions.map((t) => ({
      phase: { documentId: t.phaseDocumentId },
      allowed: t.allowed,
    })),
  };
}

export function presentTag(t: TagStructure): z.infer<typeof tag> {
  return { documentId: t.documentId, name: t.name, slug: t.slug, color: t.color };
}

export function presentCondition(
  row: ConditionRow,
  phasesById: Map<number, PhaseStructure>,
): z.infer<typeof fieldCondition> {
  const owner = row.phaseId === null ? undefined : phasesById.get(row.phaseId);
  return {
    documentId: row.documentId,
    name: row.name,
    scope: row.scope as 'phase' | 'board',
    order: row.order,
    enabled: row.enabled,
    criteria: row.criteria as ConditionGroup[],
    actionsWhenTrue: row.actionsWhenTrue as ConditionAction[],
    actionsWhenFalse: row.actionsWhenFalse as ConditionAction[],
    phase: owner ? { documentId: owner.documentId, name: owner.name } : null,
  };
}

export function presentBoard(
  s: BoardStructure,
  people: BoardMemberRow[],
  refs: Map<number, MembershipRef>,
): z.infer<typeof board> {
  const b = s.board;
  const refsOf = (kind: string) =>
    people
      .filter((m) => m.boardId === b.id && m.kind === kind)
      .map((m) => refs.get(m.membershipId))
      .filter((r): r is MembershipRef => r !== undefined);
  const phaseDoc = (id: number | null) => (id === null ? null : (s.phasesById.get(id)?.documentId ?? null));
  return {
    documentId: b.documentId,
    name: b.name,
    slug: b.slug,
    active: b.active,
    boardType: b.boardType as 'kanban' | 'chat' | 'hybrid',
    icon: b.icon,
    color: b.color,
    template: b.template,
    taskStatuses: b.taskStatuses,
    boardSettings: {
      showValue: b.showValue,
      currency: b.currency,
      wonPhase: phaseDoc(b.wonPhaseId),
      lostPhase: phaseDoc(b.lostPhaseId),
      restrictEditToAssignees: b.restrictEditToAssignees,
      restrictViewToAssignees: b.restrictViewToAssignees,
      enableProducts: b.enableProducts,
      autoUpdateCardValue: b.autoUpdateCardValue,
      autoUpdateDueDateFromPhase: b.autoUpdateDueDateFromPhase,
      formConsent: b.formConsent ?? null,
    },
    phases: s.phases.map(presentPhase),
    tags: s.tags.map(presentTag),
    owner: b.ownerMembershipId === null ? null : (refs.get(b.ownerMembershipId) ?? null),
    members: refsOf('member'),
    editors: refsOf('editor'),
    createdAt: isoRequired(b.createdAt),
    updatedAt: isoRequired(b.updatedAt),
  };
}
