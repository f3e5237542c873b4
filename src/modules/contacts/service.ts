import { and, eq, inArray, type SQL } from 'drizzle-orm';
import { audit } from '../../platform/audit/audit.js';
import { commitWithNext, type Tx } from '../../platform/db/client.js';
import { type EventInput, recordEvent } from '../../platform/events/outbox.js';
import { notFound, onUnique, validationError } from '../../platform/http/errors.js';
import { compileFilterTree, compileListQuery, listPage } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { normalizePhone } from '../../platform/phones.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipIdsByDocumentIds, membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { withSavedFilter } from '../saved-filters/index.js';
import { teamIdByDocumentId, teamRefsByIds } from '../teams/index.js';
import { nameSearchOf } from './name-search.js';
import { activityModel, contactModel } from './query-model.js';
import * as repo from './repo.js';
import type {
  ActivityType,
  BulkSelection,
  BulkUpdateFields,
  Contact,
  ContactCreate,
  ContactListQuery,
  ContactUpdate,
} from './schema.js';
import { contacts } from './table.js';

type ContactRow = repo.ContactRow;

function canWrite(ctx: TenantContext, role: 'member' | 'admin' = 'member') {
  requireRole(ctx, role);
}

/** Contacts as the API shows them: owner as MembershipRef, team as TeamRef. */
/** The contact.created events of contacts made in bulk (import, lead ads, the inbox), each as GET shows it. */
export async function contactCreatedEvents(tx: Tx, orgId: number, rows: ContactRow[]): Promise<EventInput[]> {
  return (await toContacts(tx, orgId, rows)).map((contact) => ({
    type: 'contact.created',
    subject: `contact:${contact.documentId}`,
    data: { contact },
  }));
}

export async function toContacts(tx: Tx, orgId: number, rows: ContactRow[]): Promise<Contact[]> {
  const { owners, teams } = await repo.ownerAndTeamRefs(
    tx,
    orgId,
    rows.flatMap((r) => (r.ownerId ? [r.ownerId] : [])),
    rows.flatMap((r) => (r.teamId ? [r.teamId] : [])),
  );
  return rows.map((r) => ({
    documentId: r.documentId,
    name: r.name,
    email: r.email,
    phone: r.phone,
    contact_type: r.contactType as Contact['contact_type'],
    cpf: r.cpf,
    cnpj: r.cnpj,
    address: r.address,
    city: r.city,
    state: r.state,
    country: r.country,
    postal_code: r.postalCode,
    birthdate: r.birthdate,
    first_buy_date: r.firstBuyDate,
    owner: (r.ownerId && owners.get(r.ownerId)) || null,
    ownedAt: iso(r.ownedAt),
    team: (r.teamId && teams.get(r.teamId)) || null,
    customFields: r.customFields,
    createdAt: isoRequired(r.createdAt),
    updatedAt: isoRequired(r.updatedAt),
  }));
}

async function toContact(tx: Tx, orgId: number, row: ContactRow) {
  return (await toContacts(tx, orgId, [row]))[0];
}

/** Membership documentId → internal id; unknown (or another organization's) → 400 on that field. */
export async function resolveOwner(
  tx: Tx,
  orgId: number,
  documentId: string | null | undefined,
  path: string[],
) {
  if (documentId == null) return documentId;
  const { ids } = await membershipIdsByDocumentIds(tx, orgId, [documentId]);
  const id = ids.get(documentId);
  if (!id)
    throw validationError('Unknown owner', [{ path, message: 'no member of this organization has it' }]);
  return id;
}

export async function resolveTeam(
  tx: Tx,
  orgId: number,
  documentId: string | null | undefined,
  path: string[],
) {
  if (documentId == null) return documentId;
  const id = await teamIdByDocumentId(tx, orgId, documentId);
  if (!id) throw validationError('Unknown team', [{ path, message: 'no team of this organization has it' }]);
  return id;
}

function phoneOrThrow(phone: string | null | undefined, country: string | null | undefined) {
  if (phone == null) return phone;
  const res = normalizePhone(phone, country);
  if (!res.ok)
    throw validationError(`Invalid phone: ${res.message}`, [
      { path: ['data', 'phone'], message: res.message },
    ]);
  return res.phone;
}

const uniqueTaxIds = onUnique(['cpf', 'cnpj']);

