import { z } from 'zod';
import { documentIdPattern } from '../../platform/db/ids.js';
import { paginationMeta } from '../../platform/http/list-query.js';
import { membershipRef } from '../../platform/http/schemas.js';

/** Contact string fields a condition may test (spec, SegmentFilters). */
export const STRING_FIELDS = [
  'phone',
  'email',
  'name',
  'address',
  'city',
  'state',
  'country',
  'postal_code',
  'cpf',
  'cnpj',
  'contact_type',
] as const;
export type StringField = (typeof STRING_FIELDS)[number];

export const OPERATORS = ['contains', 'eq', 'startsWith', 'endsWith', 'empty', 'notEmpty'] as const;
export type Operator = (typeof OPERATORS)[number];
export const RELATION_FIELDS = ['owner', 'team'] as const;
export const RELATION_OPERATORS = ['eq', 'empty', 'notEmpty'] as const;
export const VALUELESS: readonly Operator[] = ['empty', 'notEmpty'];
export const CONTACT_TYPES = ['pessoa', 'empresa'] as const;

/** Limits that keep one segment's compiled SQL small. */
export const MAX_CONDITIONS = 50;
export const MAX_LINKED_SEGMENTS = 20;
export const MAX_LINK_DEPTH = 5;

const conditionValue = z.union([z.string().max(500), z.number(), z.boolean()]).nullable();

export const segmentConditionShape = {
  kind: z
    .enum(['field', 'relation', 'custom'])
    .optional()
    .describe(
      'absent (or `field`): a contact string field; `relation`: owner/team by documentId; `custom`: a customFields key',
    ),
  field: z
    .string()
    .max(100)
    .optional()
    .describe(
      `string field (${STRING_FIELDS.join(', ')}), or for kind=relation \`owner\` or \`team\`; not used by kind=custom`,
    ),
  op: z
    .enum(OPERATORS)
    .optional()
    .describe('operator; required except for kind=relation (default eq, which also allows empty/notEmpty)'),
  value: conditionValue
    .optional()
    .describe('the value compared (case-insensitive); required by every op except empty and notEmpty'),
  slug: z.string().trim().min(1).max(100).optional().describe('customFields key (kind=custom)'),
  documentId: z
    .string()
    .optional()
    .describe('membership documentId (field=owner) or team documentId (field=team), kind=relation, op eq'),
};

export interface SegmentCondition {
  kind?: 'field' | 'relation' | 'custom';
  field?: string;
  op?: Operator;
  value?: string | number | boolean | null;
  slug?: string;
  documentId?: string;
}

type ConditionKey = keyof SegmentCondition;
export interface ConditionProblem {
  key: ConditionKey;
  message: string;
}

const hasValue = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

/**
 * Everything that makes one condition meaningless, each naming the key at fault. Shared by the stored
 * shape and the spec's preview shape (which renames the keys), so both report the same rules.
 */
export function conditionProblems(c: SegmentCondition): ConditionProblem[] {
  const out: ConditionProblem[] = [];
  const kind = c.kind ?? 'field';
  const forbid = (key: ConditionKey, why: string) => {
    if (c[key] !== undefined) out.push({ key, message: `${key} is not used ${why}` });
  };
  if (kind === 'relation') {
    if (!c.field || !(RELATION_FIELDS as readonly string[]).includes(c.field)) {
      out.push({ key: 'field', message: `a relation condition needs field ${RELATION_FIELDS.join(' or ')}` });
    }
    const op = c.op ?? 'eq';
    if (!(RELATION_OPERATORS as readonly string[]).includes(op)) {
      out.push({ key: 'op', message: `a relation condition takes op ${RELATION_OPERATORS.join(', ')}` });
    } else if (op === 'eq' && !(c.documentId && documentIdPattern.test(c.documentId))) {
      out.push({
        key: 'documentId',
        message: 'a relation condition with op eq needs the documentId to match',
      });
    } else if (op !== 'eq') forbid('documentId', `with op ${op}`);
    forbid('slug', 'by a relation condition');
    if (hasValue(c.value))
      out.push({ key: 'value', message: 'a relation condition takes documentId, not value' });
    return out;
  }
  if (kind === 'custom') {
    if (!c.slug) out.push({ key: 'slug', message: 'a custom-field condition needs the slug of the key' });
    if (c.field !== undefined && c.field !== c.slug)
      forbid('field', 'by a custom-field condition (use slug)');
    forbid('documentId', 'by a custom-field condition');
  } else {
    if (!c.field || !(STRING_FIELDS as readonly string[]).includes(c.field)) {
      out.push({ key: 'field', message: `field must be one of ${STRING_FIELDS.join(', ')}` });
    }
    forbid('slug', 'by a field condition (set kind: custom)');
    forbid('documentId', 'by a field condition (set kind: relation)');
  }
  if (!c.op) {
    out.push({ key: 'op', message: `op is required: one of ${OPERATORS.join(', ')}` });
    return out;
  }
  if (VALUELESS.includes(c.op)) {
    if (hasValue(c.value)) out.push({ key: 'value', message: `op ${c.op} takes no value` });
    return out;
  }
  if (!hasValue(c.value)) {
    out.push({ key: 'value', message: `op ${c.op} needs a non-empty value` });
    return out;
  }
  const text = String(c.value);
  if (kind === 'field' && (c.field === 'cpf' || c.field === 'cnpj') && !/\d/.test(text)) {
    out.push({ key: 'value', message: `${c.field} is compared by its digits: the value has none` });
  }
  if (
    kind === 'field' &&
    c.field === 'contact_type' &&
    c.op === 'eq' &&
    !CONTACT_TYPES.includes(text as never)
  ) {
    out.push({ key: 'value', message: `contact_type is one of ${CONTACT_TYPES.join(', ')}` });
  }
  return out;
}

