import type { Tx } from '../../platform/db/client.js';
import { AppError, type FieldError, validationError } from '../../platform/http/errors.js';
import { iso } from '../../platform/http/schemas.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import { membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import type { BoardStructure, PhaseStructure } from '../boards/index.js';
import { contactRefsByIds, recordContactActivity } from '../contacts/index.js';
import { conditionsOf } from './board-scope.js';
import { type CommentValues, recordHistory } from './comments-repo.js';
import { type ConditionRule, hiddenFields } from './conditions.js';
import { foldSometimes } from './counts.js';
import { cardChanged } from './events.js';
import {
  type FieldChange,
  mergeFieldWrites,
  missingRequired,
  requiredErrors,
  type StoredFields,
} from './fields.js';
import { type Actor, cardMeta } from './insert.js';
import {
  dueFromPhase,
  findPhase,
  historyEntry,
  resolveAssignees,
  resolveContact,
  resolveTags,
  summarise,
  unknownPhase,
} from './prepare.js';
import * as repo from './repo.js';
import type { CardUpdateInput } from './schema.js';

/** A card's update (a PUT, a move, an automation's change): checked, written, and told in its history. */

/** Records one history entry of the change being applied. */
type Note = (type: string, content: string, metadata: Record<string, unknown>) => void;

/** Who set a due date: a person (manual) unless an automation says so. */
export interface UpdateOptions {
  dueDateSource?: 'manual' | 'automation';
}

/** Every change of a PUT (and a move) in one place: validation, the row update, history, timeline. */
export async function applyUpdate(
  tx: Tx,
  actor: Actor,
  structure: BoardStructure,
  row: repo.CardRow,
  input: CardUpdateInput,
  opts: UpdateOptions = {},
): Promise<repo.CardRow> {
  const orgId = actor.orgId;
  const { rules, merged, tagIds, assigneeIds, contactId, target } = await checkUpdate(
    tx,
    orgId,
    structure,
    row,
    input,
  );
  await repo.attachFiles(tx, orgId, row.id, merged.attach);

  const history: CommentValues[] = [];
  const note: Note = (type, content, metadata) =>
    history.push(historyEntry(row.id, actor, type, content, metadata));
  const values = ownValueChanges(row, input, opts, note);
  if (merged.changes.length) values.fields = merged.next;
  for (const change of merged.changes) noteField(note, change);
  if (contactId !== undefined && contactId !== row.contactId) {
    values.contactId = contactId;
    await noteContactChange(tx, orgId, row.contactId, contactId, note);
  }
  let moved: PhaseStructure | undefined;
  let movedFrom: PhaseStructure | undefined;
  if (target && target.id !== row.currentPhaseId) {
    Object.assign(values, checkMove(structure, rules, row, merged.next, target));
    moved = target;
    const from = row.currentPhaseId === null ? undefined : structure.phasesById.get(row.currentPhaseId);
    movedFrom = from;
    note('phase_changed', `Moved from ${from?.name ?? '(no phase)'} to ${target.name}`, {
      from: from ? { documentId: from.documentId, name: from.name } : null,
      to: { documentId: target.documentId, name: target.name },
    });
  }

  if (assigneeIds) await syncAssignees(tx, orgId, row.id, assigneeIds, note);
  if (tagIds) await syncTags(tx, orgId, structure, row.id, tagIds, note);
  // Any recorded change (tags and assignees included) bumps updatedAt.
  const updated = history.length ? await repo.updateCard(tx, orgId, row.id, values) : row;
  if (history.length) await foldSometimes(tx, orgId, row.boardId);
  await recordHistory(tx, orgId, history);
  if (history.length)
    await cardChanged(
      tx,
      orgId,
      structure,
      updated,
      history.map((h) => h.activityType ?? 'updated'),
      moved ? { from: movedFrom, to: moved } : undefined,
    );
  if (moved && updated.contactId !== null && actor.ctx)
    await recordOutcome(tx, actor.ctx, structure, updated, moved);
  return updated;
}

