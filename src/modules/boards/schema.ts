import { z } from 'zod';
import { membershipRef } from '../../platform/http/schemas.js';
import { slugPattern } from '../../platform/slugs.js';
import { BOARD_TYPES, CONDITION_OPERATORS, CONDITION_SCOPES, FIELD_TYPES } from './table.js';

/** Types whose values come from `options`. */
export const OPTION_TYPES = ['select', 'multiselect', 'radio'] as const;

// ---- inputs (no defaults in shared shapes: `.partial()` updates must not reset anything)

const name = z.string().trim().min(1).max(120);
const slug = z
  .string()
  .trim()
  .toLowerCase()
  .regex(slugPattern, 'lowercase letters, digits and dashes (max 63)');
const fieldSlug = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^[a-z0-9](?:[a-z0-9_-]{0,61}[a-z0-9])?$/,
    'lowercase letters, digits, dashes and underscores (max 63)',
  );
const text = (max: number) => z.string().max(max).nullable();
export const hexColor = z
  .string()
  .trim()
  .regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'a hex color, #RGB or #RRGGBB');
const order = z.number().int().min(0).max(10_000);
const ref = z.string().trim().min(1).max(64);

const transitionInput = z.strictObject({
  phase: z
    .union([ref, z.strictObject({ documentId: ref })])
    .describe('target phase: documentId or slug, or `{ documentId }`'),
  allowed: z.boolean().optional().describe('default true'),
});

export const optionInput = z.union([
  z.string().trim().min(1).max(200),
  z.strictObject({ value: z.string().trim().min(1).max(200), label: z.string().trim().min(1).max(200) }),
]);

const fieldShape = {
  label: z.string().trim().min(1).max(200),
  slug: fieldSlug.optional().describe('generated from the label when omitted; unique per board'),
  type: z.enum(FIELD_TYPES),
  order: order.optional(),
  required: z.boolean().optional(),
  placeholder: text(500).optional(),
  helpText: text(2000).optional(),
  defaultValue: text(5000).optional(),
  options: z
    .array(optionInput)
    .max(500)
    .nullable()
    .optional()
    .describe('select, multiselect and radio only: strings or `{ value, label }`'),
};
export const nestedFieldInput = z.strictObject(fieldShape);
export const fieldCreateInput = z.strictObject({
  ...fieldShape,
  phase: ref.describe('the owning phase: documentId or slug'),
});
export const fieldUpdateInput = fieldCreateInput.partial();

const phaseShape = {
  name,
  slug: slug.optional().describe('generated from the name when omitted; unique per board'),
  order: order.optional().describe('position; 0 is the entry form. Default: last'),
  isPublic: z.boolean().optional().describe('the phase at order 0 is always public'),
  description: text(5000).optional(),
  maxTimeInPhaseHours: z
    .number()
    .int()
    .min(1, 'maxTimeInPhaseHours is 1 to 8760 or null')
    .max(8760, 'maxTimeInPhaseHours is 1 to 8760 or null')
    .nullable()
    .optional(),
  color: hexColor
    .nullable()
    .optional()
    .describe("shown on the phase's Kanban column, #RGB or #RRGGBB; null clears it"),
  allowedTransitions: z.array(transitionInput).max(200).optional(),
};
export const phaseCreateInput = z.strictObject(phaseShape);
export const phaseUpdateInput = phaseCreateInput.partial();
export const nestedPhaseInput = z.strictObject({
  ...phaseShape,
  fields: z.array(nestedFieldInput).max(200).optional(),
});

export const tagInput = z.strictObject({
  name: z.string().trim().min(1).max(80),
  slug: slug.optional(),
  color: hexColor.nullable().optional(),
});
export const tagUpdateInput = tagInput.partial();