/** Plain column values of a create/update body (owner, team and customFields are handled apart). */
function columnValues(input: ContactUpdate): repo.ContactValues {
  const map: Record<string, keyof repo.ContactValues> = {
    name: 'name',
    email: 'email',
    contact_type: 'contactType',
    cpf: 'cpf',
    cnpj: 'cnpj',
    address: 'address',
    city: 'city',
    state: 'state',
    country: 'country',
    postal_code: 'postalCode',
    birthdate: 'birthdate',
    first_buy_date: 'firstBuyDate',
  };
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(map)) {
    const v = (input as Record<string, unknown>)[key];
    if (v !== undefined) out[column] = v;
  }
  return out as repo.ContactValues;
}

function mergeCustomFields(current: Record<string, unknown>, patch: Record<string, unknown> | undefined) {
  const next = { ...current, ...(patch ?? {}) };
  for (const [k, v] of Object.entries(next)) if (v === null) delete next[k];
  return next;
}

/** Timeline entries for a change of owner and/or team between two states of a contact. */
async function ownerTeamEntries(
  tx: Tx,
  ctx: TenantContext,
  contactId: number,
  before: { ownerId: number | null; teamId: number | null },
  after: { ownerId: number | null; teamId: number | null },
): Promise<repo.ActivityInput[]> {
  const entries: repo.ActivityInput[] = [];
  const base = { contactId, actorId: ctx.membershipId };
  if (before.ownerId !== after.ownerId) {
    const refs = await membershipRefsByIds(
      tx,
      ctx.orgId,
      [before.ownerId, after.ownerId].filter((x): x is number => x !== null),
    );
    const from = before.ownerId ? (refs.get(before.ownerId) ?? null) : null;
    const to = after.ownerId ? (refs.get(after.ownerId) ?? null) : null;
    entries.push({
      ...base,
      activityType: before.ownerId === null ? 'owner_assigned' : 'owner_changed',
      description: to ? `Owner set to ${to.user.name ?? to.user.username}` : 'Owner removed',
      metadata: { from: from?.documentId ?? null, to: to?.documentId ?? null },
    });
  }
  if (before.teamId !== after.teamId) {
    const refs = await teamRefsByIds(
      tx,
      ctx.orgId,
      [before.teamId, after.teamId].filter((x): x is number => x !== null),
    );
    const from = before.teamId ? (refs.get(before.teamId) ?? null) : null;
    const to = after.teamId ? (refs.get(after.teamId) ?? null) : null;
    entries.push({
      ...base,
      activityType: before.teamId === null ? 'team_assigned' : 'team_changed',
      description: to ? `Team set to ${to.name}` : 'Team removed',
      metadata: { from: from?.documentId ?? null, to: to?.documentId ?? null },
    });
  }
  return entries;
}

/** Writes one timeline entry in the caller's transaction (cards log card_created/card_won/card_lost). */
export async function recordContactActivity(
  tx: Tx,
  ctx: TenantContext,
  contactId: number,
  type: ActivityType,
  description: string,
  metadata: Record<string, unknown> = {},
) {
  const [row] = await repo.insertActivities(tx, ctx.orgId, [
    { contactId, activityType: type, description, actorId: ctx.membershipId, metadata },
  ]);
  return row;
}

export async function listContacts(ctx: TenantContext, query: ContactListQuery) {
  const { q, savedFilter, ...requested } = query;
  return ctx.transaction(async (tx) => {
    const listQuery = await withSavedFilter(tx, ctx, 'contacts', savedFilter, requested);
    const list = compileListQuery(contactModel, listQuery);
    const nameSearch = nameSearchOf(listQuery.filters, q);
    const whole = !q && Object.keys(listQuery.filters ?? {}).length === 0;
    const { rows, total } = await repo.listContacts(tx, ctx.orgId, list, q, nameSearch, whole);
    // The owners and teams are the read's last statement: its commit goes with them.
    commitWithNext(tx);
    return listPage(await toContacts(tx, ctx.orgId, rows), total, list);
  });
}

export async function getContact(ctx: TenantContext, documentId: string) {
  return ctx.transaction(async (tx) => {
    const row = await repo.findContact(tx, ctx.orgId, documentId);
    if (!row) throw notFound('Contact');
    return toContact(tx, ctx.orgId, row);
  });
}

/**
 * The writes below act on the database only (their events and audit rows are in the transaction): a deadlock
 * with a concurrent write runs them again (TransactionOptions.retry).
 */
