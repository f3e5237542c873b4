import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { type EventInput, recordEvents } from '../../platform/events/outbox.js';
import { AppError, onUnique, validationError } from '../../platform/http/errors.js';
import { ownEntry } from '../../platform/http/own.js';
import { normalizePhone } from '../../platform/phones.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import {
  consentColumnTarget,
  type ImportedConsent,
  importedConsent,
  isConsentTarget,
  recordImported,
} from '../consents/index.js';
import { memberships } from '../organizations/table.js';
import { teams } from '../teams/table.js';
import { users } from '../users/table.js';
import * as repo from './repo.js';
import { contactUpdate, IMPORT_FIELDS, type ImportOptions, type ImportResult } from './schema.js';
import { apiName, contactCreatedEvents } from './service.js';
import { contacts } from './table.js';

/**
 * CSV import (docs/contacts.md): streamed through csv-parse in batches of BATCH rows, so only one batch
 * of rows and the match keys seen so far are in memory. Rows that fail are reported and skipped; the
 * others are created or, when a cpf / cnpj / email matches, update the existing contact (upsert). A dry
 * run does the same reads and reports the same counts without writing.
 */
const BATCH = 500;
const MAX_ERRORS = 1000;

type Field = (typeof IMPORT_FIELDS)[number];

const ALIASES: Record<string, Field> = {
  nome: 'name',
  nome_completo: 'name',
  razao_social: 'name',
  e_mail: 'email',
  telefone: 'phone',
  celular: 'phone',
  whatsapp: 'phone',
  tipo: 'contact_type',
  type: 'contact_type',
  endereco: 'address',
  cidade: 'city',
  estado: 'state',
  uf: 'state',
  pais: 'country',
  cep: 'postal_code',
  zip: 'postal_code',
  zip_code: 'postal_code',
  data_nascimento: 'birthdate',
  data_de_nascimento: 'birthdate',
  nascimento: 'birthdate',
  data_primeira_compra: 'first_buy_date',
  responsavel: 'owner',
  dono: 'owner',
  equipe: 'team',
  time: 'team',
};

const normalizeHeader = (h: string) =>
  h
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

/** Header → target (`name`, `customFields.<key>`), from the explicit mapping first, then by name. */
export function mapColumns(header: string[], mapping: Record<string, string> | undefined) {
  const targets: (string | null)[] = [];
  const errors: { path: string[]; message: string }[] = [];
  for (const [from, to] of Object.entries(mapping ?? {})) {
    if (!header.includes(from))
      errors.push({ path: ['mapping', from], message: 'no such column in the file' });
    if (to !== 'ignore' && !isTarget(to))
      errors.push({
        path: ['mapping', from],
        message: `not a contact field: ${IMPORT_FIELDS.join(', ')}, customFields.<key>, consent.<whatsapp|email|sms>.<marketing|transactional> or ignore`,
      });
  }
  if (errors.length) throw validationError('Invalid column mapping', errors);
  for (const h of header) {
    const explicit = ownEntry(mapping, h);
    if (explicit) {
      targets.push(explicit === 'ignore' ? null : explicit);
      continue;
    }
    const custom = /^(?:customfields|custom)\.(.+)$/i.exec(h.trim());
    const n = normalizeHeader(h);
    const auto = custom
      ? `customFields.${custom[1]}`
      : (IMPORT_FIELDS as readonly string[]).includes(n)
        ? n
        : (ownEntry(ALIASES, n) ?? consentColumnTarget(n));
    targets.push(auto && isTarget(auto) ? auto : null);
  }
  const used = targets.filter(Boolean);
  const dup = used.find((t, i) => used.indexOf(t) !== i);
  if (dup)
    throw validationError('Invalid column mapping', [
      { path: ['mapping'], message: `two columns map to ${dup}` },
    ]);
  return targets;
}

function isTarget(t: string) {
  return (
    (IMPORT_FIELDS as readonly string[]).includes(t) ||
    /^customFields\.[A-Za-z0-9_.-]{1,64}$/.test(t) ||
    isConsentTarget(t)
  );
}

/** dd/mm/yyyy (Brazilian spreadsheets) → yyyy-mm-dd; anything else is left to the schema. */
const isoDate = (v: string) => v.replace(/^(\d{2})\/(\d{2})\/(\d{4})$/, '$3-$2-$1');

