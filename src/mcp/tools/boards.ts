import { z } from 'zod';
import { type ApiClient, ApiError, unwrap } from '../api-client.js';
import { defined, listOutput, paging, pagingQuery, readTool, type Tool, writeTool } from '../tool-kit.js';
import { dateTime, docId, docIdItem, membershipRef } from './common.js';

const ref = z.looseObject({ documentId: z.string(), name: z.string() });

const phaseSummary = z.looseObject({
  documentId: z.string().describe('phase documentId'),
  name: z.string(),
  slug: z.string(),
  order: z.number().describe('0 is the entry phase'),
});

const boardSummary = z.object({
  documentId: z.string().describe('board documentId'),
  name: z.string(),
  slug: z.string(),
  active: z.boolean(),
  boardType: z.string(),
  taskStatuses: z.array(z.string()).describe('Statuses tasks of this board may take'),
  phases: z.array(phaseSummary.pick({ documentId: true, name: true, slug: true, order: true })),
  updatedAt: z.string(),
});

const board = z.looseObject({
  documentId: z.string().describe('board documentId'),
  name: z.string(),
  slug: z.string(),
  active: z.boolean(),
  boardType: z.string(),
  taskStatuses: z.array(z.string()),
  boardSettings: z.looseObject({ showValue: z.boolean(), currency: z.string() }),
  phases: z
    .array(
      phaseSummary.extend({
        fields: z
          .array(
            z.looseObject({
              documentId: z.string(),
              label: z.string(),
              slug: z.string().describe('Key inside a card `fields` map'),
              type: z.string(),
              required: z.boolean(),
            }),
          )
          .describe('Fields filled in this phase'),
        allowedTransitions: z
          .array(z.looseObject({ phase: z.object({ documentId: z.string() }), allowed: z.boolean() }))
          .describe('Phases a card may (allowed true) or may not move to from here'),
      }),
    )
    .describe('Phases in order; phase 0 is the entry form'),
  tags: z.array(z.looseObject({ documentId: z.string(), name: z.string(), slug: z.string() })),
  owner: membershipRef.nullable(),
  members: z.array(membershipRef),
  editors: z.array(membershipRef),
});

const template = z.looseObject({
  id: z.string().describe('Template id (a slug, not a documentId)'),
  name: z.string(),
  description: z.string(),
  boardType: z.string(),
  phases: z.array(z.looseObject({ name: z.string(), slug: z.string(), order: z.number() })),
  tags: z.array(z.looseObject({ name: z.string(), slug: z.string() })),
});

export const boardTools: Tool[] = [
  readTool({
    name: 'list_boards',
    title: 'List boards',
    description:
      'Lists the boards (pipelines) the user can see, with their phases (documentId, name, slug, order), paged. Start here to find the boardId that every card tool needs; use crm.get_board_structure for fields, tags and allowed moves.',
    input: {
      search: z.string().optional().describe('Text contained in the board name'),
      active: z.boolean().optional().describe('Only active (true) or archived (false) boards'),
      ...paging,
    },
    output: listOutput(boardSummary),
    run: async (args, { api, apiUrl }) => {
      const filters: Record<string, unknown> = {};
      if (args.search) filters.name = { $containsi: args.search };
      if (args.active !== undefined) filters.active = { $eq: args.active };
      const page = await unwrap(
        api.GET('/api/boards', { params: { query: { ...pagingQuery(args), filters } } }),
        apiUrl,
      );
      return {
        data: page.data.map((b) => ({
          documentId: b.documentId,
          name: b.name,
          slug: b.slug,
          active: b.active,
          boardType: b.boardType,
          taskStatuses: b.taskStatuses,
          phases: b.phases.map(({ documentId, name, slug, order }) => ({ documentId, name, slug, order })),
          updatedAt: b.updatedAt,
        })),
        meta: page.meta,
      };
    },
  }),
  readTool({
    name: 'get_board_structure',
    title: 'Get a board structure',
    description:
      'Returns a board with its full structure: phases in order with their fields (slug, type, required, options) and allowed transitions, tags, settings (currency, won/lost phases) and people. Read it before creating or updating cards: card `fields` are keyed by field slug, `tags` take tag slugs or documentIds, and moves must follow allowedTransitions.',
    input: { boardId: docId('board') },
    output: board,
    run: (args, { api, apiUrl }) =>
      unwrap(api.GET('/api/boards/{id}', { params: { path: { id: args.boardId } } }), apiUrl),
  }),
  readTool({
    name: 'list_templates',
    title: 'List board templates',
    description:
      'Lists the read-only catalogue of board templates (sales pipeline, support, …) with their phases and tags. Template ids are slugs, not documentIds. English templates and their pt-BR versions (e.g. funil-de-vendas) have their own ids; locale lists one language.',
    input: {
      page: paging.page,
      pageSize: paging.pageSize,
      locale: z.enum(['en', 'pt-BR']).optional().describe('only the templates in this language'),
    },
    output: listOutput(template),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/board-templates', {
          params: {
            query: { pagination: { page: args.page, pageSize: args.pageSize }, locale: args.locale },
          },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'get_template',
    title: 'Get a board template',
    description:
      'Returns one board template by its id (a slug from crm.list_templates): phases with fields and allowed transitions, tags and settings.',
    input: { templateId: z.string().min(1).max(100).describe('Template id, a slug such as sales-pipeline') },
    output: template,
    run: (args, { api, apiUrl }) =>
      unwrap(api.GET('/api/board-templates/{id}', { params: { path: { id: args.templateId } } }), apiUrl),
  }),
];

