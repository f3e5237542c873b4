import { createHash } from 'node:crypto';
import type { Tx } from '../../platform/db/client.js';
import type { FieldError } from '../../platform/http/errors.js';
import {
  type BoardStructure,
  type FieldStructure,
  type PhaseStructure,
  presentField,
} from '../boards/index.js';
import { isEmptyValue, validateFieldValue } from './field-values.js';
import * as repo from './repo.js';

/**
 * Dynamic field values of a card: written as a flat slug → value map, stored in `cards.fields` keyed by
 * field documentId (docs/cards.md). This module turns one into the other, validating by type.
 */

export type StoredFields = Record<string, unknown>;

export interface FieldChange {
  field: FieldStructure;
  from: unknown;
  to: unknown;
}

export interface FieldWriteOptions {
  /** Only these phases' fields may be written (the public form: the entry phase). */
  phaseIds?: Set<number>;
  /** The card written (none on create): its own uploads may be sent again. */
  cardId?: number;
}

/**
 * Merges `input` (slug → value; null clears) into `current`: unsent slugs keep their value. Validation
 * problems are appended to `errors` with paths ['fields', slug]; the merge of the valid ones is returned.
 */
export async function mergeFieldWrites(
  tx: Tx,
  orgId: number,
  structure: BoardStructure,
  current: StoredFields,
  input: Record<string, unknown>,
  errors: FieldError[],
  opts: FieldWriteOptions = {},
): Promise<{ next: StoredFields; changes: FieldChange[]; attach: number[] }> {
  const next: StoredFields = { ...current };
  const links: { field: FieldStructure; ids: string[] }[] = [];
  const files: { field: FieldStructure; ids: string[] }[] = [];
  const writable = [...structure.fieldsBySlug.values()].filter(
    (f) => f.type !== 'statement' && (!opts.phaseIds || opts.phaseIds.has(f.phaseId)),
  );
  for (const [slug, raw] of Object.entries(input)) {
    const field = structure.fieldsBySlug.get(slug);
    if (!field || (opts.phaseIds && !opts.phaseIds.has(field.phaseId))) {
      errors.push({
        path: ['fields', slug],
        message: `unknown field; valid fields: ${writable.map((f) => f.slug).join(', ') || '(none)'}`,
        name: 'ValidationError',
      });
      continue;
    }
    if (raw === null) {
      delete next[field.documentId];
      continue;
    }
    const check = validateFieldValue(field, raw);
    if (!check.ok) {
      errors.push({
        path: ['fields', slug],
        message: `${field.label} ${check.message}`,
        name: 'ValidationError',
        value: raw,
      });
      continue;
    }
    next[field.documentId] = check.value;
    if (field.type === 'card_link') links.push({ field, ids: [check.value as string[] | string].flat() });
    if (field.type === 'file') files.push({ field, ids: check.value as string[] });
  }
  await checkCardLinks(tx, orgId, links, errors);
  const attach = await resolveFiles(tx, orgId, structure.board.id, opts.cardId, files, next, errors);
  const changes: FieldChange[] = [];
  for (const field of structure.fieldsBySlug.values()) {
    const from = current[field.documentId];
    const to = next[field.documentId];
    if (JSON.stringify(from) !== JSON.stringify(to))
      changes.push({ field, from: from ?? null, to: to ?? null });
  }
  return { next, changes, attach };
}

async function checkCardLinks(
  tx: Tx,
  orgId: number,
  links: { field: FieldStructure; ids: string[] }[],
  errors: FieldError[],
) {
  const found = await repo.existingCardDocumentIds(tx, orgId, [...new Set(links.flatMap((l) => l.ids))]);
  for (const { field, ids } of links) {
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length)
      errors.push({
        path: ['fields', field.slug],
        message: `${field.label}: no card ${missing.join(', ')} in this organization`,
        name: 'ValidationError',
      });
  }
}

/**
 * File values become FileRefs of uploads made to this board that belong to no other card; other ids are
 * rejected. Answers the ids of the uploads the card takes (files.ts: they then go with it).
 */