export interface Lookup {
  owners: Map<string, number>;
  teams: Map<string, number>;
  ownerDocs: Map<number, string>;
  teamDocs: Map<number, string>;
}

export async function loadLookups(tx: Tx, orgId: number): Promise<Lookup> {
  const members = await tx
    .select({ id: memberships.id, documentId: memberships.documentId, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, orgId));
  const teamRows = await tx
    .select({ id: teams.id, documentId: teams.documentId, name: teams.name })
    .from(teams)
    .where(eq(teams.organizationId, orgId));
  return {
    owners: new Map(
      members.flatMap((m) => [[m.documentId, m.id] as const, [m.email.toLowerCase(), m.id] as const]),
    ),
    teams: new Map(
      teamRows.flatMap((t) => [[t.documentId, t.id] as const, [t.name.toLowerCase(), t.id] as const]),
    ),
    ownerDocs: new Map(members.map((m) => [m.id, m.documentId])),
    teamDocs: new Map(teamRows.map((t) => [t.id, t.documentId])),
  };
}

export interface ParsedRow {
  row: number;
  line: number;
  values: repo.ContactValues;
  custom: Record<string, unknown>;
  /** The row's consent cells (docs/lgpd.md, "Consent sources"): recorded in the ledger with the contact. */
  consents: ImportedConsent[];
}

export type RowError = ImportResult['errors'][number];

/** One CSV record → contact values, or the first problem found in it. */
export function parseRow(
  record: string[],
  targets: (string | null)[],
  lookup: Lookup,
  at: { row: number; line: number },
): ParsedRow | RowError {
  const input: Record<string, string> = {};
  const custom: Record<string, unknown> = {};
  const consents: ImportedConsent[] = [];
  let consentError: RowError | undefined;
  targets.forEach((t, i) => {
    const v = record[i]?.trim();
    if (!t || !v) return;
    if (t.startsWith('consent.')) {
      const c = importedConsent(t, v);
      if (typeof c === 'string') consentError ??= { ...at, field: t, message: c };
      else if (c) consents.push(c);
    } else if (t.startsWith('customFields.')) custom[t.slice('customFields.'.length)] = v;
    else input[t] = t === 'birthdate' || t === 'first_buy_date' ? isoDate(v) : v;
  });
  const fail = (field: string | null, message: string): RowError => ({ ...at, field, message });
  // PostgreSQL text cannot hold a NUL byte: the row is reported, not the whole import failed.
  const nul = record.findIndex((v) => v?.includes('\u0000'));
  if (nul !== -1) return fail(targets[nul] ?? null, 'contains a NUL character');
  if (consentError) return consentError;
  const { owner, team, ...rest } = input;
  const parsed = contactUpdate.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(String(issue.path[0] ?? ''), issue.message);
  }
  const values: repo.ContactValues = {};
  const data = parsed.data;
  const columns: [keyof typeof data, keyof repo.ContactValues][] = [
    ['name', 'name'],
    ['email', 'email'],
    ['contact_type', 'contactType'],
    ['cpf', 'cpf'],
    ['cnpj', 'cnpj'],
    ['address', 'address'],
    ['city', 'city'],
    ['state', 'state'],
    ['country', 'country'],
    ['postal_code', 'postalCode'],
    ['birthdate', 'birthdate'],
    ['first_buy_date', 'firstBuyDate'],
  ];
  for (const [from, to] of columns) if (data[from] != null) Object.assign(values, { [to]: data[from] });
  if (data.phone) {
    const phone = normalizePhone(data.phone, data.country);
    if (!phone.ok) return fail('phone', phone.message);
    values.phone = phone.phone;
  }
  if (owner) {
    const id = lookup.owners.get(owner) ?? lookup.owners.get(owner.toLowerCase());
    if (!id) return fail('owner', 'no member of this organization has this documentId or email');
    values.ownerId = id;
  }
  if (team) {
    const id = lookup.teams.get(team) ?? lookup.teams.get(team.toLowerCase());
    if (!id) return fail('team', 'no team of this organization has this documentId or name');
    values.teamId = id;
  }
  return { ...at, values, custom, consents };
}

