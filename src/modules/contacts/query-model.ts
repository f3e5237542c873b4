import { type SQL, sql } from 'drizzle-orm';
import { validationError } from '../../platform/http/errors.js';
import { compileOp, type FieldDef, type QueryModel } from '../../platform/http/list-query.js';
import { membershipModel } from '../../platform/tenancy/memberships.js';
import { teamModel } from '../teams/index.js';

export const CONTACT_TYPES = ['pessoa', 'empresa'] as const;

/** What the contact list (and segments) may filter and sort on: the spec's field names. */
export const contactModel: QueryModel = {
  table: 'contacts',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    email: { column: 'email', type: 'string' },
    phone: { column: 'phone', type: 'string' },
    contact_type: { column: 'contact_type', type: 'string', values: CONTACT_TYPES },
    cpf: { column: 'cpf', type: 'string' },
    cnpj: { column: 'cnpj', type: 'string' },
    address: { column: 'address', type: 'string' },
    city: { column: 'city', type: 'string' },
    state: { column: 'state', type: 'string' },
    country: { column: 'country', type: 'string' },
    postal_code: { column: 'postal_code', type: 'string' },
    birthdate: { column: 'birthdate', type: 'date' },
    first_buy_date: { column: 'first_buy_date', type: 'date' },
    ownedAt: { column: 'owned_at', type: 'datetime' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  relations: {
    owner: {
      model: () => membershipModel,
      on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."owner_id"`),
      foreignKey: 'owner_id',
    },
    team: {
      model: () => teamModel,
      on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."team_id"`),
      foreignKey: 'team_id',
    },
  },
  custom: { customFields: compileCustomFields },
  privateFields: ['id', 'organizationId', 'searchText', 'search_text', 'ownerId', 'teamId'],
  populate: ['owner', 'team'],
  selectable: ['customFields'],
};

/** The timeline list: filter by type or date; newest first by default. */
export const activityModel: QueryModel = {
  table: 'contact_activities',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    activityType: { column: 'activity_type', type: 'string' },
    description: { column: 'description', type: 'string' },
    performedAt: { column: 'performed_at', type: 'datetime' },
    createdAt: { column: 'created_at', type: 'datetime' },
  },
  privateFields: ['id', 'organizationId', 'contactId', 'actorId'],
};

/** `filters[customFields][<key>][$op]=value`: compares the key's value as text. */
function compileCustomFields(node: unknown, alias: string, path: string[]): SQL {
  const fail = (at: string[], message: string): never => {
    throw validationError(`Invalid filter filters[${at.join('][')}]: ${message}`, [
      { path: ['filters', ...at], message },
    ]);
  };
  if (!node || typeof node !== 'object' || Array.isArray(node))
    fail(path, 'expected [customFields][key][$op]');
  const parts = Object.entries(node as Record<string, unknown>).map(([key, cond]) => {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(key)) fail([...path, key], 'not a custom field key');
    const def: FieldDef = {
      column: (a) => sql`(${sql.raw(`"${a}"."custom_fields"`)} ->> ${key})`,
      type: 'string',
    };
    const col = sql`(${sql.raw(`"${alias}"."custom_fields"`)} ->> ${key})`;
    if (cond === null || typeof cond !== 'object' || Array.isArray(cond))
      return compileOp(def, col, Array.isArray(cond) ? '$in' : '$eq', cond, [...path, key]);
    return sql.join(
      Object.entries(cond as Record<string, unknown>).map(([op, v]) =>
        compileOp(def, col, op, v, [...path, key, op]),
      ),
      sql` and `,
    );
  });
  if (parts.length === 0) fail(path, 'expected at least one key');
  return sql`(${sql.join(parts, sql` and `)})`;
}