async function resolveFiles(
  tx: Tx,
  orgId: number,
  boardId: number,
  cardId: number | undefined,
  files: { field: FieldStructure; ids: string[] }[],
  next: StoredFields,
  errors: FieldError[],
): Promise<number[]> {
  const found = await repo.filesByDocumentIds(tx, orgId, boardId, [...new Set(files.flatMap((f) => f.ids))]);
  for (const { field, ids } of files) {
    const missing = ids.filter((id) => !found.has(id));
    const taken = ids.filter((id) => {
      const owner = found.get(id)?.cardId ?? null;
      return owner !== null && owner !== cardId;
    });
    if (missing.length || taken.length) {
      errors.push({
        path: ['fields', field.slug],
        message: missing.length
          ? `${field.label}: no uploaded file ${missing.join(', ')} on this board (upload it through public-upload)`
          : `${field.label}: the file ${taken.join(', ')} belongs to another card (upload it again for this one)`,
        name: 'ValidationError',
      });
      delete next[field.documentId];
      continue;
    }
    next[field.documentId] = ids.map((id) => {
      const f = found.get(id)!;
      return { documentId: f.documentId, name: f.name, mimeType: f.mimeType, size: f.size };
    });
  }
  return [...found.values()].filter((f) => f.cardId === null).map((f) => f.id);
}

/** Default values (FieldDefinition.defaultValue, a string) of a phase's unfilled fields, when valid. */
export function applyDefaults(phase: PhaseStructure | undefined, values: StoredFields): StoredFields {
  const out = { ...values };
  for (const field of phase?.fields ?? []) {
    if (field.defaultValue === null || field.documentId in out) continue;
    if (field.type === 'file' || field.type === 'card_link') continue;
    const check = validateFieldValue(field, field.defaultValue);
    if (check.ok) out[field.documentId] = check.value;
  }
  return out;
}

/** Required fields of a phase that are empty in `values`, except those field conditions hide. */
export function missingRequired(
  phase: PhaseStructure | undefined,
  values: StoredFields,
  hidden: Set<string> = new Set(),
): FieldStructure[] {
  return (phase?.fields ?? []).filter(
    (f) =>
      f.required &&
      f.type !== 'statement' &&
      !hidden.has(f.documentId) &&
      isEmptyValue(f.type, values[f.documentId]),
  );
}

export function requiredErrors(missing: FieldStructure[]): FieldError[] {
  return missing.map((f) => ({
    path: ['fields', f.slug],
    message: `${f.label} is required`,
    name: 'ValidationError',
  }));
}

/** The read shape: slug → value of every filled field that still exists on the board. */
export function readFields(structure: BoardStructure, stored: StoredFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of structure.fieldsBySlug.values()) {
    if (field.documentId in stored) out[field.slug] = stored[field.documentId];
  }
  return out;
}

/** A FieldDataItem's documentId: derived from card and field (values are not rows of their own). */
function fieldDataId(cardDocumentId: string, fieldDocumentId: string): string {
  const digest = createHash('sha256').update(`${cardDocumentId}:${fieldDocumentId}`).digest();
  return BigInt(`0x${digest.toString('hex')}`)
    .toString(36)
    .slice(0, 24)
    .padStart(24, '0');
}

/** The raw form (spec: FieldDataItem), for `populate=fieldData`. */
export function readFieldData(structure: BoardStructure, cardDocumentId: string, stored: StoredFields) {
  const out = [];
  for (const phase of structure.phases) {
    for (const field of phase.fields) {
      if (!(field.documentId in stored)) continue;
      const { phase: phaseRef, ...definition } = presentField(field, phase);
      out.push({
        documentId: fieldDataId(cardDocumentId, field.documentId),
        value: { val: stored[field.documentId] },
        field: definition,
        phase: phaseRef,
      });
    }
  }
  return out;
}

/** A title for a card created without one: the first filled text-like field of the entry phase. */
export function derivedTitle(phase: PhaseStructure | undefined, values: StoredFields): string | undefined {
  for (const type of ['text', 'email', 'phone'] as const) {
    const field = phase?.fields.find((f) => f.type === type && typeof values[f.documentId] === 'string');
    const v = field ? (values[field.documentId] as string).trim() : '';
    if (v) return v.slice(0, 500);
  }
  return undefined;
}

/** Label of a select/radio option value (for aggregate groups). */
export function optionLabel(field: FieldStructure, value: string): string {
  const option = field.options.find((o) => (typeof o === 'string' ? o : o.value) === value);
  return option === undefined ? value : typeof option === 'string' ? option : option.label;
}
