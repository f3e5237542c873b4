import { z } from 'zod';
import { listQueryShape, paginationMeta } from '../../platform/http/list-query.js';
import { numericColumn } from '../../platform/http/numbers.js';
import { richText } from '../../platform/http/rich-text.js';
import { membershipRef } from '../../platform/http/schemas.js';
import { fieldOutputShape } from '../boards/index.js';
import { contactRef } from '../contacts/index.js';
import { savedFilterParam } from '../saved-filters/index.js';
import { CONTENT_FORMATS, CREATION_SOURCES, DUE_DATE_SOURCES, TRACKING_KEYS } from './table.js';

const documentIdOrSlug = z.string().trim().min(1).max(100);
const isoDateTime = z.iso.datetime({ offset: true });

// ---- inputs

const cardShape = {
  title: z.string().trim().min(1).max(500),
  description: richText(200_000).nullable().describe('rich text (HTML), sanitised on write'),
  value: numericColumn(14, 2).describe('monetary value, at most 2 decimals'),
  dueDate: isoDateTime.nullable(),
  currentPhase: documentIdOrSlug.describe('phase documentId or slug; on update this moves the card'),
  fields: z
    .record(z.string().max(100), z.unknown())
    .describe('flat map of field slug to value; null clears a field; unsent slugs keep their value'),
  tags: z.array(documentIdOrSlug).max(100).describe('tag documentIds or slugs of the board'),
  assignees: z.array(z.string().min(1).max(64)).max(100).describe('membership documentIds'),
  contact: z.string().min(1).max(64).nullable().describe('contact documentId'),
};

export const cardCreateInput = z.strictObject({
  ...cardShape,
  title: cardShape.title.optional().describe('defaults to the first filled text field, else "Untitled card"'),
  description: cardShape.description.optional(),
  value: cardShape.value.optional(),
  dueDate: cardShape.dueDate.optional(),
  currentPhase: cardShape.currentPhase
    .optional()
    .describe('phase documentId or slug; default: the entry phase'),
  fields: cardShape.fields.optional(),
  tags: cardShape.tags.optional(),
  assignees: cardShape.assignees.optional(),
  contact: cardShape.contact.optional(),
});
export const cardUpdateInput = z.strictObject(cardShape).partial();
export type CardCreateInput = z.infer<typeof cardCreateInput>;
export type CardUpdateInput = z.infer<typeof cardUpdateInput>;

export const moveInput = z.strictObject({
  phase: documentIdOrSlug.describe('target phase documentId or slug'),
});

export const cardListQuery = z.strictObject({
  ...listQueryShape,
  savedFilter: savedFilterParam,
  stats: z.enum(['true', 'false']).optional().describe('CardStats in meta.stats (default true)'),
  statsTodayStart: isoDateTime
    .optional()
    .describe('start of "today" for overdueCount (default: UTC midnight)'),
});
export type CardListQuery = z.infer<typeof cardListQuery>;

export const AGGREGATE_FNS = ['count', 'sum', 'avg', 'min', 'max'] as const;
export const aggregateQuery = z.strictObject({
  filters: listQueryShape.filters,
  field: z
    .string()
    .min(1)
    .max(100)
    .default('value')
    .describe('`value` (the card value) or the slug of a number/currency field; any field slug for count'),
  fn: z.enum(AGGREGATE_FNS).default('count'),
  groupBy: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('`phase`, `assignee`, `tag`, or the slug of a select/radio field'),
});
export type AggregateQuery = z.infer<typeof aggregateQuery>;

export const reportQuery = z.strictObject({
  from: isoDateTime.optional().describe('cards created at or after (default: the board creation)'),
  to: isoDateTime.optional().describe('cards created at or before (default: now)'),
});

export const commentInput = z.strictObject({
  content: z.string().trim().min(1).max(20_000),
  contentFormat: z
    .enum(CONTENT_FORMATS)
    .default('plain')
    .describe('`html` content is sanitised on write (allowlisted tags and link schemes)'),
  mentions: z.array(z.string().min(1).max(64)).max(50).default([]).describe('membership documentIds'),
});
export const commentUpdateInput = z.strictObject({
  content: z.string().trim().min(1).max(20_000).optional(),
  contentFormat: z.enum(CONTENT_FORMATS).optional(),
  mentions: z.array(z.string().min(1).max(64)).max(50).optional(),
});

const trackingShape = Object.fromEntries(
  TRACKING_KEYS.map((k) => [k, z.string().max(500).optional()]),
) as Record<(typeof TRACKING_KEYS)[number], z.ZodOptional<z.ZodString>>;
export const publicFormInput = z.strictObject({
  fields: z.record(z.string().max(100), z.unknown()).describe('entry-phase field slug → value'),
  consent: z
    .boolean()
    .optional()
    .describe(
      "true when the person ticked the form's consent checkbox (the public form's `consent`): recorded for the " +
        'contact its e-mail or phone field names; false or absent records nothing',
    ),
  ...trackingShape,
});

