import { z } from 'zod';
import { membershipRef } from '../../platform/http/schemas.js';
import { ROLES } from '../../platform/tenancy/context.js';
import { membership } from '../organizations/index.js';

export const INVITATION_STATUSES = ['pending', 'expired', 'accepted', 'declined'] as const;

export const invitationInput = z.strictObject({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email())
    .describe('where the invitation goes; it need not belong to a registered user yet'),
  role: z.enum(ROLES).default('member').describe('the role given on acceptance (owner: by owners only)'),
});
export type InvitationInput = z.infer<typeof invitationInput>;

/** What admins see (POST /memberships, GET /invitations). The same whether or not the address has an account. */
export const invitation = z
  .object({
    documentId: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    status: z.enum(INVITATION_STATUSES),
    expiresAt: z.string(),
    invitedBy: membershipRef.nullable().describe('null when the inviter is no longer a member'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Invitation' });
export type Invitation = z.infer<typeof invitation>;

const linkToken = z
  .string()
  .min(1)
  .max(128)
  .describe('the token of the link in the invitation e-mail (crm_inv_…)');
/** Path parameter of the invitee's routes: the token of the e-mailed link. */
export const tokenParams = z.object({ token: linkToken });
/**
 * The same for `GET /invitations/{id}`: OpenAPI treats `/invitations/{token}` and `/invitations/{id}` (revoke) as
 * one path, so the parameter keeps the one name; here it holds the link's token, not a documentId.
 */
export const previewParams = z.object({ id: linkToken });

const organizationRef = z.object({ documentId: z.string(), name: z.string(), slug: z.string() });

/** What the link shows its holder before accepting. */
export const invitationPreview = z
  .object({
    organization: organizationRef,
    email: z.string().describe('the address invited: accept while signed in to the account with it'),
    role: z.enum(ROLES),
    status: z.enum(INVITATION_STATUSES),
    expiresAt: z.string(),
    invitedBy: z.object({ username: z.string() }).nullable(),
  })
  .meta({ id: 'InvitationPreview' });
export type InvitationPreview = z.infer<typeof invitationPreview>;

export const acceptedInvitation = z
  .object({
    organization: organizationRef.describe('use its slug as x-tenant-id'),
    membership,
  })
  .meta({ id: 'AcceptedInvitation' });
