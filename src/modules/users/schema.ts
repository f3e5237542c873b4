import { z } from 'zod';
import { SCOPES, scopeSchema } from '../../platform/auth/scopes.js';
import { TOKEN_EXPIRATIONS } from '../../platform/auth/tokens.js';

export const loginInput = z.strictObject({
  identifier: z.string().min(1).describe('email or username'),
  password: z.string().min(1),
});

/** A display name: trimmed, 1 to 120 characters. */
export const displayName = z
  .string()
  .trim()
  .min(1, 'name must not be empty: send null to clear it')
  .max(120, 'name must be at most 120 characters')
  .describe('display name shown instead of the username (trimmed, 1 to 120 characters)');

export const registerInput = z.strictObject({
  username: z
    .string()
    .trim()
    .min(3)
    .max(60)
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash, underscore'),
  email: z.string().trim().toLowerCase().pipe(z.email()),
  password: z.string().min(8).max(200),
  name: displayName.optional(),
});

/** A new password, as at sign-up: 8 to 200 characters. */
const newPassword = z.string().min(8, 'at least 8 characters').max(200, 'at most 200 characters');

/** POST /auth/forgot-password (Strapi's shape). */
export const forgotPasswordInput = z.strictObject({
  email: z.string().trim().toLowerCase().pipe(z.email()).describe("the account's e-mail address"),
});

/** POST /auth/reset-password (Strapi's shape): the e-mailed code and the new password twice. */
export const resetPasswordInput = z.strictObject({
  code: z.string().min(1).max(200).describe('the code of the e-mailed link'),
  password: newPassword,
  passwordConfirmation: z.string().max(200).describe('the new password again'),
});

/** POST /auth/change-password (Strapi's shape). */
export const changePasswordInput = z.strictObject({
  currentPassword: z.string().min(1).max(200),
  password: newPassword,
  passwordConfirmation: z.string().max(200).describe('the new password again'),
});

/** PUT /users/me: what a person may change about themselves. */
export const updateMeInput = z
  .strictObject({
    name: displayName
      .nullable()
      .optional()
      .describe('display name (trimmed, 1 to 120 characters); null clears it'),
    mentionEmails: z
      .boolean()
      .optional()
      .describe("whether a comment's mention of you is also e-mailed (the notification is made anyway)"),
  })
  .refine((d) => d.name !== undefined || d.mentionEmails !== undefined, {
    message: 'send at least one of name, mentionEmails',
  });

export const authUser = z.object({
  id: z.number().int(),
  username: z.string(),
  email: z.string(),
  name: z.string().nullable(),
});
export const authResult = z.object({ jwt: z.string(), user: authUser });

export const expirations = Object.keys(TOKEN_EXPIRATIONS) as [
  keyof typeof TOKEN_EXPIRATIONS,
  ...(keyof typeof TOKEN_EXPIRATIONS)[],
];
export const generateTokenInput = z.strictObject({
  expiration: z.enum(expirations).describe('1d, 30d, 365d or 36500d (about 100 years)'),
  name: z.string().trim().min(1).max(120).optional(),
  scopes: z
    .array(scopeSchema)
    .min(1)
    .max(SCOPES.length)
    .optional()
    .describe(
      'narrow the token to these scopes (area:read or area:write; write includes read), e.g. ["chat:read"]; default: all of the role. The catalogue is closed: docs/security.md',
    ),
});

export const tokenInfo = z.object({
  documentId: z.string(),
  name: z.string(),
  prefix: z.string(),
  expiresAt: z.string(),
  scopes: z.array(z.string()).nullable(),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
});
/** What the bearer of a request may do: any token may read its own scopes (agent servers list tools by them). */
export const currentCredential = z.object({
  via: z
    .string()
    .describe(
      'how the request authenticated: `session` (a session JWT), `token` (an API token) or `oauth` (an OAuth access token)',
    ),
  scopes: z
    .array(z.string())
    .nullable()
    .describe(
      "the token's scopes (area:read / area:write); null: all of the user's role (a session or an unscoped token)",
    ),
});

export const createdToken = tokenInfo.extend({ token: z.string().describe('shown once; store it now') });

export const me = z.object({
  id: z.number().int(),
  documentId: z.string(),
  username: z.string(),
  email: z.string(),
  name: z.string().nullable().describe('display name; null: not set (show the username)'),
  mentionEmails: z
    .boolean()
    .describe("whether a comment's mention of this person is also e-mailed (default true; PUT /users/me)"),
  blocked: z.boolean(),
  confirmed: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  organizations: z.array(
    z.object({
      documentId: z.string(),
      name: z.string(),
      slug: z.string(),
      role: z.string(),
      membershipId: z.string(),
    }),
  ),
});