const expressionInput = z.strictObject({
  fieldSlug: ref,
  operator: z.enum(CONDITION_OPERATORS),
  value: z.unknown().optional().describe('not used by empty/notEmpty; a list for in/notIn'),
});
const groupInput = z.strictObject({
  operator: z.literal('AND').optional().describe('expressions of a group are ANDed; groups are ORed'),
  expressions: z.array(expressionInput).min(1).max(50),
});
const actionInput = z.strictObject({
  type: z.enum(['show', 'hide']),
  targetFieldSlugs: z.array(ref).min(1).max(200),
});
export const conditionCreateInput = z.strictObject({
  name,
  scope: z.enum(CONDITION_SCOPES).optional().describe('default phase'),
  phase: ref.nullable().optional().describe('documentId or slug; required when scope is phase'),
  order: order.optional(),
  enabled: z.boolean().optional(),
  criteria: z.array(groupInput).min(1).max(20),
  actionsWhenTrue: z.array(actionInput).max(50).optional(),
  actionsWhenFalse: z.array(actionInput).max(50).optional(),
});
export const conditionUpdateInput = conditionCreateInput.partial();

const CHANNEL_WORDS = { whatsapp: 'WhatsApp', email: 'e-mail', sms: 'SMS' } as const;
/** The checkbox's pt-BR text when a board names none: the channels it grants, and that it can be withdrawn. */
export function defaultFormConsentText(channels: (keyof typeof CHANNEL_WORDS)[], purpose: string): string {
  const words = channels.map((c) => CHANNEL_WORDS[c]);
  const list = words.length > 1 ? `${words.slice(0, -1).join(', ')} e ${words.at(-1)}` : words[0];
  const what = purpose === 'marketing' ? 'ofertas e novidades' : 'avisos sobre meu atendimento';
  return `Aceito receber ${what} por ${list}. Posso retirar este consentimento quando quiser.`;
}

/** A board's public-form consent checkbox (FormConsent). */
const formConsentInput = z
  .strictObject({
    text: z
      .string()
      .trim()
      .min(1, 'write what the person agrees to, or leave text out for the default')
      .max(2000)
      .optional()
      .describe(
        'what the person agrees to, shown beside the checkbox verbatim and kept as proof; absent: a pt-BR text ' +
          'naming the channels ("Aceito receber ofertas e novidades por WhatsApp e e-mail. Posso retirar…")',
      ),
    channels: z
      .array(z.enum(['whatsapp', 'email', 'sms']))
      .min(1, 'name at least one channel: whatsapp, email or sms')
      .max(3)
      .transform((c) => [...new Set(c)]),
    purpose: z.enum(['marketing', 'transactional']).default('marketing'),
  })
  .transform((c) => ({ ...c, text: c.text ?? defaultFormConsentText(c.channels, c.purpose) }));
const formConsentOutput = z
  .object({
    text: z.string(),
    channels: z.array(z.enum(['whatsapp', 'email', 'sms'])),
    purpose: z.enum(['marketing', 'transactional']),
  })
  .meta({ id: 'FormConsent' });

export const boardSettingsInput = z.strictObject({
  showValue: z.boolean().optional(),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as USD')
    .optional(),
  wonPhase: ref.nullable().optional().describe('documentId or slug of a phase of the board'),
  lostPhase: ref.nullable().optional().describe('documentId or slug of a phase of the board'),
  restrictEditToAssignees: z.boolean().optional(),
  restrictViewToAssignees: z.boolean().optional(),
  enableProducts: z.boolean().optional(),
  autoUpdateCardValue: z.boolean().optional(),
  autoUpdateDueDateFromPhase: z.boolean().optional(),
  formConsent: formConsentInput
    .nullable()
    .optional()
    .describe(
      'The public form asks this consent with a checkbox (null: none). Ticked, the contact the form matches or ' +
        'makes by its e-mail or phone field gets the consent for each channel (source form, proof: the text, form ' +
        'and IP); unticked, nothing is recorded (docs/lgpd.md)',
    ),
});

