import type { Tx } from '../../platform/db/client.js';
import { type FieldError, validationError } from '../../platform/http/errors.js';
import { membershipIdsByDocumentIds } from '../../platform/tenancy/memberships.js';
import type { BoardStructure, PhaseStructure } from '../boards/index.js';
import { contactIdByDocumentId } from '../contacts/index.js';
import { conditionsOf } from './board-scope.js';
import type { CommentValues } from './comments-repo.js';
import { hiddenFields } from './conditions.js';
import {
  applyDefaults,
  derivedTitle,
  type FieldWriteOptions,
  mergeFieldWrites,
  missingRequired,
  requiredErrors,
} from './fields.js';
import { type Actor, insertCards, type PreparedCard } from './insert.js';
import type { CardCreateInput } from './schema.js';
import type { Tracking } from './table.js';

/**
 * The check end of card creation (insert.ts is the write end): a new card against its board's rules, and the
 * references every card write resolves (phases, tags, members, contacts) with the 400s that list what is wrong.
 */

export function findPhase(structure: BoardStructure, ref: string): PhaseStructure | undefined {
  return structure.phases.find((p) => p.documentId === ref) ?? structure.phases.find((p) => p.slug === ref);
}

export function unknownPhase(path: string[], ref: string, structure: BoardStructure): FieldError {
  return {
    path,
    message: `no phase ${ref} on this board; phases: ${structure.phases.map((p) => p.slug).join(', ') || '(none)'}`,
    name: 'ValidationError',
  };
}

/** Tags by documentId or slug; unknown ones are a 400 that lists the board's tags. */
export function resolveTags(structure: BoardStructure, refs: string[]): number[] {
  const ids: number[] = [];
  const unknown: { ref: string; index: number }[] = [];
  refs.forEach((ref, index) => {
    const tag = structure.tags.find((t) => t.documentId === ref || t.slug === ref);
    if (!tag) unknown.push({ ref, index });
    else if (!ids.includes(tag.id)) ids.push(tag.id);
  });
  if (unknown.length) {
    const valid = structure.tags.map((t) => t.slug).join(', ') || '(none)';
    throw validationError(
      `Unknown tag ${unknown.map((u) => u.ref).join(', ')}; tags of this board: ${valid}`,
      unknown.map((u) => ({
        path: ['tags', u.index],
        message: `no tag ${u.ref} on this board`,
        name: 'ValidationError',
      })),
      { validTags: structure.tags.map((t) => ({ documentId: t.documentId, slug: t.slug, name: t.name })) },
    );
  }
  return ids;
}

export async function resolveAssignees(tx: Tx, orgId: number, refs: string[], errors: FieldError[]) {
  const unique = [...new Set(refs)];
  const { ids, missing } = await membershipIdsByDocumentIds(tx, orgId, unique);
  for (const m of missing)
    errors.push({
      path: ['assignees', refs.indexOf(m)],
      message: `no member ${m} in this organization`,
      name: 'ValidationError',
    });
  return unique.flatMap((d) => (ids.has(d) ? [ids.get(d)!] : []));
}

export async function resolveContact(tx: Tx, orgId: number, ref: string | null, errors: FieldError[]) {
  if (ref === null) return null;
  const id = await contactIdByDocumentId(tx, orgId, ref);
  if (id === undefined)
    errors.push({
      path: ['contact'],
      message: `no contact ${ref} in this organization`,
      name: 'ValidationError',
    });
  return id ?? null;
}

export function dueFromPhase(structure: BoardStructure, phase: PhaseStructure | undefined, enteredAt: Date) {
  if (!structure.settings.autoUpdateDueDateFromPhase || !phase?.maxTimeInPhaseHours) return undefined;
  return new Date(enteredAt.getTime() + phase.maxTimeInPhaseHours * 3_600_000);
}

export interface CreateOptions {
  source: 'api' | 'form' | 'lead_ads' | 'chat_inbound';
  /** A chat fills no entry form: its card skips the required-field check (the team completes it). */
  waiveRequired?: boolean;
  tracking?: Tracking | Record<string, string>;
  fieldOptions?: FieldWriteOptions;
}

/** Checks a new card against the board (a 400 listing every problem) and computes its row. */
export async function prepareCard(
  tx: Tx,
  actor: Actor,
  structure: BoardStructure,
  input: CardCreateInput,
  opts: CreateOptions,
): Promise<PreparedCard> {
  const errors: FieldError[] = [];
  const orgId = actor.orgId;
  const rules = await conditionsOf(tx, orgId, structure);
  const phase = input.currentPhase ? findPhase(structure, input.currentPhase) : structure.entryPhase;
  if (input.currentPhase && !phase)
    errors.push(unknownPhase(['currentPhase'], input.currentPhase, structure));
  const merged = await mergeFieldWrites(
    tx,
    orgId,
    structure,
    {},
    input.fields ?? {},
    errors,
    opts.fieldOptions,
  );
  const values = applyDefaults(structure.entryPhase, merged.next);
  if (!opts.waiveRequired)
    errors.push(
      ...requiredErrors(
        missingRequired(structure.entryPhase, values, hiddenFields(structure, rules, values)),
      ).filter((e) => !errors.some((x) => x.path[1] === e.path[1])),
    );
  const tagIds = input.tags ? resolveTags(structure, input.tags) : [];
  const assigneeIds = input.assignees ? await resolveAssignees(tx, orgId, input.assignees, errors) : [];
  const contactId = input.contact ? await resolveContact(tx, orgId, input.contact, errors) : null;
  if (errors.length) throw validationError(summarise(errors), errors);

  const now = new Date();
  const phaseDue = input.dueDate ? undefined : dueFromPhase(structure, phase, now);
  return {
    values: {
      title: input.title ?? derivedTitle(structure.entryPhase, values) ?? 'Untitled card',
      description: input.description ?? null,
      value: input.value ?? 0,
      dueDate: input.dueDate ? new Date(input.dueDate) : (phaseDue ?? null),
      dueDateSource: input.dueDate ? 'manual' : phaseDue ? 'phase' : null,
      currentPhaseId: phase?.id ?? null,
      currentPhaseEnteredAt: now,
      contactId,
      creationSource: opts.source,
      tracking: opts.tracking ?? {},
      fields: values,
    },
    assigneeIds,
    tagIds,
    history: historyEntry(
      0,
      actor,
      'card_created',
      `Card created (${{ form: 'public form', lead_ads: 'lead ad', chat_inbound: 'chat', api: 'API' }[opts.source]})`,
      {
        phase: phase ? { documentId: phase.documentId, name: phase.name } : null,
        creationSource: opts.source,
      },
    ),
    attach: merged.attach,
  };
}

export async function createCardIn(
  tx: Tx,
  actor: Actor,
  structure: BoardStructure,
  input: CardCreateInput,
  opts: CreateOptions,
) {
  const [row] = await insertCards(tx, actor, structure, [
    await prepareCard(tx, actor, structure, input, opts),
  ]);
  return row;
}

export function summarise(errors: FieldError[]): string {
  return errors.length === 1
    ? `${errors[0].path.join('.')}: ${errors[0].message}`
    : `${errors.length} invalid values`;
}

/** A card history entry: a system comment (card_created, phase_changed…) by the acting member, if any. */
export function historyEntry(
  cardId: number,
  actor: Actor,
  activityType: string,
  content: string,
  metadata: Record<string, unknown>,
): CommentValues {
  return {
    cardId,
    content,
    contentFormat: 'plain',
    type: 'system',
    activityType,
    mentions: [],
    authorMembershipId: actor.membershipId,
    metadata,
  };
}