/** The update's fields and references resolved against the board: a 400 listing every problem. */
async function checkUpdate(
  tx: Tx,
  orgId: number,
  structure: BoardStructure,
  row: repo.CardRow,
  input: CardUpdateInput,
) {
  const errors: FieldError[] = [];
  const rules = await conditionsOf(tx, orgId, structure);
  const current = row.fields as StoredFields;
  const merged = await mergeFieldWrites(tx, orgId, structure, current, input.fields ?? {}, errors, {
    cardId: row.id,
  });
  // Entry-form answers are required for every card: clearing one is refused.
  const cleared = missingRequired(
    structure.entryPhase,
    merged.next,
    hiddenFields(structure, rules, merged.next),
  ).filter((f) => !missingRequired(structure.entryPhase, current).includes(f));
  errors.push(...requiredErrors(cleared));
  const tagIds = input.tags ? resolveTags(structure, input.tags) : undefined;
  const assigneeIds = input.assignees
    ? await resolveAssignees(tx, orgId, input.assignees, errors)
    : undefined;
  const contactId =
    input.contact !== undefined ? await resolveContact(tx, orgId, input.contact, errors) : undefined;
  const target = input.currentPhase ? findPhase(structure, input.currentPhase) : undefined;
  if (input.currentPhase && !target)
    errors.push(unknownPhase(['currentPhase'], input.currentPhase, structure));
  if (errors.length) throw validationError(summarise(errors), errors);
  return { rules, merged, tagIds, assigneeIds, contactId, target };
}

/** The card's own columns that change (title, description, value, due date), each noted in its history. */
function ownValueChanges(
  row: repo.CardRow,
  input: CardUpdateInput,
  opts: UpdateOptions,
  note: Note,
): Partial<repo.CardValues> {
  const values: Partial<repo.CardValues> = {};
  if (input.title !== undefined && input.title !== row.title) {
    values.title = input.title;
    note('title_changed', `Title changed to "${input.title}"`, { from: row.title, to: input.title });
  }
  if (input.description !== undefined && input.description !== row.description) {
    values.description = input.description;
    note('description_changed', 'Description changed', {});
  }
  if (input.value !== undefined && input.value !== Number(row.value)) {
    values.value = input.value;
    note('value_changed', `Value changed from ${Number(row.value)} to ${input.value}`, {
      from: Number(row.value),
      to: input.value,
    });
  }
  if (input.dueDate !== undefined && iso(input.dueDate) !== iso(row.dueDate)) {
    values.dueDate = input.dueDate === null ? null : new Date(input.dueDate);
    values.dueDateSource = input.dueDate === null ? null : (opts.dueDateSource ?? 'manual');
    note(
      'due_date_changed',
      input.dueDate === null ? 'Due date removed' : `Due date set to ${iso(input.dueDate)}`,
      {
        from: iso(row.dueDate),
        to: iso(input.dueDate),
      },
    );
  }
  return values;
}

async function noteContactChange(
  tx: Tx,
  orgId: number,
  fromId: number | null,
  toId: number | null,
  note: Note,
) {
  const refs = await contactRefsByIds(
    tx,
    orgId,
    [toId, fromId].filter((x): x is number => x !== null),
  );
  note('contact_changed', toId === null ? 'Contact removed' : `Contact set to ${refs.get(toId)?.name}`, {
    from: fromId === null ? null : (refs.get(fromId)?.documentId ?? null),
    to: toId === null ? null : (refs.get(toId)?.documentId ?? null),
  });
}

function noteField(note: Note, c: FieldChange) {
  note('field_changed', c.to === null ? `${c.field.label} cleared` : `${c.field.label} changed`, {
    field: { documentId: c.field.documentId, slug: c.field.slug, label: c.field.label },
    from: c.from,
    to: c.to,
  });
}

