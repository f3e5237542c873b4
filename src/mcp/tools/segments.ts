import { z } from 'zod';
import { unwrap } from '../api-client.js';
import { defined, listOutput, paging, pagingQuery, readTool, type Tool, writeTool } from '../tool-kit.js';
import { deletedOutput, docId, membershipRef } from './common.js';
import { contact } from './contacts.js';

const OPS = ['contains', 'eq', 'startsWith', 'endsWith', 'empty', 'notEmpty'] as const;

const condition = z.object({
  kind: z
    .enum(['field', 'relation', 'custom'])
    .optional()
    .describe('Omit (or field) for a contact field; relation for owner/team; custom for a customFields key'),
  field: z
    .string()
    .optional()
    .describe(
      'Contact field (phone, email, name, address, city, state, country, postal_code, cpf, cnpj, contact_type); with kind relation: owner or team',
    ),
  op: z
    .enum(OPS)
    .optional()
    .describe(
      'contains, eq, startsWith, endsWith (need value), empty, notEmpty (no value); relation: eq, empty, notEmpty',
    ),
  value: z
    .union([z.string(), z.number(), z.boolean()])
    .nullable()
    .optional()
    .describe('Compared case-insensitively; omit for empty/notEmpty and for relations'),
  slug: z.string().optional().describe('customFields key, with kind custom'),
  documentId: z
    .string()
    .optional()
    .describe('With kind relation and op eq: membership documentId (owner) or team documentId (team)'),
});