/** What an import may match existing contacts by (the background import chooses: docs/contacts.md). */
export const MATCH_KEYS = ['cpf', 'cnpj', 'email', 'phone'] as const;
export type MatchKey = (typeof MATCH_KEYS)[number];
const DEFAULT_MATCH: readonly MatchKey[] = ['cpf', 'cnpj', 'email'];

/** Match keys of a row, strongest first: cpf, cnpj, then email (then phone), those chosen. */
function keysOf(v: repo.ContactValues, match: readonly MatchKey[] = DEFAULT_MATCH): string[] {
  return match.flatMap((k) => (v[k] ? [`${k}:${v[k]}`] : []));
}

/** A contact a batch writes: an existing one (id) or a new one (tag) and the values it gets. */
interface Target {
  id: number | null;
  tag: string;
  before: repo.ContactRow | null;
  values: repo.ContactValues;
  custom: Record<string, unknown>;
  rows: number[];
  keys: string[];
  consents: ImportedConsent[];
}

export async function importContacts(
  ctx: TenantContext,
  source: AsyncIterable<Buffer | string>,
  opts: ImportOptions,
): Promise<ImportResult> {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    await forgetPlans(tx);
    const lookup = await loadLookups(tx, ctx.orgId);
    const result: ImportResult = {
      dryRun: opts.dryRun,
      rows: 0,
      created: 0,
      updated: 0,
      failed: 0,
      columns: {},
      ignoredColumns: [],
      errors: [],
      errorsTruncated: false,
    };
    const report = (e: RowError) => {
      result.failed++;
      if (result.errors.length < MAX_ERRORS) result.errors.push(e);
      else result.errorsTruncated = true;
    };
    // Match key → contact id, or the tag of a contact this import creates (dry run: never written).
    const claimed = new Map<string, number | string>();
    let targets: (string | null)[] | null = null;
    let batch: ParsedRow[] = [];
    const flush = async () => {
      await writeBatch(tx, ctx, batch, claimed, lookup, opts.dryRun, result, report);
      batch = [];
    };
    for await (const { record, info } of parseCsv(source, opts.delimiter)) {
      if (!targets) {
        targets = mapColumns(record, opts.mapping);
        record.forEach((h, i) => {
          const t = (targets as (string | null)[])[i];
          if (t) result.columns[h] = t;
          else result.ignoredColumns.push(h);
        });
        continue;
      }
      result.rows++;
      const parsed = parseRow(record, targets, lookup, { row: result.rows, line: info.lines });
      if ('message' in parsed) report(parsed);
      else batch.push(parsed);
      if (batch.length >= BATCH) await flush();
    }
    if (!targets)
      throw validationError('The CSV is empty', [{ path: ['file'], message: 'expected a header row' }]);
    await flush();
    result.errors.sort((a, b) => a.row - b.row);
    return result;
  });
}

/**
 * The foreign-key check of every timeline row (contact_activities → contacts) runs a plan the connection cached
 * when the table was small, a sequential scan: as an import grows the table, each check would scan it (measured on
 * PGlite: 25k rows 65 s, quadratic). Forgetting the connection's cached plans makes the check plan again with the
 * table's size of now (an index probe once the batch's contacts are in). Forcing custom plans for the whole
 * transaction did the same but planned the check once per row: 6 times its cost (16 → 103 ms per 2,000 rows).
 */
export async function forgetPlans(tx: Tx) {
  await tx.execute(sql`discard plans`);
}

async function* parseCsv(source: AsyncIterable<Buffer | string>, delimiter: string) {
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  const head = String(first.value).split(/\r?\n/, 1)[0];
  const chosen =
    delimiter === 'tab'
      ? '\t'
      : delimiter !== 'auto'
        ? delimiter
        : [';', '\t', ','].reduce(
            (best, d) => (head.split(d).length > head.split(best).length ? d : best),
            ',',
          );
  const rest = { [Symbol.asyncIterator]: () => iterator };
  const input = Readable.from(
    (async function* () {
      yield first.value;
      yield* rest;
    })(),
  );
  const parser = input.pipe(
    parse({ delimiter: chosen, bom: true, relax_column_count: true, skip_empty_lines: true, info: true }),
  );
  input.on('error', (err) => parser.destroy(err));
  try {
    for await (const item of parser) yield item as { record: string[]; info: { lines: number } };
  } catch (err) {
    if (err instanceof AppError || (err as { statusCode?: number }).statusCode) throw err;
    throw validationError(`Malformed CSV: ${(err as Error).message}`, [
      { path: ['file'], message: (err as Error).message },
    ]);
  }
}