/** The move rules (DESIGN.md §7): blocked transition → 422; leaving with empty required fields → 422. */
function checkMove(
  structure: BoardStructure,
  rules: ConditionRule[],
  row: repo.CardRow,
  values: StoredFields,
  target: PhaseStructure,
) {
  const from = row.currentPhaseId === null ? undefined : structure.phasesById.get(row.currentPhaseId);
  const rule = from?.allowedTransitions.find((t) => t.phaseId === target.id);
  if (rule && !rule.allowed) {
    throw new AppError(
      'UnprocessableEntityError',
      `Moving from ${from!.name} to ${target.name} is not allowed`,
      {
        from: { documentId: from!.documentId, slug: from!.slug },
        to: { documentId: target.documentId, slug: target.slug },
      },
    );
  }
  const missing = missingRequired(from, values, hiddenFields(structure, rules, values));
  if (missing.length) {
    throw new AppError(
      'UnprocessableEntityError',
      `Fill the required fields of ${from!.name} before leaving it: ${missing.map((f) => f.slug).join(', ')}`,
      { errors: requiredErrors(missing), missingFields: missing.map((f) => f.slug) },
    );
  }
  const enteredAt = new Date();
  const due = dueFromPhase(structure, target, enteredAt);
  return {
    currentPhaseId: target.id,
    currentPhaseEnteredAt: enteredAt,
    ...(due ? { dueDate: due, dueDateSource: 'phase' as const } : {}),
  };
}

/** Won/lost phases (BoardSettings) reach the contact's timeline. */
async function recordOutcome(
  tx: Tx,
  ctx: TenantContext,
  structure: BoardStructure,
  row: repo.CardRow,
  phase: PhaseStructure,
) {
  const outcome =
    phase.id === structure.settings.wonPhaseId
      ? 'card_won'
      : phase.id === structure.settings.lostPhaseId
        ? 'card_lost'
        : null;
  if (!outcome) return;
  await recordContactActivity(
    tx,
    ctx,
    row.contactId!,
    outcome,
    `Card "${row.title}" ${outcome === 'card_won' ? 'won' : 'lost'}`,
    {
      ...cardMeta(structure, row),
      value: Number(row.value),
      phase: { documentId: phase.documentId, name: phase.name },
    },
  );
}

async function syncAssignees(tx: Tx, orgId: number, cardId: number, wanted: number[], note: Note) {
  const current = (await repo.assigneeIdsByCard(tx, orgId, [cardId])).get(cardId) ?? [];
  const added = wanted.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !wanted.includes(id));
  await repo.addAssignees(tx, orgId, cardId, added);
  await repo.removeAssignees(tx, orgId, cardId, removed);
  const refs = await membershipRefsByIds(tx, orgId, [...added, ...removed]);
  for (const [list, type, verb] of [
    [added, 'assignee_added', 'assigned'],
    [removed, 'assignee_removed', 'unassigned'],
  ] as const) {
    for (const id of list) {
      const ref = refs.get(id);
      note(type, `${ref ? (ref.user.name ?? ref.user.username) : 'A member'} ${verb}`, {
        membership: ref?.documentId ?? null,
      });
    }
  }
}

async function syncTags(
  tx: Tx,
  orgId: number,
  structure: BoardStructure,
  cardId: number,
  wanted: number[],
  note: Note,
) {
  const current = (await repo.tagIdsByCard(tx, orgId, [cardId])).get(cardId) ?? [];
  const added = wanted.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !wanted.includes(id));
  await repo.addTags(tx, orgId, cardId, added);
  await repo.removeTags(tx, orgId, cardId, removed);
  const byId = new Map(structure.tags.map((t) => [t.id, t]));
  for (const [list, type, verb] of [
    [added, 'tag_added', 'added'],
    [removed, 'tag_removed', 'removed'],
  ] as const) {
    for (const id of list) {
      const tag = byId.get(id);
      note(type, `Tag ${tag?.name ?? id} ${verb}`, {
        tag: tag ? { documentId: tag.documentId, slug: tag.slug } : null,
      });
    }
  }
}