const boardShape = {
  name,
  slug: slug.optional().describe('generated from the name when omitted; unique per organization'),
  active: z.boolean().optional(),
  boardType: z.enum(BOARD_TYPES).optional(),
  icon: text(64).optional(),
  color: text(32).optional(),
  taskStatuses: z
    .array(z.string().trim().min(1).max(50))
    .min(1)
    .max(30)
    .refine((l) => new Set(l).size === l.length, 'task statuses must be distinct')
    .optional(),
  boardSettings: boardSettingsInput.optional(),
  owner: ref.nullable().optional().describe('membership documentId; default: the creator'),
  members: z.array(ref).max(500).optional().describe('membership documentIds who see the board'),
  editors: z.array(ref).max(500).optional().describe('membership documentIds who edit the board'),
};
export const boardCreateInput = z.strictObject({
  ...boardShape,
  template: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .optional()
    .describe('a board template id (GET /board-templates)'),
  phases: z
    .array(nestedPhaseInput)
    .max(50)
    .optional()
    .describe('phases with their fields; not with template'),
  tags: z.array(tagInput).max(200).optional(),
});
export const boardUpdateInput = z.strictObject(boardShape).partial();

export type FieldCreateInput = z.infer<typeof fieldCreateInput>;
export type FieldUpdateInput = z.infer<typeof fieldUpdateInput>;
export type NestedFieldInput = z.infer<typeof nestedFieldInput>;
export type PhaseCreateInput = z.infer<typeof phaseCreateInput>;
export type PhaseUpdateInput = z.infer<typeof phaseUpdateInput>;
export type NestedPhaseInput = z.infer<typeof nestedPhaseInput>;
export type TagInput = z.infer<typeof tagInput>;
export type TagUpdateInput = z.infer<typeof tagUpdateInput>;
export type ConditionCreateInput = z.infer<typeof conditionCreateInput>;
export type ConditionUpdateInput = z.infer<typeof conditionUpdateInput>;
export type BoardSettingsInput = z.infer<typeof boardSettingsInput>;
export type BoardCreateInput = z.infer<typeof boardCreateInput>;
export type BoardUpdateInput = z.infer<typeof boardUpdateInput>;

// ---- outputs

const option = z.union([z.string(), z.object({ value: z.string(), label: z.string() })]);
export const phaseRef = z.object({ documentId: z.string(), name: z.string() }).meta({ id: 'PhaseRef' });

/** A field as returned here and inside a card's `fieldData`. */
export const fieldOutputShape = {
  documentId: z.string(),
  label: z.string(),
  slug: z.string(),
  type: z.enum(FIELD_TYPES),
  order: z.number().int(),
  required: z.boolean(),
  placeholder: z.string().nullable(),
  helpText: z.string().nullable(),
  defaultValue: z.string().nullable(),
  options: z.array(option),
};

export const fieldDefinition = z
  .object({
    ...fieldOutputShape,
    slug: fieldOutputShape.slug.describe('key inside card `fields`'),
    phase: phaseRef,
  })
  .meta({ id: 'FieldDefinition' });

export const allowedTransition = z
  .object({ phase: z.object({ documentId: z.string() }), allowed: z.boolean() })
  .meta({ id: 'AllowedTransition' });

export const phase = z
  .object({
    documentId: z.string(),
    name: z.string(),
    slug: z.string(),
    order: z.number().int().describe('0 is the entry form'),
    isPublic: z.boolean(),
    description: z.string().nullable(),
    maxTimeInPhaseHours: z.number().int().nullable(),
    color: z.string().nullable().describe("#RGB or #RRGGBB, shown on the phase's Kanban column; null: none"),
    fields: z.array(fieldDefinition),
    allowedTransitions: z.array(allowedTransition),
  })
  .meta({ id: 'Phase' });

export const tag = z
  .object({ documentId: z.string(), name: z.string(), slug: z.string(), color: z.string().nullable() })
  .meta({ id: 'Tag' });

const conditionGroup = z.object({
  operator: z.literal('AND'),
  expressions: z.array(
    z.object({ fieldSlug: z.string(), operator: z.enum(CONDITION_OPERATORS), value: z.unknown().optional() }),
  ),
});
const conditionAction = z.object({ type: z.enum(['show', 'hide']), targetFieldSlugs: z.array(z.string()) });