export async function writeBatch(
  tx: Tx,
  ctx: TenantContext,
  rows: ParsedRow[],
  claimed: Map<string, number | string>,
  lookup: Lookup,
  dryRun: boolean,
  result: Pick<ImportResult, 'created' | 'updated'>,
  report: (e: RowError) => void,
  match: readonly MatchKey[] = DEFAULT_MATCH,
) {
  if (rows.length === 0) return;
  const existing = await findExisting(tx, ctx.orgId, rows, claimed, match);
  const byId = new Map(existing.map((c) => [c.id, c]));
  for (const c of existing) for (const k of keysOf(c, match)) if (!claimed.has(k)) claimed.set(k, c.id);
  const batchTargets = new Map<string, Target>();
  const targetOf = (ref: number | string): Target => {
    const tag = String(ref);
    let t = batchTargets.get(tag);
    if (!t) {
      const before = typeof ref === 'number' ? (byId.get(ref) ?? null) : null;
      t = {
        id: typeof ref === 'number' ? ref : null,
        tag,
        before,
        values: {},
        custom: {},
        rows: [],
        keys: [],
        consents: [],
      };
      batchTargets.set(tag, t);
    }
    return t;
  };
  for (const row of rows) {
    const keys = keysOf(row.values, match);
    const matchKey = keys.find((k) => claimed.has(k));
    const ref = matchKey ? (claimed.get(matchKey) as number | string) : `new:${row.row}`;
    // A cpf/cnpj already belonging to a different contact cannot move to this one.
    const clash = keys.find((k) => /^cpf:|^cnpj:/.test(k) && claimed.has(k) && claimed.get(k) !== ref);
    if (clash) {
      const field = clash.split(':')[0];
      report({ row: row.row, line: row.line, field, message: `${field} already belongs to another contact` });
      continue;
    }
    const isNew = !matchKey;
    if (isNew && !row.values.name) {
      report({
        row: row.row,
        line: row.line,
        field: 'name',
        message: 'name is required to create a contact',
      });
      continue;
    }
    const target = targetOf(ref);
    Object.assign(target.values, row.values);
    Object.assign(target.custom, row.custom);
    target.rows.push(row.row);
    target.consents.push(...row.consents);
    target.keys.push(...keys);
    for (const k of keys) claimed.set(k, ref);
    if (isNew) result.created++;
    else result.updated++;
  }
  if (!dryRun) await applyTargets(tx, ctx, [...batchTargets.values()], claimed, lookup);
}

/** Existing contacts a batch may touch: by its cpf/cnpj/email, and those it already claimed. */
async function findExisting(
  tx: Tx,
  orgId: number,
  rows: ParsedRow[],
  claimed: Map<string, number | string>,
  match: readonly MatchKey[],
) {
  const of = (k: MatchKey) =>
    match.includes(k) ? rows.flatMap((r) => (r.values[k] ? [r.values[k]] : [])) : [];
  const cpfs = of('cpf');
  const cnpjs = of('cnpj');
  const emails = of('email');
  const phones = of('phone');
  const ids = rows.flatMap((r) =>
    keysOf(r.values, match).flatMap((k) => {
      const ref = claimed.get(k);
      return typeof ref === 'number' ? [ref] : [];
    }),
  );
  const conds: SQL[] = [];
  if (cpfs.length) conds.push(inArray(contacts.cpf, cpfs));
  if (cnpjs.length) conds.push(inArray(contacts.cnpj, cnpjs));
  if (emails.length) conds.push(inArray(contacts.email, emails));
  if (phones.length) conds.push(inArray(contacts.phone, phones));
  if (ids.length) conds.push(inArray(contacts.id, ids));
  if (conds.length === 0) return [];
  // Oldest first: when several contacts share an email, the import updates the oldest.
  return tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), or(...conds)))
    .orderBy(contacts.id)
    .for('update');
}

