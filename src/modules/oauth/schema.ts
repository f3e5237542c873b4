import { z } from 'zod';

export const uidParams = z.object({
  uid: z.string().min(1).max(128).describe('the sign-in request (interaction) id'),
});

export const consentRequest = z
  .object({
    uid: z.string(),
    client: z.object({
      clientId: z.string().describe('an https URL (Client ID Metadata Document) or a registered id'),
      name: z.string().nullable(),
      uri: z.string().nullable(),
      logoUri: z.string().nullable(),
    }),
    resource: z.string().nullable().describe('the agent server the token will be for (RFC 8707)'),
    scopes: z.array(z.string()).describe('the scopes asked for, from the closed catalogue'),
    organizations: z.array(z.object({ slug: z.string(), name: z.string(), role: z.string() })),
  })
  .describe('What an application asks: shown on the consent page (/app/oauth/consent)');

export const consentDecision = z
  .object({
    approve: z.boolean().describe('true: grant; false: decline (the application gets access_denied)'),
    organization: z
      .string()
      .min(1)
      .optional()
      .describe('the slug of the organization the application will act in (required to approve)'),
  })
  .strict();

export const consentOutcome = z.object({
  redirectTo: z
    .string()
    .describe('where the browser goes next (the authorization server, then the application)'),
});

export const connectedApplication = z.object({
  id: z.string().describe('the grant id'),
  clientId: z.string(),
  name: z.string().nullable(),
  uri: z.string().nullable(),
  resource: z.string().nullable(),
  scopes: z.array(z.string()),
  organization: z.object({ slug: z.string(), name: z.string() }).nullable(),
  createdAt: z.string(),
});

export const tokenInfo = z.object({
  clientId: z.string(),
  resource: z.string().describe('the agent server the token was issued for (RFC 8707 audience)'),
  organization: z.string().describe('the slug of the organization the token acts in'),
  scopes: z.array(z.string()),
  expiresAt: z.string(),
});

export type ConsentDecision = z.infer<typeof consentDecision>;
export type ConnectedApplication = z.infer<typeof connectedApplication>;