const card = z.looseObject({
  documentId: z.string().describe('card documentId'),
  title: z.string(),
  description: z.string().nullable(),
  value: z.number(),
  dueDate: z.string().nullable(),
  currentPhase: z
    .looseObject({ documentId: z.string(), name: z.string(), slug: z.string() })
    .nullable()
    .describe('The phase the card is in'),
  currentPhaseEnteredAt: z.string(),
  assignees: z.array(membershipRef),
  tags: z.array(z.looseObject({ documentId: z.string(), name: z.string(), slug: z.string() })),
  contact: ref.nullable(),
  fields: z.record(z.string(), z.unknown()).describe('Field slug → value of every filled field'),
  createdAt: z.string(),
  updatedAt: z.string(),
  link: z.string().optional().describe('The card in the web application'),
});

const cardLink = (args: { boardId: string }, c: { documentId: string }) =>
  `/boards/${args.boardId}/cards/${c.documentId}`;

const boardIdArg = docId('board').describe('documentId of the board (see crm.list_boards)');
const cardIdArg = docId('card').describe('documentId of the card (see crm.search_cards)');

const cardFields = {
  title: z.string().min(1).max(500).describe('Card title'),
  description: z.string().nullable().optional().describe('Description as HTML; null clears it'),
  value: z.number().optional().describe('Monetary value of the deal, 2 decimals'),
  dueDate: dateTime().nullable().optional().describe('Due date-time, ISO 8601 with offset; null clears it'),
  fields: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'Field slug → value (slugs from crm.get_board_structure); null clears a field; slugs not sent keep their value',
    ),
  tags: z
    .array(z.string())
    .optional()
    .describe('Tag slugs or documentIds of the board (replaces the tag list)'),
  assignees: z
    .array(z.string())
    .optional()
    .describe('Membership documentIds of the assignees (replaces the list; not user ids)'),
  contact: z
    .string()
    .nullable()
    .optional()
    .describe('Contact documentId (see crm.search_contacts); null unlinks'),
};

/**
 * 400 naming the board's phases or tags when `phase` or `tag` is none of them (by documentId or slug);
 * otherwise the tag's slug.
 */
async function checkPhaseAndTag(
  api: ApiClient,
  apiUrl: string,
  boardId: string,
  phase?: string,
  tag?: string,
) {
  const board = await unwrap(api.GET('/api/boards/{id}', { params: { path: { id: boardId } } }), apiUrl);
  const matches = (x: { documentId: string; slug: string }, v: string) => x.documentId === v || x.slug === v;
  const errors: { path: string[]; message: string }[] = [];
  if (phase && !board.phases.some((p) => matches(p, phase)))
    errors.push({
      path: ['phase'],
      message: `no phase ${phase} on this board; phases: ${board.phases.map((p) => `${p.slug} (${p.documentId})`).join(', ')}`,
    });
  if (tag && !board.tags.some((t) => matches(t, tag)))
    errors.push({
      path: ['tag'],
      message: `no tag ${tag} on this board; tags: ${board.tags.map((t) => `${t.slug} (${t.documentId})`).join(', ') || 'none'}`,
    });
  if (errors.length)
    throw new ApiError(400, 'ValidationError', errors.map((e) => e.message).join('; '), { errors });
  return tag ? board.tags.find((t) => matches(t, tag))?.slug : undefined;
}