const retryable = { retry: true } as const;

export async function createContact(ctx: TenantContext, input: ContactCreate) {
  canWrite(ctx);
  return ctx.transaction(async (tx) => {
    const ownerId = (await resolveOwner(tx, ctx.orgId, input.owner, ['data', 'owner'])) ?? null;
    const teamId = (await resolveTeam(tx, ctx.orgId, input.team, ['data', 'team'])) ?? null;
    const values: repo.ContactValues = {
      ...columnValues(input),
      phone: phoneOrThrow(input.phone, input.country),
      ownerId,
      ownedAt: ownerId ? new Date() : null,
      teamId,
      customFields: mergeCustomFields({}, input.customFields),
    };
    const [row] = await repo.insertContacts(tx, ctx.orgId, [values]).catch(uniqueTaxIds);
    await repo.insertActivities(tx, ctx.orgId, [
      {
        contactId: row.id,
        activityType: 'contact_created',
        description: `Contact ${row.name} created`,
        actorId: ctx.membershipId,
      },
      ...(await ownerTeamEntries(tx, ctx, row.id, { ownerId: null, teamId: null }, row)),
    ]);
    const contact = await toContact(tx, ctx.orgId, row);
    await recordEvent(tx, ctx.orgId, 'contact.created', `contact:${row.documentId}`, { contact });
    return contact;
  }, retryable);
}

const comparable = (v: unknown) => (v instanceof Date ? v.toISOString() : JSON.stringify(v ?? null));

export async function updateContact(ctx: TenantContext, documentId: string, input: ContactUpdate) {
  canWrite(ctx);
  return ctx.transaction(async (tx) => {
    const row = await repo.findContact(tx, ctx.orgId, documentId, true);
    if (!row) throw notFound('Contact');
    const values: repo.ContactValues = columnValues(input);
    if (input.phone !== undefined) values.phone = phoneOrThrow(input.phone, input.country ?? row.country);
    if (input.owner !== undefined)
      values.ownerId = await resolveOwner(tx, ctx.orgId, input.owner, ['data', 'owner']);
    if (input.team !== undefined)
      values.teamId = await resolveTeam(tx, ctx.orgId, input.team, ['data', 'team']);
    if (input.customFields) values.customFields = mergeCustomFields(row.customFields, input.customFields);
    const changed = Object.keys(values).filter(
      (k) => comparable(values[k as keyof typeof values]) !== comparable(row[k as keyof ContactRow]),
    );
    if (changed.length === 0) return toContact(tx, ctx.orgId, row);
    if (changed.includes('ownerId')) values.ownedAt = values.ownerId ? new Date() : null;
    const updated = await repo.updateContact(tx, ctx.orgId, row.id, values).catch(uniqueTaxIds);
    await recordEvent(tx, ctx.orgId, 'contact.updated', `contact:${row.documentId}`, {
      contact: {
        documentId: updated.documentId,
        name: updated.name,
        email: updated.email,
        phone: updated.phone,
      },
      changes: changed.map(apiName),
    });
    const fields = changed.filter((k) => k !== 'ownerId' && k !== 'teamId').map(apiName);
    await repo.insertActivities(tx, ctx.orgId, [
      ...(fields.length
        ? [
            {
              contactId: row.id,
              activityType: 'contact_updated' as const,
              description: `Updated ${fields.join(', ')}`,
              actorId: ctx.membershipId,
              metadata: { fields },
            },
          ]
        : []),
      ...(await ownerTeamEntries(tx, ctx, row.id, row, updated)),
    ]);
    return toContact(tx, ctx.orgId, updated);
  }, retryable);
}

/** Column property → the field name of the API. */
export function apiName(key: string) {
  const names: Record<string, string> = {
    contactType: 'contact_type',
    postalCode: 'postal_code',
    firstBuyDate: 'first_buy_date',
  };
  return names[key] ?? key;
}

export async function deleteContact(ctx: TenantContext, documentId: string) {
  canWrite(ctx);
  return ctx.transaction(async (tx) => {
    const row = await repo.findContact(tx, ctx.orgId, documentId, true);
    if (!row) throw notFound('Contact');
    await repo.deleteContact(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'contact.deleted', row.documentId, {
      name: row.name,
      email: row.email,
      cpf: row.cpf,
      cnpj: row.cnpj,
    });
    return { documentId: row.documentId, deleted: true as const };
  }, retryable);
}