export const cardParams = z.object({
  boardId: z.string().min(1).max(64).describe('board documentId'),
  id: z.string().min(1).max(64).describe('card documentId'),
});
export const commentParams = z.object({
  boardId: z.string().min(1).max(64).describe('board documentId'),
  cardId: z.string().min(1).max(64).describe('card documentId'),
});
export const commentItemParams = commentParams.extend({
  id: z.string().min(1).max(64).describe('comment documentId'),
});

// ---- outputs

export const cardPhase = z
  .object({
    documentId: z.string(),
    name: z.string(),
    slug: z.string(),
    order: z.number().int(),
    maxTimeInPhaseHours: z.number().int().nullable(),
  })
  .meta({ id: 'CardPhase' });

export const cardTag = z
  .object({ documentId: z.string(), name: z.string(), slug: z.string(), color: z.string().nullable() })
  .meta({ id: 'CardTag' });

export const fileRef = z
  .object({
    documentId: z.string().describe('use it (or this whole object) as a file field value'),
    name: z.string(),
    mimeType: z.string(),
    size: z.number().int(),
  })
  .meta({ id: 'FileRef' });

export const fieldDataItem = z
  .object({
    documentId: z.string(),
    value: z.object({ val: z.unknown() }),
    field: z.object(fieldOutputShape),
    phase: z.object({ documentId: z.string(), name: z.string() }),
  })
  .meta({ id: 'FieldDataItem' });

export const card = z
  .object({
    documentId: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    value: z.number(),
    dueDate: z.string().nullable(),
    dueDateSource: z.enum(DUE_DATE_SOURCES).nullable(),
    currentPhase: cardPhase.nullable(),
    currentPhaseEnteredAt: z.string(),
    assignees: z.array(membershipRef),
    tags: z.array(cardTag),
    contact: contactRef.nullable(),
    fields: z.record(z.string(), z.unknown()).describe('slug → value of every filled field'),
    fieldData: z.array(fieldDataItem).optional().describe('only with populate=fieldData'),
    creationSource: z.enum(CREATION_SOURCES),
    tracking: z.record(z.string(), z.string()).describe('utm_* / gclid / fbclid captured at creation'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Card' });
export type Card = z.infer<typeof card>;

export const cardStats = z
  .object({
    overdueCount: z.number().int(),
    valueSum: z.number(),
    phaseSlaBreachedCount: z.number().int(),
  })
  .meta({ id: 'CardStats' });

export const cardList = z.object({
  data: z.array(card),
  meta: z.object({ pagination: paginationMeta, stats: cardStats.optional() }),
});

export const comment = z
  .object({
    documentId: z.string(),
    content: z.string(),
    contentFormat: z.enum(CONTENT_FORMATS),
    type: z.enum(['user', 'system']),
    activityType: z.string().nullable(),
    mentions: z.array(z.string()),
    author: membershipRef.nullable(),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Comment' });

export const aggregateResult = z
  .object({
    field: z.string(),
    fn: z.enum(AGGREGATE_FNS),
    groupBy: z.string().nullable(),
    value: z.number().nullable().describe('over all matching cards'),
    count: z.number().int().describe('matching cards'),
    groups: z.array(
      z.object({
        key: z.string().nullable().describe('phase/membership/tag documentId or option value; null = none'),
        label: z.string().nullable(),
        value: z.number().nullable(),
        count: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'CardAggregate' });

export const boardReport = z
  .object({
    boardId: z.string(),
    boardName: z.string(),
    showValue: z.boolean(),
    currency: z.string(),
    dateRange: z.object({ from: z.string(), to: z.string() }),
    summary: z.object({
      totalCards: z.number().int(),
      wonCount: z.number().int(),
      lostCount: z.number().int(),
      unassignedCount: z.number().int(),
      untaggedCount: z.number().int(),
      totalValue: z.number(),
      wonValue: z.number(),
      opportunityValue: z.number(),
    }),
    phases: z.array(
      z.object({
        phaseId: z.string().describe('documentId, or __no_phase__'),
        name: z.string(),
        slug: z.string(),
        order: z.number().int(),
        count: z.number().int(),
        value: z.number(),
        isWon: z.boolean(),
        isLost: z.boolean(),
      }),
    ),
    assignees: z.array(
      z.object({
        membershipId: z.string().nullable(),
        displayName: z.string(),
        count: z.number().int(),
        value: z.number(),
      }),
    ),
    tags: z.array(
      z.object({
        tagId: z.string(),
        name: z.string(),
        color: z.string().nullable(),
        count: z.number().int(),
      }),
    ),
    createdByDay: z.array(z.object({ date: z.string(), count: z.number().int() })),
  })
  .meta({ id: 'BoardReport' });

export const publicFormResult = z
  .object({ documentId: z.string().describe('the created card'), createdAt: z.string() })
  .meta({ id: 'PublicFormSubmission' });