const segment = z.object({
  documentId: z.string().describe('documentId of the segment'),
  name: z.string(),
  description: z.string().nullable(),
  active: z.boolean(),
  filters: z.object({ logic: z.enum(['AND', 'OR']), conditions: z.array(condition) }),
  requiredSegments: z.array(z.string()),
  excludedSegments: z.array(z.string()),
  contactCount: z.number().describe('Contacts matching now'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const order =
  'Recommended order: crm.get_segment_filter_options (which fields, operators, owners, teams and custom keys exist), then crm.preview_segment (check the count and sample contacts), then crm.create_segment.';

const definition = {
  conditions: z
    .array(condition)
    .min(1)
    .max(50)
    .describe(
      'The conditions, 1..50, e.g. [{ "field": "city", "op": "eq", "value": "São Paulo" }, { "kind": "custom", "slug": "tier", "op": "eq", "value": "gold" }, { "kind": "relation", "field": "owner", "op": "eq", "documentId": "<membership documentId>" }]',
    ),
  logic: z
    .enum(['AND', 'OR'])
    .optional()
    .describe('How the conditions combine: AND (default, all) or OR (any)'),
  requiredSegments: z
    .array(z.string())
    .max(20)
    .optional()
    .describe('documentIds of other segments a contact must also match (all of them)'),
  excludedSegments: z
    .array(z.string())
    .max(20)
    .optional()
    .describe('documentIds of other segments a contact must not match (any of them)'),
};

const filtersOf = (a: { conditions?: z.infer<typeof condition>[]; logic?: 'AND' | 'OR' }) =>
  a.conditions ? { logic: a.logic ?? 'AND', conditions: a.conditions } : undefined;

const refOption = z.object({ documentId: z.string(), name: z.string() });

const filterOptions = z.object({
  logic: z.array(z.enum(['AND', 'OR'])),
  operators: z.array(z.object({ op: z.enum(OPS), takesValue: z.boolean(), description: z.string() })),
  fields: z.array(
    z.object({
      field: z.string(),
      label: z.string(),
      operators: z.array(z.enum(OPS)),
      values: z.array(z.string()).optional(),
    }),
  ),
  relations: z.array(
    z.object({
      field: z.string(),
      label: z.string(),
      operators: z.array(z.string()),
      optionsFrom: z.string(),
    }),
  ),
  customFields: z.object({
    operators: z.array(z.enum(OPS)),
    keys: z.array(z.object({ slug: z.string(), contacts: z.number() })),
  }),
  owners: z.array(membershipRef),
  teams: z.array(refOption),
  segments: z.array(refOption),
});

export const segmentTools: Tool[] = [
  readTool({
    name: 'list_segments',
    title: 'List segments',
    description:
      'Lists saved contact segments with their live contactCount, paged. Use it to find a segment documentId.',
    input: { search: z.string().optional().describe('Text contained in the segment name'), ...paging },
    output: listOutput(segment),
    run: (args, { api, apiUrl }) => {
      const filters = args.search ? { name: { $containsi: args.search } } : {};
      return unwrap(
        api.GET('/api/segments', { params: { query: { ...pagingQuery(args), filters } } }),
        apiUrl,
      );
    },
  }),
  readTool({
    name: 'get_segment',
    title: 'Get a segment',
    description: 'Returns one segment by documentId: its conditions, linked segments and live contactCount.',
    input: { segmentId: docId('segment') },
    output: segment,
    run: (args, { api, apiUrl }) =>
      unwrap(api.GET('/api/segments/{id}', { params: { path: { id: args.segmentId } } }), apiUrl),
  }),
  readTool({
    name: 'get_segment_filter_options',
    title: 'Segment filter options',
    description: `What segment conditions can use: contact fields with their operators and allowed values, owners (membership documentIds), teams, custom-field keys in use, and segments that can be required or excluded. ${order}`,
    input: {},
    output: filterOptions,
    run: (_args, { api, apiUrl }) => unwrap(api.GET('/api/segments/filter-options'), apiUrl),
  }),
  readTool({
    name: 'preview_segment',
    title: 'Preview a segment',
    description: `Counts and samples the contacts a segment definition would match, without saving anything. Takes the same { conditions, logic, requiredSegments, excludedSegments } as crm.create_segment. ${order}`,
    input: { ...definition, page: paging.page, pageSize: paging.pageSize },
    output: z.object({
      count: z.number().describe('All contacts matching, not only this page'),
      data: z.array(contact).describe('The requested page of matching contacts'),
      meta: z.object({
        pagination: z.object({
          page: z.number().optional(),
          pageSize: z.number().optional(),
          pageCount: z.number().optional(),
          total: z.number().optional(),
        }),
      }),
    }),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/segments/preview', {
          body: {
            filters: filtersOf(args),
            requiredSegments: args.requiredSegments,
            excludedSegments: args.excludedSegments,
            pagination: { page: args.page ?? 1, pageSize: args.pageSize ?? 25 },
          },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'create_segment',
    title: 'Create a segment',
    description: `Saves a contact segment: a name plus { conditions, requiredSegments, excludedSegments } (logic AND by default). Names are unique in the organization. ${order}`,
    input: {
      name: z.string().min(1).max(200).describe('Segment name, unique in the organization'),
      description: z.string().max(2000).optional().describe('What the segment is for'),
      active: z.boolean().optional().describe('Whether the segment is offered to campaigns (default true)'),
      ...definition,
    },
    output: segment,
    destructive: false,
    idempotent: false,
    summary: (a) => `create the segment "${a.name}" with ${a.conditions.length} condition(s)`,
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/segments', {
          body: {
            data: {
              ...defined({
                description: args.description,
                active: args.active,
                requiredSegments: args.requiredSegments,
                excludedSegments: args.excludedSegments,
              }),
              name: args.name,
              filters: { logic: args.logic ?? 'AND', conditions: args.conditions },
            },
          },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'update_segment',
    title: 'Update a segment',
    description:
      'Changes a segment given its documentId; only the keys passed change. Passing conditions replaces all conditions (with logic, default AND). Check a new definition with crm.preview_segment first.',
    input: {
      segmentId: docId('segment'),
      name: z.string().min(1).max(200).optional().describe('New name, unique in the organization'),
      description: z.string().max(2000).nullable().optional().describe('New description; null clears it'),
      active: z.boolean().optional().describe('Whether the segment is offered to campaigns'),
      ...definition,
      conditions: definition.conditions.optional(),
    },
    output: segment,
    destructive: true,
    idempotent: true,
    summary: (a) => `update the segment ${a.segmentId}`,
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.PUT('/api/segments/{id}', {
          params: { path: { id: args.segmentId } },
          body: {
            data: defined({
              name: args.name,
              description: args.description,
              active: args.active,
              filters: filtersOf(args),
              requiredSegments: args.requiredSegments,
              excludedSegments: args.excludedSegments,
            }),
          },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'delete_segment',
    title: 'Delete a segment',
    description:
      'Deletes a segment permanently, given its documentId. Contacts are not touched. Refused (422, listing them) while other segments require or exclude it.',
    input: { segmentId: docId('segment') },
    output: deletedOutput,
    destructive: true,
    idempotent: true,
    summary: (a) => `permanently delete the segment ${a.segmentId}`,
    run: (args, { api, apiUrl }) =>
      unwrap(api.DELETE('/api/segments/{id}', { params: { path: { id: args.segmentId } } }), apiUrl),
  }),
  readTool({
    name: 'resolve_segment',
    title: 'Contacts of a segment',
    description:
      'Lists the contacts that match a saved segment now (documentId from crm.list_segments), paged. For an unsaved definition use crm.preview_segment.',
    input: { segmentId: docId('segment'), ...paging },
    output: listOutput(contact),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/segments/{id}/contacts', {
          params: { path: { id: args.segmentId }, query: pagingQuery(args) },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'count_segment',
    title: 'Count a segment',
    description: 'How many contacts match a saved segment now, given its documentId.',
    input: { segmentId: docId('segment') },
    output: z.object({ documentId: z.string(), count: z.number().describe('Contacts matching now') }),
    run: (args, { api, apiUrl }) =>
      unwrap(api.GET('/api/segments/{id}/count', { params: { path: { id: args.segmentId } } }), apiUrl),
  }),
];
