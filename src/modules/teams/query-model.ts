import type { QueryModel } from '../../platform/http/list-query.js';

export const teamModel: QueryModel = {
  table: 'teams',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    description: { column: 'description', type: 'string' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  privateFields: ['id', 'organizationId'],
};
