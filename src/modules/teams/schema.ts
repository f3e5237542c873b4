import { z } from 'zod';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { userRef } from '../../platform/http/schemas.js';
import { ROLES } from '../../platform/tenancy/context.js';

export const teamInput = z.strictObject({
  name: z.string().trim().min(1).max(120),
  description: z.string().trim().max(2000).nullish(),
});
export const teamUpdate = teamInput.partial();

export const team = z
  .object({
    documentId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    memberCount: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Team' });

/** A member of a team: the MembershipRef (documentId = membership documentId) plus role and when added. */
export const teamMember = z
  .object({
    documentId: z.string().describe('membership documentId'),
    user: userRef,
    role: z.enum(ROLES),
    addedAt: z.string(),
  })
  .meta({ id: 'TeamMember' });

export const teamMemberInput = z.strictObject({
  membership: z.string().min(1).max(64).describe('membership documentId'),
});

export const teamMemberParams = z.object({
  id: z.string().min(1).max(64).describe('team documentId'),
  membershipId: z.string().min(1).max(64).describe('membership documentId'),
});

export const teamListQuery = listQuerySchema;
