import { sql } from 'drizzle-orm';
import type { QueryModel } from '../../platform/http/list-query.js';
import { membershipModel } from '../organizations/repo.js';
import { teamModel } from '../teams/query-model.js';

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
    customFields: { column: 'custom_fields', type: 'json', sortable: false },
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
  privateFields: ['id', 'organizationId', 'searchText', 'search_text', 'ownerId', 'teamId'],
  populate: ['owner', 'team'],
};