async function applyTargets(
  tx: Tx,
  ctx: TenantContext,
  targets: Target[],
  claimed: Map<string, number | string>,
  lookup: Lookup,
) {
  const fresh = targets.filter((t) => t.id === null);
  const inserted = await repo
    .insertContacts(
      tx,
      ctx.orgId,
      fresh.map((t) => ({
        ...t.values,
        ownedAt: t.values.ownerId ? new Date() : null,
        customFields: t.custom,
      })),
    )
    .catch(onUnique(['cpf', 'cnpj']));
  const activities: repo.ActivityInput[] = [];
  const actorId = ctx.membershipId;
  // The per-record events of single writes (contact.created with the contact as GET shows it, contact.updated
  // naming the changed fields), in this transaction: an import is many creations and updates, not a silent one.
  const events: EventInput[] = await contactCreatedEvents(tx, ctx.orgId, inserted);
  inserted.forEach((row, i) => {
    fresh[i].id = row.id;
    for (const k of fresh[i].keys) claimed.set(k, row.id);
    activities.push({
      contactId: row.id,
      activityType: 'contact_created',
      description: `Contact ${row.name} created by import`,
      actorId,
      metadata: { source: 'import', rows: fresh[i].rows },
    });
    activities.push(...ownerTeamActivities(row.id, actorId, null, row, lookup));
  });
  for (const t of targets) {
    if (!t.before) continue;
    const values: repo.ContactValues = { ...t.values };
    if (Object.keys(t.custom).length) values.customFields = { ...t.before.customFields, ...t.custom };
    if (values.ownerId !== undefined && values.ownerId !== t.before.ownerId) values.ownedAt = new Date();
    const fields = Object.keys(values).filter(
      (k) =>
        JSON.stringify(values[k as keyof repo.ContactValues]) !==
        JSON.stringify(t.before?.[k as keyof repo.ContactRow]),
    );
    if (fields.length === 0) continue;
    const row = await repo.updateContact(tx, ctx.orgId, t.before.id, values).catch(onUnique(['cpf', 'cnpj']));
    events.push({
      type: 'contact.updated',
      subject: `contact:${row.documentId}`,
      data: {
        contact: { documentId: row.documentId, name: row.name, email: row.email, phone: row.phone },
        changes: fields.filter((f) => f !== 'ownedAt').map(apiName),
      },
    });
    const plain = fields.filter((f) => f !== 'ownerId' && f !== 'teamId' && f !== 'ownedAt');
    if (plain.length)
      activities.push({
        contactId: row.id,
        activityType: 'contact_updated',
        description: 'Contact updated by import',
        actorId,
        metadata: { source: 'import', rows: t.rows, fields: plain },
      });
    activities.push(...ownerTeamActivities(row.id, actorId, t.before, row, lookup));
  }
  await repo.insertActivities(tx, ctx.orgId, activities);
  await recordEvents(tx, ctx.orgId, events);
  await recordImported(
    tx,
    ctx.orgId,
    ctx.membershipId,
    targets.flatMap((t) =>
      t.id !== null && t.consents.length ? [{ contactId: t.id, consents: t.consents, rows: t.rows }] : [],
    ),
  );
}

function ownerTeamActivities(
  contactId: number,
  actorId: number,
  before: { ownerId: number | null; teamId: number | null } | null,
  after: { ownerId: number | null; teamId: number | null },
  lookup: Lookup,
): repo.ActivityInput[] {
  const out: repo.ActivityInput[] = [];
  const prevOwner = before?.ownerId ?? null;
  const prevTeam = before?.teamId ?? null;
  if (after.ownerId !== prevOwner)
    out.push({
      contactId,
      actorId,
      activityType: prevOwner === null ? 'owner_assigned' : 'owner_changed',
      description: 'Owner set by import',
      metadata: {
        source: 'import',
        from: prevOwner ? (lookup.ownerDocs.get(prevOwner) ?? null) : null,
        to: after.ownerId ? (lookup.ownerDocs.get(after.ownerId) ?? null) : null,
      },
    });
  if (after.teamId !== prevTeam)
    out.push({
      contactId,
      actorId,
      activityType: prevTeam === null ? 'team_assigned' : 'team_changed',
      description: 'Team set by import',
      metadata: {
        source: 'import',
        from: prevTeam ? (lookup.teamDocs.get(prevTeam) ?? null) : null,
        to: after.teamId ? (lookup.teamDocs.get(after.teamId) ?? null) : null,
      },
    });
  return out;
}