export const fieldCondition = z
  .object({
    documentId: z.string(),
    name: z.string(),
    scope: z.enum(CONDITION_SCOPES),
    order: z.number().int(),
    enabled: z.boolean(),
    criteria: z.array(conditionGroup),
    actionsWhenTrue: z.array(conditionAction),
    actionsWhenFalse: z.array(conditionAction),
    phase: phaseRef.nullable(),
  })
  .meta({ id: 'FieldCondition' });

export const boardSettings = z
  .object({
    showValue: z.boolean(),
    currency: z.string(),
    wonPhase: z.string().nullable().describe('documentId of the won phase'),
    lostPhase: z.string().nullable().describe('documentId of the lost phase'),
    restrictEditToAssignees: z.boolean(),
    restrictViewToAssignees: z.boolean(),
    enableProducts: z.boolean(),
    autoUpdateCardValue: z.boolean(),
    autoUpdateDueDateFromPhase: z.boolean(),
    formConsent: formConsentOutput.nullable().describe("the public form's consent checkbox; null: none"),
  })
  .meta({ id: 'BoardSettings' });

export const board = z
  .object({
    documentId: z.string(),
    name: z.string(),
    slug: z.string(),
    active: z.boolean(),
    boardType: z.enum(BOARD_TYPES),
    icon: z.string().nullable(),
    color: z.string().nullable(),
    template: z.string().nullable(),
    taskStatuses: z.array(z.string()),
    boardSettings,
    phases: z.array(phase),
    tags: z.array(tag),
    owner: membershipRef.nullable(),
    members: z.array(membershipRef),
    editors: z.array(membershipRef),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Board' });

const templateField = z.object({
  label: z.string(),
  slug: z.string(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean(),
  placeholder: z.string().nullable(),
  helpText: z.string().nullable(),
  defaultValue: z.string().nullable(),
  options: z.array(option),
});
/** Languages of the template catalogue: each template is written in one (its names, labels and options). */
export const TEMPLATE_LOCALES = ['en', 'pt-BR'] as const;

export const boardTemplate = z
  .object({
    id: z.string(),
    locale: z.enum(TEMPLATE_LOCALES).describe('language of the names, labels and options'),
    name: z.string(),
    description: z.string(),
    boardType: z.enum(BOARD_TYPES),
    icon: z.string().nullable(),
    color: z.string().nullable(),
    taskStatuses: z.array(z.string()),
    boardSettings: z.object({
      showValue: z.boolean(),
      currency: z.string(),
      wonPhase: z.string().nullable().describe('slug'),
      lostPhase: z.string().nullable().describe('slug'),
      autoUpdateDueDateFromPhase: z.boolean(),
    }),
    phases: z.array(
      z.object({
        name: z.string(),
        slug: z.string(),
        order: z.number().int(),
        isPublic: z.boolean(),
        description: z.string().nullable(),
        maxTimeInPhaseHours: z.number().int().nullable(),
        color: z.string().nullable(),
        allowedTransitions: z.array(z.object({ phase: z.string().describe('slug'), allowed: z.boolean() })),
        fields: z.array(templateField),
      }),
    ),
    tags: z.array(z.object({ name: z.string(), slug: z.string(), color: z.string() })),
  })
  .meta({ id: 'BoardTemplate' });

export const publicForm = z
  .object({
    board: z.object({ documentId: z.string(), name: z.string() }),
    phase: z.object({ documentId: z.string(), name: z.string(), description: z.string().nullable() }),
    consent: formConsentOutput
      .nullable()
      .describe('a consent checkbox to show with its text; send `consent: true` when the person ticks it'),
    fields: z.array(
      z
        .object({ ...fieldOutputShape, slug: z.string().describe('the input name to send in `fields`') })
        .omit({ documentId: true }),
    ),
    conditions: z.array(
      z.object({
        name: z.string(),
        order: z.number().int(),
        criteria: z.array(conditionGroup),
        actionsWhenTrue: z.array(conditionAction),
        actionsWhenFalse: z.array(conditionAction),
      }),
    ),
  })
  .meta({ id: 'PublicForm' });

export const boardIdParams = z.object({ boardId: z.string().min(1).max(64).describe('board documentId') });
export const boardItemParams = boardIdParams.extend({ id: z.string().min(1).max(64).describe('documentId') });