export const cardTools: Tool[] = [
  readTool({
    name: 'search_cards',
    link: cardLink,
    title: 'Search cards',
    description:
      'Finds cards of one board, paged, newest first by default: by text in the title, phase (documentId or slug), assignee, tag, contact, due date or field values. meta.stats gives overdue count and value sum of all matches. Needs the boardId from crm.list_boards.',
    input: {
      boardId: boardIdArg,
      search: z.string().optional().describe('Text contained in the card title (case-insensitive)'),
      phase: z.string().optional().describe('Only cards in this phase: phase documentId or slug'),
      assignee: z.string().optional().describe('Only cards assigned to this membership documentId'),
      tag: z.string().optional().describe('Only cards with this tag: tag slug or documentId'),
      contact: z.string().optional().describe('Only cards linked to this contact documentId'),
      dueBefore: dateTime().optional().describe('Only cards due before this ISO 8601 date-time'),
      fields: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('Field slug → exact value, e.g. { "source": "website" }'),
      ...paging,
    },
    output: listOutput(card).extend({
      meta: z.looseObject({
        pagination: z.object({
          page: z.number().optional(),
          pageSize: z.number().optional(),
          pageCount: z.number().optional(),
          total: z.number().optional(),
        }),
        stats: z
          .object({ overdueCount: z.number(), valueSum: z.number(), phaseSlaBreachedCount: z.number() })
          .optional(),
      }),
    }),
    run: async (args, { api, apiUrl }) => {
      // An unknown phase or tag would only match nothing: say so, with the valid ones, instead.
      const tagSlug =
        args.phase || args.tag
          ? await checkPhaseAndTag(api, apiUrl, args.boardId, args.phase, args.tag)
          : undefined;
      const filters: Record<string, unknown> = {};
      if (args.search) filters.title = { $containsi: args.search };
      if (args.phase)
        filters.currentPhase = { $or: [{ documentId: { $eq: args.phase } }, { slug: { $eq: args.phase } }] };
      if (args.assignee) filters.assignees = { documentId: { $eq: args.assignee } };
      if (tagSlug) filters.tags = { slug: { $eq: tagSlug } };
      if (args.contact) filters.contact = { documentId: { $eq: args.contact } };
      if (args.dueBefore) filters.dueDate = { $lt: args.dueBefore };
      if (args.fields)
        filters.fields = Object.fromEntries(
          Object.entries(args.fields).map(([slug, v]) => [slug, { $eq: v }]),
        );
      return unwrap(
        api.GET('/api/boards/{boardId}/cards', {
          params: {
            path: { boardId: args.boardId },
            query: { ...pagingQuery({ ...args, sort: args.sort ?? 'createdAt:desc' }), filters },
          },
        }),
        apiUrl,
      );
    },
  }),
  readTool({
    name: 'get_cards',
    link: cardLink,
    title: 'Get several cards',
    description:
      'Returns up to 100 cards of one board by documentId in one call, with phase, tags, assignees, contact and fields. Ids that do not exist on the board or that the user cannot see are listed in missing.',
    input: {
      boardId: boardIdArg,
      cardIds: z.array(docIdItem('card')).min(1).max(100).describe('Card documentIds, 1..100'),
    },
    output: z.object({ data: z.array(card), missing: z.array(z.string()) }),
    run: async (args, { api, apiUrl }) => {
      const ids = [...new Set(args.cardIds)];
      const page = await unwrap(
        api.GET('/api/boards/{boardId}/cards', {
          params: {
            path: { boardId: args.boardId },
            query: { pagination: { page: 1, pageSize: 100 }, filters: { documentId: { $in: ids } } },
          },
        }),
        apiUrl,
      );
      const found = new Set(page.data.map((c) => c.documentId));
      return { data: page.data, missing: ids.filter((id) => !found.has(id)) };
    },
  }),
  writeTool({
    name: 'create_card',
    link: cardLink,
    title: 'Create a card',
    description:
      "Creates a card (deal, ticket, …) on a board, in the entry phase unless phase is given. Read crm.get_board_structure first: fields are keyed by field slug and a phase's required fields must be filled. A 400 names each field to fix.",
    input: {
      boardId: boardIdArg,
      ...cardFields,
      title: cardFields.title.optional().describe('Card title (default: the first filled text field)'),
      phase: z
        .string()
        .optional()
        .describe('Phase documentId or slug to create the card in (default: entry phase)'),
    },
    output: card,
    destructive: false,
    idempotent: false,
    summary: (a) => `create the card "${a.title ?? '(untitled)'}" on the board ${a.boardId}`,
    run: ({ boardId, phase, ...data }, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/boards/{boardId}/cards', {
          params: { path: { boardId } },
          body: { data: defined({ ...data, currentPhase: phase }) },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'update_card',
    link: cardLink,
    title: 'Update a card',
    description:
      'Changes a card given boardId and cardId; only what is passed changes (fields merge by slug; tags and assignees replace the lists). To change the phase use crm.move_card_phase.',
    input: { boardId: boardIdArg, cardId: cardIdArg, ...cardFields, title: cardFields.title.optional() },
    output: card,
    destructive: true,
    idempotent: true,
    summary: (a) => `update the card ${a.cardId}`,
    run: ({ boardId, cardId, ...data }, { api, apiUrl }) =>
      unwrap(
        api.PUT('/api/boards/{boardId}/cards/{id}', {
          params: { path: { boardId, id: cardId } },
          body: { data: defined(data) },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'move_card_phase',
    link: cardLink,
    title: 'Move a card to another phase',
    description:
      "Moves a card to another phase of its board (phase documentId or slug). Refused with 422 when the current phase does not allow the move (allowedTransitions) or when the current phase's required fields are empty (the error lists them: fill them with crm.update_card first).",
    input: {
      boardId: boardIdArg,
      cardId: cardIdArg,
      phase: z.string().min(1).describe('Target phase documentId or slug'),
    },
    output: card,
    destructive: true,
    idempotent: true,
    summary: (a) => `move the card ${a.cardId} to the phase "${a.phase}"`,
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/boards/{boardId}/cards/{id}/move', {
          params: { path: { boardId: args.boardId, id: args.cardId } },
          body: { phase: args.phase },
        }),
        apiUrl,
      ),
  }),
];

export const analyticsTools: Tool[] = [
  readTool({
    name: 'get_board_report',
    title: 'Board report',
    description:
      'Summarises a board for cards created in a date range: totals, won/lost counts and values, open opportunity value, and breakdowns per phase, assignee, tag and creation day. Use it for pipeline questions ("how is sales doing this month").',
    input: {
      boardId: boardIdArg,
      from: dateTime()
        .optional()
        .describe('Cards created at or after this ISO 8601 date-time (default: always)'),
      to: dateTime().optional().describe('Cards created at or before this ISO 8601 date-time (default: now)'),
    },
    output: z.looseObject({
      boardId: z.string(),
      boardName: z.string(),
      currency: z.string(),
      dateRange: z.object({ from: z.string(), to: z.string() }),
      summary: z.looseObject({
        totalCards: z.number(),
        wonCount: z.number(),
        lostCount: z.number(),
        totalValue: z.number(),
        wonValue: z.number(),
        opportunityValue: z.number(),
      }),
      phases: z.array(
        z.looseObject({ phaseId: z.string(), name: z.string(), count: z.number(), value: z.number() }),
      ),
      assignees: z.array(z.looseObject({ displayName: z.string(), count: z.number(), value: z.number() })),
      tags: z.array(z.looseObject({ name: z.string(), count: z.number() })),
      createdByDay: z.array(z.object({ date: z.string(), count: z.number() })),
    }),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/boards/{boardId}/report', {
          params: { path: { boardId: args.boardId }, query: defined({ from: args.from, to: args.to }) },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'aggregate_card_field',
    title: 'Aggregate a card field',
    description:
      'Computes count, sum, avg, min or max of the card value (field "value") or of a number/currency field (by slug) over the cards of a board, optionally grouped by phase, assignee, tag or a select/radio field slug, and optionally restricted with the same filters as crm.search_cards (phase, assignee, tag).',
    input: {
      boardId: boardIdArg,
      field: z
        .string()
        .optional()
        .describe(
          '"value" (the card value, default) or the slug of a number/currency field; any slug for count',
        ),
      fn: z
        .enum(['count', 'sum', 'avg', 'min', 'max'])
        .optional()
        .describe('Aggregate function (default count)'),
      groupBy: z
        .string()
        .optional()
        .describe('"phase", "assignee", "tag", or the slug of a select/radio field; omit for one total'),
      phase: z.string().optional().describe('Only cards in this phase (documentId or slug)'),
      assignee: z.string().optional().describe('Only cards assigned to this membership documentId'),
      tag: z.string().optional().describe('Only cards with this tag: tag slug or documentId'),
    },
    output: z.object({
      field: z.string(),
      fn: z.string(),
      groupBy: z.string().nullable(),
      value: z.number().nullable().describe('Over all matching cards'),
      count: z.number().describe('Matching cards'),
      groups: z.array(
        z.object({
          key: z.string().nullable().describe('Phase/membership/tag documentId or option value; null = none'),
          label: z.string().nullable(),
          value: z.number().nullable(),
          count: z.number(),
        }),
      ),
    }),
    run: (args, { api, apiUrl }) => {
      const filters: Record<string, unknown> = {};
      if (args.phase)
        filters.currentPhase = { $or: [{ documentId: { $eq: args.phase } }, { slug: { $eq: args.phase } }] };
      if (args.assignee) filters.assignees = { documentId: { $eq: args.assignee } };
      if (args.tag) filters.tags = { slug: { $eq: args.tag } };
      return unwrap(
        api.GET('/api/boards/{boardId}/cards/aggregate', {
          params: {
            path: { boardId: args.boardId },
            query: { ...defined({ field: args.field, fn: args.fn, groupBy: args.groupBy }), filters },
          },
        }),
        apiUrl,
      );
    },
  }),
];
