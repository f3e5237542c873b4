import { z } from 'zod';
import { listQueryShape } from '../../platform/http/list-query.js';
import { DISTRIBUTION_STRATEGIES } from './table.js';

const memberInput = z.strictObject({
  membership: z.string().min(1).max(64).describe('membership documentId'),
  weight: z
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('weighted strategy: share of cards (default 1)'),
  active: z
    .boolean()
    .optional()
    .describe('inactive members keep their place but get no cards (default true)'),
});

export const queueCreateInput = z.strictObject({
  name: z.string().trim().min(1).max(120),
  board: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('board documentId: its new unassigned cards are assigned (one queue per board); or give inbox'),
  inbox: z
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe(
      'numeric inbox id: its new inbound conversations are assigned (one queue per inbox); or give board',
    ),
  strategy: z
    .enum(DISTRIBUTION_STRATEGIES)
    .describe(
      'round_robin: in turn; weighted: in proportion to weight; least_open: fewest open cards on the board ' +
        '(open conversations of the inbox)',
    ),
  members: z.array(memberInput).min(1).max(200),
  active: z.boolean().optional().describe('default true'),
});
export type QueueCreateInput = z.infer<typeof queueCreateInput>;

export const queueUpdateInput = queueCreateInput
  .omit({ board: true, inbox: true })
  .partial()
  .describe(
    'the board or inbox is fixed; members, when sent, replace the list (running turns are kept for those who stay)',
  );
export type QueueUpdateInput = z.infer<typeof queueUpdateInput>;

export const distributionQueue = z
  .object({
    documentId: z.string(),
    name: z.string(),
    board: z
      .object({ documentId: z.string(), name: z.string() })
      .nullable()
      .describe('the board whose new unassigned cards are assigned; null for an inbox queue'),
    inbox: z
      .object({ id: z.number().int(), name: z.string() })
      .nullable()
      .describe('the inbox whose new inbound conversations are assigned; null for a board queue'),
    strategy: z.enum(DISTRIBUTION_STRATEGIES),
    active: z.boolean(),
    members: z.array(
      z.object({
        membership: z.object({ documentId: z.string() }),
        weight: z.number().int(),
        active: z.boolean(),
        assignedCount: z.number().int().describe('cards (conversations) this queue has assigned to them'),
        lastAssignedAt: z.string().nullable(),
      }),
    ),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'DistributionQueue' });
export type DistributionQueue = z.infer<typeof distributionQueue>;

export const queueListQuery = z.strictObject(listQueryShape);
