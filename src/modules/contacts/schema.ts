import { z } from 'zod';
import { listQueryShape } from '../../platform/http/list-query.js';
import { membershipRef } from '../../platform/http/schemas.js';
import { savedFilterParam } from '../saved-filters/index.js';
import { parseCnpj, parseCpf } from './documents.js';
import { CONTACT_TYPES } from './query-model.js';
import { searchTerms } from './search.js';

export const ACTIVITY_TYPES = [
  'contact_created',
  'contact_updated',
  'owner_assigned',
  'owner_changed',
  'team_assigned',
  'team_changed',
  'card_created',
  'card_won',
  'card_lost',
  'email_sent',
  'whatsapp_sent',
  'note_added',
  'call_completed',
  'call_attempted',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** Optional text: trimmed; empty means null. */
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v ? v : v === undefined ? undefined : null));

const taxId = (kind: 'CPF' | 'CNPJ', parse: (s: string) => string | null) =>
  z
    .string()
    .nullish()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      if (v === null || v.trim() === '') return null;
      const bare = parse(v);
      if (!bare) {
        ctx.addIssue({ code: 'custom', message: `not a valid ${kind}` });
        return z.NEVER;
      }
      return bare;
    })
    .describe(`${kind}, masked or bare; stored bare, unique per organization`);

const dateOnly = z.iso.date().nullish().describe('YYYY-MM-DD');

export const customFieldsInput = z
  .record(
    z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . -'),
    z.unknown(),
  )
  .refine((o) => Object.keys(o).length <= 100, 'at most 100 custom fields')
  .describe('map key to value; on update only the keys sent change, null removes a key');

const contactFields = {
  name: z.string().trim().min(1).max(200),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254)
    .nullish()
    .transform((v) => (v ? v : v === undefined ? undefined : null))
    .pipe(z.email().nullish())
    .describe('stored trimmed and lowercased'),
  phone: text(40).describe(
    'stored in E.164: national numbers are read in the contact country (Brazil by default), e.g. (11) 98765-4321 → +5511987654321 (docs/contacts.md)',
  ),
  contact_type: z.enum(CONTACT_TYPES),
  cpf: taxId('CPF', parseCpf),
  cnpj: taxId('CNPJ', parseCnpj),
  address: text(500),
  city: text(120),
  state: text(120),
  country: text(120),
  postal_code: text(20),
  birthdate: dateOnly,
  first_buy_date: dateOnly,
  owner: z.string().min(1).max(64).nullish().describe('membership documentId'),
  team: z.string().min(1).max(64).nullish().describe('team documentId'),
  customFields: customFieldsInput.optional(),
};

export const contactCreate = z.strictObject({
  ...contactFields,
  contact_type: contactFields.contact_type.default('pessoa'),
});
export const contactUpdate = z
  .strictObject({ ...contactFields, name: contactFields.name.optional() })
  .partial();
export type ContactCreate = z.infer<typeof contactCreate>;
export type ContactUpdate = z.infer<typeof contactUpdate>;

export const teamRef = z.object({ documentId: z.string(), name: z.string() }).meta({ id: 'TeamRef' });

export const contactRef = z
  .object({
    documentId: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
  })
  .meta({ id: 'ContactRef' });

