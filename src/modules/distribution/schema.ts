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
    .describe('board documentId: its new unassigned cards are assigned (one queue per board)'),
  strategy: z
    .enum(DISTRIBUTION_STRATEGIES)
    .describe(
      'round_robin: in turn; weighted: in proportion to weight; least_open: fewest open cards on the board',
    ),
  members: z.array(memberInput).min(1).max(200),
  active: z.boolean().optional().describe('default true'),
});
export type QueueCreateInput = z.infer<typeof queueCreateInput>;

export const queueUpdateInput = queueCreateInput
  .omit({ board: true })
  .partial()
  .describe(
    'the board is fixed; members, when sent, replace the list (running turns are kept for those who stay)',
  );
export type QueueUpdateInput = z.infer<typeof queueUpdateInput>;

export const distributionQueue = z
  .object({
    documentId: z.string(),
    name: z.string(),
    board: z.object({ documentId: z.string(), name: z.string() }),
    inbox: z.null().describe('conversations of an inbox: when the inbox area exists'),
    strategy: z.enum(DISTRIBUTION_STRATEGIES),
    active: z.boolean(),
    members: z.array(
      z.object({
        membership: z.object({ documentId: z.string() }),
        weight: z.number().int(),
        active: z.boolean(),
        assignedCount: z.number().int().describe('cards this queue has assigned to them'),
        lastAssignedAt: z.string().nullable(),
      }),
    ),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'DistributionQueue' });
export type DistributionQueue = z.infer<typeof distributionQueue>;

export const queueListQuery = z.strictObject(listQueryShape);