// ---------------------------------------------------------------------------------------------
// Timeline

async function toActivities(
  tx: Tx,
  ctx: TenantContext,
  rows: Awaited<ReturnType<typeof repo.insertActivities>>,
) {
  const contactsById = await repo.contactRefsByIds(
    tx,
    ctx.orgId,
    rows.map((r) => r.contactId),
  );
  const actors = await membershipRefsByIds(
    tx,
    ctx.orgId,
    rows.flatMap((r) => (r.actorId ? [r.actorId] : [])),
  );
  return rows.map((r) => ({
    documentId: r.documentId,
    activityType: r.activityType as ActivityType,
    description: r.description,
    performedAt: isoRequired(r.performedAt),
    contact: contactsById.get(r.contactId) as repo.ContactRef,
    actor: (r.actorId && actors.get(r.actorId)) || null,
    metadata: r.metadata,
  }));
}

export async function listActivities(
  ctx: TenantContext,
  documentId: string,
  query: Parameters<typeof compileListQuery>[1],
) {
  const list = compileListQuery(activityModel, query, 'performedAt:desc');
  return ctx.transaction(async (tx) => {
    const contact = await repo.findContact(tx, ctx.orgId, documentId);
    if (!contact) throw notFound('Contact');
    const { rows, total } = await repo.listActivities(tx, ctx.orgId, contact.id, list);
    return listPage(await toActivities(tx, ctx, rows), total, list);
  });
}

export async function addActivity(
  ctx: TenantContext,
  documentId: string,
  input: {
    activityType: 'note_added' | 'call_completed' | 'call_attempted';
    description: string;
    performedAt?: string;
    metadata?: Record<string, unknown>;
  },
) {
  canWrite(ctx);
  return ctx.transaction(async (tx) => {
    const contact = await repo.findContact(tx, ctx.orgId, documentId);
    if (!contact) throw notFound('Contact');
    const rows = await repo.insertActivities(tx, ctx.orgId, [
      {
        contactId: contact.id,
        activityType: input.activityType,
        description: input.description,
        actorId: ctx.membershipId,
        metadata: input.metadata,
        performedAt: input.performedAt ? new Date(input.performedAt) : undefined,
      },
    ]);
    return (await toActivities(tx, ctx, rows))[0];
  });
}

// ---------------------------------------------------------------------------------------------
// Mass operations

/** The WHERE of a selection, and the sent ids that are not contacts here. */
async function resolveSelection(tx: Tx, orgId: number, sel: BulkSelection) {
  if (sel.ids) {
    const ids = [...new Set(sel.ids)];
    const found = await tx
      .select({ documentId: contacts.documentId })
      .from(contacts)
      .where(and(eq(contacts.organizationId, orgId), inArray(contacts.documentId, ids)));
    const have = new Set(found.map((r) => r.documentId));
    return {
      where: and(eq(contacts.organizationId, orgId), inArray(contacts.documentId, ids)) as SQL,
      notFound: ids.filter((d) => !have.has(d)),
    };
  }
  const filters = compileFilterTree(contactModel, sel.filters ?? {});
  // A filter without any condition selects every contact: a typo or an unknown key must not turn a mass
  // delete into "delete everything", so that has to be said out loud.
  if (filters.conditions === 0 && sel.q === undefined && sel.all !== true) {
    throw validationError(
      'The selection matches every contact: pass all: true to confirm, or narrow the filter',
      [{ path: ['all'], message: 'pass all: true to select every contact, or narrow the filter' }],
    );
  }
  return { where: repo.selectionWhere(orgId, filters.where, sel.q), notFound: [] as string[] };
}

export async function bulkDelete(ctx: TenantContext, sel: BulkSelection) {
  canWrite(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const { where, notFound } = await resolveSelection(tx, ctx.orgId, sel);
    const deleted = await repo.deleteContactsWhere(tx, ctx.userId, where);
    return { matched: deleted, deleted, notFound };
  }, retryable);
}