export const segmentCondition = z
  .strictObject(segmentConditionShape)
  .superRefine((c, ctx) => {
    for (const p of conditionProblems(c)) ctx.addIssue({ code: 'custom', path: [p.key], message: p.message });
  })
  .meta({ id: 'SegmentCondition' });

export const segmentFilters = z
  .strictObject({
    logic: z.enum(['AND', 'OR']).describe('how the conditions combine'),
    conditions: z
      .array(segmentCondition)
      .min(1, 'at least one condition')
      .max(MAX_CONDITIONS, `at most ${MAX_CONDITIONS} conditions`),
  })
  .meta({ id: 'SegmentFilters' });
export type SegmentFilters = { logic: 'AND' | 'OR'; conditions: SegmentCondition[] };

const segmentRefs = (what: string) =>
  z
    .array(z.string().min(1).max(64))
    .max(MAX_LINKED_SEGMENTS, `at most ${MAX_LINKED_SEGMENTS} segments`)
    .describe(what);

const requiredSegments = segmentRefs(
  'documentIds of other segments the contact must also match (all of them)',
);
const excludedSegments = segmentRefs(
  'documentIds of other segments the contact must not match (any of them)',
);

export const segmentInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable().optional(),
  active: z.boolean().optional(),
  filters: segmentFilters,
  requiredSegments: requiredSegments.optional(),
  excludedSegments: excludedSegments.optional(),
});
export const segmentUpdate = segmentInput.partial();
export type SegmentInput = z.infer<typeof segmentInput>;
export type SegmentUpdate = z.infer<typeof segmentUpdate>;

