import type { AppDeps } from '../../platform/deps.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { tags } from './route-docs.js';
import { acceptedInvitation, invitationPreview, previewParams, tokenParams } from './schema.js';
import * as service from './service.js';

/** What the invited person does with the e-mailed link: see what it offers, accept it, decline it. */
export function registerInviteeRoutes(app: RouteApp, deps: AppDeps) {
  app.get(
    '/invitations/:id',
    {
      config: { auth: 'public', ...strictBucket(deps.config, 'public') },
      schema: {
        tags,
        summary: 'What an invitation link offers (public): organization, role, invited address, status',
        description: '`{id}` is the token of the e-mailed link (crm_inv_…), not the invitation documentId.',
        params: previewParams,
        response: { 200: invitationPreview },
      },
    },
    async (req) => service.previewInvitation(deps, req.params.id),
  );

  app.post(
    '/invitations/:token/accept',
    {
      config: { scope: 'account:write', auth: 'user' },
      schema: {
        tags,
        summary: 'Accept an invitation: become a member (signed in with the invited address)',
        description:
          'Another account → 403; unknown or revoked link → 404; expired, declined or used up → 422. Accepting ' +
          'again answers the same membership.',
        params: tokenParams,
        response: { 200: acceptedInvitation },
      },
    },
    async (req) => service.acceptInvitation(deps, req.principal!, req.params.token),
  );

  app.post(
    '/invitations/:token/decline',
    {
      config: { scope: 'account:write', auth: 'user' },
      schema: {
        tags,
        summary: 'Decline an invitation (signed in with the invited address); the link is used up',
        params: tokenParams,
        response: { 200: invitationPreview },
      },
    },
    async (req) => service.declineInvitation(deps, req.principal!, req.params.token),
  );
}