export async function bulkUpdate(ctx: TenantContext, sel: BulkSelection, data: BulkUpdateFields) {
  canWrite(ctx);
  return ctx.transaction(async (tx) => {
    const { where, notFound } = await resolveSelection(tx, ctx.orgId, sel);
    const ownerId = await resolveOwner(tx, ctx.orgId, data.owner, ['data', 'owner']);
    const teamId = await resolveTeam(tx, ctx.orgId, data.team, ['data', 'team']);
    const updated = await repo.bulkUpdateContacts(tx, ctx.orgId, ctx.membershipId, where, {
      owner: data.owner === undefined ? undefined : { id: ownerId ?? null, documentId: data.owner },
      team: data.team === undefined ? undefined : { id: teamId ?? null, documentId: data.team },
      columns: columnValues({
        contact_type: data.contact_type,
        city: data.city,
        state: data.state,
        country: data.country,
      }),
      customFields: data.customFields,
    });
    return { matched: updated, updated, notFound };
  }, retryable);
}

const MERGE_FILL = [
  'email',
  'phone',
  'cpf',
  'cnpj',
  'address',
  'city',
  'state',
  'country',
  'postalCode',
  'birthdate',
  'firstBuyDate',
  'teamId',
] as const;

/**
 * Merges contacts into a survivor: its own values win, its empty fields are filled from the others (in
 * the order sent); the others' timeline, cards, conversations… move to it; then they are deleted.
 */
export async function mergeContacts(ctx: TenantContext, survivorId: string, mergedIds: string[]) {
  canWrite(ctx);
  const others = [...new Set(mergedIds)];
  if (others.includes(survivorId))
    throw validationError('The survivor cannot be merged into itself', [
      { path: ['merged'], message: 'contains the survivor' },
    ]);
  return ctx.transaction(async (tx) => {
    const rows = await repo.findContactsByDocumentIds(tx, ctx.orgId, [survivorId, ...others]);
    const byDoc = new Map(rows.map((r) => [r.documentId, r]));
    const missing = [survivorId, ...others].filter((d) => !byDoc.has(d));
    if (missing.length) throw notFound('Contact', { missing });
    const survivor = byDoc.get(survivorId) as ContactRow;
    const victims = others.map((d) => byDoc.get(d) as ContactRow);
    const victimIds = victims.map((v) => v.id);

    const activities = await repo.moveActivities(tx, ctx.orgId, victimIds, survivor.id);
    const moved = {
      contact_activities: activities,
      ...(await repo.moveContactReferences(tx, ctx.orgId, victimIds, survivor.id)),
    };

    const fill: repo.ContactValues = {};
    for (const key of MERGE_FILL) {
      if (survivor[key] !== null) continue;
      const donor = victims.find((v) => v[key] !== null);
      if (donor) Object.assign(fill, { [key]: donor[key] });
    }
    if (survivor.ownerId === null) {
      const donor = victims.find((v) => v.ownerId !== null);
      if (donor) Object.assign(fill, { ownerId: donor.ownerId, ownedAt: donor.ownedAt });
    }
    fill.customFields = Object.assign(
      {},
      ...[...victims].reverse().map((v) => v.customFields),
      survivor.customFields,
    );

    for (const v of victims) {
      await repo.deleteContact(tx, ctx.orgId, v.id);
      await audit(tx, ctx, 'contact.merged', v.documentId, {
        into: survivor.documentId,
        name: v.name,
        email: v.email,
      });
    }
    const updated = await repo.updateContact(tx, ctx.orgId, survivor.id, fill).catch(uniqueTaxIds);
    const filled = Object.keys(fill)
      .filter((k) => k !== 'customFields' && k !== 'ownedAt')
      .map(apiName);
    await repo.insertActivities(tx, ctx.orgId, [
      {
        contactId: survivor.id,
        activityType: 'contact_updated',
        description: `Merged ${victims.length} contact${victims.length > 1 ? 's' : ''} into this one`,
        actorId: ctx.membershipId,
        metadata: {
          action: 'merge',
          merged: victims.map((v) => ({
            documentId: v.documentId,
            name: v.name,
            email: v.email,
            cpf: v.cpf,
            cnpj: v.cnpj,
          })),
          filled,
          moved,
        },
      },
      ...(await ownerTeamEntries(tx, ctx, survivor.id, survivor, updated)),
    ]);
    await recordEvent(tx, ctx.orgId, 'contact.updated', `contact:${updated.documentId}`, {
      contact: {
        documentId: updated.documentId,
        name: updated.name,
        email: updated.email,
        phone: updated.phone,
      },
      changes: ['merged', ...filled],
      merged: victims.map((v) => v.documentId),
    });
    return { contact: await toContact(tx, ctx.orgId, updated), merged: others, moved };
  }, retryable);
}