export const segment = z
  .object({
    documentId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    active: z.boolean(),
    filters: segmentFilters,
    requiredSegments: z.array(z.string()),
    excludedSegments: z.array(z.string()),
    contactCount: z.number().int().describe('contacts matching now (computed on every read)'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Segment' });
export type Segment = z.infer<typeof segment>;

/** The spec's preview rule: `{ field, operator, value }` (jQuery QueryBuilder style). */
export const OPERATOR_ALIASES: Record<string, Operator> = {
  contains: 'contains',
  eq: 'eq',
  equal: 'eq',
  equals: 'eq',
  startsWith: 'startsWith',
  begins_with: 'startsWith',
  endsWith: 'endsWith',
  ends_with: 'endsWith',
  empty: 'empty',
  is_empty: 'empty',
  is_null: 'empty',
  notEmpty: 'notEmpty',
  is_not_empty: 'notEmpty',
  is_not_null: 'notEmpty',
};

export const previewRule = z
  .strictObject({
    field: z
      .string()
      .min(1)
      .max(120)
      .describe(
        'a string field, `owner` or `team` (value = documentId), or `customFields.<key>` for a custom field',
      ),
    operator: z.string().describe(`one of ${Object.keys(OPERATOR_ALIASES).join(', ')}`),
    value: conditionValue.optional(),
    // jQuery QueryBuilder sends these beside each rule; they carry nothing the service needs.
    id: z.string().optional(),
    type: z.string().optional(),
    input: z.string().optional(),
  })
  .superRefine((r, ctx) => {
    for (const p of ruleToCondition(r).problems) {
      ctx.addIssue({ code: 'custom', path: [ruleKey(p.key)], message: p.message });
    }
  });
export type PreviewRule = z.infer<typeof previewRule>;

const CUSTOM_PREFIXES = ['customFields.', 'custom.'];

/** The spec's preview rule as a stored condition, with the problems conditionProblems finds in it. */
export function ruleToCondition(r: PreviewRule): {
  condition: SegmentCondition;
  problems: ConditionProblem[];
} {
  const op = OPERATOR_ALIASES[r.operator];
  if (!op) {
    return {
      condition: {},
      problems: [
        {
          key: 'op',
          message: `unknown operator ${r.operator}: one of ${Object.keys(OPERATOR_ALIASES).join(', ')}`,
        },
      ],
    };
  }
  let condition: SegmentCondition;
  const prefix = CUSTOM_PREFIXES.find((p) => r.field.startsWith(p));
  if (prefix) condition = { kind: 'custom', slug: r.field.slice(prefix.length), op, value: r.value };
  else if ((RELATION_FIELDS as readonly string[]).includes(r.field)) {
    const documentId = op === 'eq' && r.value != null ? String(r.value) : undefined;
    condition = { kind: 'relation', field: r.field, op, documentId };
  } else condition = { field: r.field, op, value: r.value };
  if (condition.slug === '')
    return { condition, problems: [{ key: 'slug', message: 'the custom-field key is empty' }] };
  return { condition, problems: conditionProblems(condition) };
}

/** Where a condition key lives in the spec's rule shape. */
export function ruleKey(key: ConditionKey): string {
  if (key === 'op') return 'operator';
  if (key === 'documentId') return 'value';
  if (key === 'slug') return 'field';
  return key;
}

export const previewInput = z
  .strictObject({
    rules: z
      .strictObject({
        condition: z.enum(['AND', 'OR']),
        rules: z
          .array(previewRule)
          .min(1, 'at least one rule')
          .max(MAX_CONDITIONS, `at most ${MAX_CONDITIONS} rules`),
        valid: z.boolean().optional().describe('sent by jQuery QueryBuilder; ignored'),
      })
      .optional()
      .describe('the spec shape: `{ condition: AND|OR, rules: [{ field, operator, value }] }`'),
    filters: segmentFilters.optional().describe('the stored shape (SegmentFilters), as in POST /segments'),
    requiredSegments: requiredSegments.optional(),
    excludedSegments: excludedSegments.optional(),
    pagination: z
      .strictObject({
        page: z.number().int().min(1).default(1),
        pageSize: z.number().int().min(1).max(100).default(25),
      })
      .optional()
      .describe('which page of matching contacts to return in data (default page 1 of 25)'),
  })
  .superRefine((b, ctx) => {
    if (!b.rules === !b.filters) {
      ctx.addIssue({
        code: 'custom',
        path: ['rules'],
        message: 'send exactly one of rules (spec shape) or filters',
      });
    }
  });
export type PreviewInput = z.infer<typeof previewInput>;

export const segmentCount = z
  .object({ documentId: z.string(), count: z.number().int() })
  .meta({ id: 'SegmentCount' });

export const previewResult = <T extends z.ZodTypeAny>(contact: T) =>
  z
    .object({
      count: z.number().int().describe('all contacts matching, not only this page'),
      data: z.array(contact).describe('the requested page of matching contacts'),
      meta: z.object({ pagination: paginationMeta }),
    })
    .meta({ id: 'SegmentPreview' });

const refOption = z.object({ documentId: z.string(), name: z.string() });

export const filterOptions = z
  .object({
    logic: z.array(z.enum(['AND', 'OR'])),
    operators: z.array(z.object({ op: z.enum(OPERATORS), takesValue: z.boolean(), description: z.string() })),
    fields: z.array(
      z.object({
        field: z.enum(STRING_FIELDS),
        label: z.string(),
        operators: z.array(z.enum(OPERATORS)),
        values: z.array(z.string()).optional().describe('the allowed values, for enumerated fields'),
      }),
    ),
    relations: z.array(
      z.object({
        field: z.enum(RELATION_FIELDS),
        label: z.string(),
        operators: z.array(z.enum(RELATION_OPERATORS)),
        optionsFrom: z.enum(['owners', 'teams']).describe('which list below holds the documentIds'),
      }),
    ),
    customFields: z.object({
      operators: z.array(z.enum(OPERATORS)),
      keys: z
        .array(z.object({ slug: z.string(), contacts: z.number().int() }))
        .describe('customFields keys present on the organization contacts, with how many contacts have each'),
    }),
    owners: z.array(membershipRef).describe('members of the organization: documentIds for owner conditions'),
    teams: z.array(refOption),
    segments: z.array(refOption).describe('segments usable in requiredSegments / excludedSegments'),
  })
  .meta({ id: 'SegmentFilterOptions' });
