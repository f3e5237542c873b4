import { z } from 'zod';

export const CONFIRMATION_STATUSES = ['pending', 'approved', 'declined', 'used', 'expired'] as const;

export const confirmationInput = z.strictObject({
  tool: z.string().trim().min(1).max(120).describe('The tool the agent wants to call, e.g. `crm.move_card`'),
  summary: z.string().trim().min(1).max(2000).describe('One sentence for the person: what the call will do'),
  arguments: z.record(z.string(), z.unknown()).describe('The exact arguments of the call'),
  preview: z.unknown().optional().describe('What the call would return (the answer of its dry run)'),
  expiresInSeconds: z
    .number()
    .int()
    .min(1)
    .max(3600)
    .optional()
    .describe('How long the person has to decide (default 900, 1..3600)'),
});
export type ConfirmationInput = z.infer<typeof confirmationInput>;

export const confirmation = z
  .object({
    documentId: z.string(),
    tool: z.string(),
    summary: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    preview: z.unknown().nullable(),
    status: z
      .enum(CONFIRMATION_STATUSES)
      .describe('`pending` until the person decides; `used` once the tool server has made the call'),
    /** Relative to the service's origin: the web application's page where the person decides. */
    url: z.string().describe('The web application page where the signed-in person approves or declines'),
    expiresAt: z.string(),
    decidedAt: z.string().nullable(),
    usedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'AgentConfirmation' });
export type Confirmation = z.infer<typeof confirmation>;

export const redeemInput = z.strictObject({
  tool: z.string().min(1).max(120),
  arguments: z.record(z.string(), z.unknown()),
});

export const redeemResult = z
  .object({
    redeemed: z.boolean().describe('true: approved for exactly this call, now spent; make the call'),
    reason: z
      .enum(['pending', 'declined', 'used', 'expired', 'mismatch'])
      .optional()
      .describe('Why not: still waiting, declined, already used, expired, or other tool/arguments'),
    data: confirmation,
  })
  .meta({ id: 'AgentConfirmationRedeem' });
