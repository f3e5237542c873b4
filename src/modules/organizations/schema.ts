import { z } from 'zod';
import { PLANS } from '../../config.js';
import { userRef } from '../../platform/http/schemas.js';
import { ROLES } from '../../platform/tenancy/context.js';

export const slugPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const organizationInput = z.strictObject({
  name: z.string().trim().min(1).max(120),
  slug: z.string().trim().toLowerCase().regex(slugPattern, 'lowercase letters, digits and dashes').optional(),
});

export const organization = z
  .object({
    documentId: z.string(),
    name: z.string(),
    slug: z.string(),
    plan: z.enum(PLANS),
    role: z.enum(ROLES).describe('the role of the authenticated user in it'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Organization' });

export const membershipInput = z.strictObject({
  email: z.string().trim().toLowerCase().pipe(z.email()).describe('email of a registered user'),
  role: z.enum(ROLES).default('member'),
});
export const membershipUpdate = z.strictObject({ role: z.enum(ROLES) });

export const membership = z
  .object({
    documentId: z.string(),
    role: z.enum(ROLES),
    user: userRef,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Membership' });