export const contact = z
  .object({
    documentId: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    contact_type: z.enum(CONTACT_TYPES),
    cpf: z.string().nullable(),
    cnpj: z.string().nullable(),
    address: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    country: z.string().nullable(),
    postal_code: z.string().nullable(),
    birthdate: z.string().nullable(),
    first_buy_date: z.string().nullable(),
    owner: membershipRef.nullable(),
    ownedAt: z.string().nullable(),
    team: teamRef.nullable(),
    customFields: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Contact' });
export type Contact = z.infer<typeof contact>;

export const contactListQuery = z.strictObject({
  ...listQueryShape,
  savedFilter: savedFilterParam,
  q: z
    .string()
    .trim()
    .max(200)
    .refine((q) => searchTerms(q).some((t) => t.length >= 3), 'q needs a word of at least 3 characters')
    .optional()
    .describe('search in name, email, phone, cpf and cnpj (every word must match; masks are ignored)'),
});
export type ContactListQuery = z.infer<typeof contactListQuery>;

export const contactActivity = z
  .object({
    documentId: z.string(),
    activityType: z.enum(ACTIVITY_TYPES),
    description: z.string(),
    performedAt: z.string(),
    contact: contactRef,
    actor: membershipRef.nullable(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'ContactActivity' });

const metadataInput = z
  .record(z.string(), z.unknown())
  .refine((m) => JSON.stringify(m).length <= 10_000, 'metadata is at most 10 kB')
  .optional();

export const noteInput = z.strictObject({
  description: z.string().trim().min(1).max(10_000),
  metadata: metadataInput,
});

export const callInput = z.strictObject({
  activityType: z.enum(['call_completed', 'call_attempted']),
  description: z.string().trim().min(1).max(10_000),
  performedAt: z.iso.datetime({ offset: true }).optional().describe('when the call happened; default now'),
  metadata: metadataInput.describe('e.g. { durationSeconds, direction, outcome }'),
});

export const activityListQuery = z.strictObject(listQueryShape);

/** Which contacts a mass operation touches: explicit documentIds, or a filter of the list language. */
const selection = {
  ids: z.array(z.string().min(1).max(64)).min(1).max(1000).optional().describe('contact documentIds'),
  filters: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'list-language filters, as `filters` of GET /contacts; one without any condition (`{}`, only empty `$and`/`$or`) selects every contact and needs `all: true`',
    ),
  q: contactListQuery.shape.q,
  all: z
    .boolean()
    .optional()
    .describe(
      'must be `true` when the selection is every contact of the organization (no `ids`, no `q`, and `filters` absent or without any condition); otherwise narrow the filter',
    ),
};

function oneSelection(
  v: { ids?: unknown; filters?: unknown; q?: unknown; all?: boolean },
  ctx: z.RefinementCtx,
) {
  const byIds = v.ids !== undefined;
  const byFilter = v.filters !== undefined || v.q !== undefined || v.all === true;
  if (byIds === byFilter)
    ctx.addIssue({
      code: 'custom',
      path: ['ids'],
      message: 'send either ids or filters/q (with all: true to select every contact), not both or neither',
    });
}

export const bulkDeleteInput = z.strictObject(selection).superRefine(oneSelection);

export const bulkUpdateFields = z
  .strictObject({
    owner: contactFields.owner,
    team: contactFields.team,
    contact_type: contactFields.contact_type,
    city: contactFields.city,
    state: contactFields.state,
    country: contactFields.country,
    customFields: customFieldsInput,
  })
  .partial()
  .refine((d) => Object.keys(d).length > 0, 'data needs at least one field');
export type BulkUpdateFields = z.infer<typeof bulkUpdateFields>;

export const bulkUpdateInput = z
  .strictObject({ ...selection, data: bulkUpdateFields })
  .superRefine(oneSelection);
export type BulkSelection = {
  ids?: string[];
  filters?: Record<string, unknown>;
  q?: string;
  all?: boolean;
};

export const bulkResult = z
  .object({
    matched: z.number().int(),
    deleted: z.number().int().optional(),
    updated: z.number().int().optional(),
    notFound: z.array(z.string()).describe('documentIds sent that are not contacts of this organization'),
  })
  .meta({ id: 'ContactBulkResult' });

export const mergeInput = z.strictObject({
  survivor: z.string().min(1).max(64).describe('documentId of the contact that stays'),
  merged: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(50)
    .describe('documentIds merged into it, then deleted'),
});

export const mergeResult = z
  .object({
    contact: contact,
    merged: z.array(z.string()),
    moved: z.record(z.string(), z.number().int()).describe('rows re-pointed to the survivor, per table'),
  })
  .meta({ id: 'ContactMergeResult' });

export const IMPORT_FIELDS = [
  'name',
  'email',
  'phone',
  'contact_type',
  'cpf',
  'cnpj',
  'address',
  'city',
  'state',
  'country',
  'postal_code',
  'birthdate',
  'first_buy_date',
  'owner',
  'team',
] as const;

// `dryRun` is the platform's query parameter (docs/dry-run.md); as a multipart field it is read by the route.
export const importQuery = z.strictObject({
  delimiter: z.enum([',', ';', 'tab', 'auto']).default('auto'),
  mapping: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'CSV header to contact field: `mapping[Nome]=name`, `mapping[Segmento]=customFields.segmento`, `ignore` skips',
    ),
});
export type ImportOptions = { dryRun: boolean; delimiter: string; mapping?: Record<string, string> };

export const importResult = z
  .object({
    dryRun: z.boolean(),
    rows: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    failed: z.number().int(),
    columns: z.record(z.string(), z.string()).describe('CSV header to the field it was read into'),
    ignoredColumns: z.array(z.string()),
    errors: z
      .array(
        z.object({
          row: z.number().int().describe('data row, 1 = first row after the header'),
          line: z.number().int(),
          field: z.string().nullable(),
          message: z.string(),
        }),
      )
      .describe('at most 1000; `failed` counts them all'),
    errorsTruncated: z.boolean(),
  })
  .meta({ id: 'ContactImportResult' });
export type ImportResult = z.infer<typeof importResult>;
