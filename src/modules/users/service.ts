import type { z } from 'zod';
import { hashPassword, verifyPassword } from '../../platform/auth/passwords.js';
import type { Principal } from '../../platform/auth/plugin.js';
import { newApiToken, sha256, TOKEN_EXPIRATIONS } from '../../platform/auth/tokens.js';
import type { AppDeps } from '../../platform/deps.js';
import { AppError, isUniqueViolation, notFound } from '../../platform/http/errors.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { listUserOrganizations } from '../organizations/index.js';
import * as repo from './repo.js';
import type { generateTokenInput, loginInput, registerInput, updateMeInput } from './schema.js';

// Verifying against a real hash when the user does not exist keeps both paths equally slow.
let dummyHash: Promise<string> | undefined;

export async function login({ db, signer }: AppDeps, input: z.infer<typeof loginInput>) {
  const user = await repo.findUserByIdentifier(db.system, input.identifier.trim());
  dummyHash ??= hashPassword('not-a-real-password');
  const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash), input.password);
  if (!user || !ok) throw new AppError('ValidationError', 'Invalid identifier or password');
  if (user.blocked)
    throw new AppError('ValidationError', 'Your account has been blocked by an administrator');
  return {
    jwt: await signer.sign(user.id),
    user: { id: user.id, username: user.username, email: user.email, name: user.name },
  };
}

export async function register({ db, signer }: AppDeps, input: z.infer<typeof registerInput>) {
  const passwordHash = await hashPassword(input.password);
  const user = await repo.insertUser(db.system, { ...input, passwordHash }).catch((err) => {
    if (isUniqueViolation(err)) {
      throw new AppError('ValidationError', 'Email or Username are already taken', {
        errors: [
          { path: ['email'], message: 'Email or Username are already taken', name: 'ValidationError' },
        ],
      });
    }
    throw err;
  });
  return {
    jwt: await signer.sign(user.id),
    user: { id: user.id, username: user.username, email: user.email, name: user.name },
  };
}

export async function generateToken(
  deps: AppDeps,
  principal: Principal,
  input: z.infer<typeof generateTokenInput>,
) {
  if (principal.via !== 'session') {
    throw new AppError('ForbiddenError', 'API tokens are generated with a session JWT from POST /auth/local');
  }
  return issueToken(deps, principal.userId, input);
}

/** Mints a token for a user (the CLI uses it directly; the API only from a session). */
export async function issueToken({ db }: AppDeps, userId: number, input: z.infer<typeof generateTokenInput>) {
  const token = newApiToken();
  const expiresAt = new Date(Date.now() + TOKEN_EXPIRATIONS[input.expiration] * 86_400_000);
  const row = await repo.insertToken(db.system, {
    userId,
    name: input.name ?? `API token (${input.expiration})`,
    tokenHash: sha256(token),
    tokenPrefix: token.slice(0, 12),
    scopes: input.scopes ?? null,
    expiresAt,
  });
  return { ...toTokenInfo(row), token };
}

export async function listTokens({ db }: AppDeps, principal: Principal) {
  return (await repo.listTokens(db.system, principal.userId)).map(toTokenInfo);
}

export async function revokeToken({ db }: AppDeps, principal: Principal, documentId: string) {
  if (!(await repo.deleteToken(db.system, principal.userId, documentId))) {
    throw notFound('Token');
  }
  return { documentId, deleted: true as const };
}

export async function getMe({ db }: AppDeps, principal: Principal) {
  const user = await repo.findUserById(db.system, principal.userId);
  if (!user) throw new AppError('UnauthorizedError', 'Missing or invalid credentials');
  const orgs = await listUserOrganizations(db.system, user.id, 0, 1000);
  return {
    id: user.id,
    documentId: user.documentId,
    username: user.username,
    email: user.email,
    name: user.name,
    mentionEmails: user.mentionEmails,
    blocked: user.blocked,
    confirmed: user.confirmed,
    createdAt: isoRequired(user.createdAt),
    updatedAt: isoRequired(user.updatedAt),
    organizations: orgs.rows.map((o) => ({
      documentId: o.documentId,
      name: o.name,
      slug: o.slug,
      role: o.role,
      membershipId: o.membershipDocumentId,
    })),
  };
}

/** Changes the person's own profile (display name, mention e-mails) and answers like GET /users/me. */
export async function updateMe(deps: AppDeps, principal: Principal, input: z.infer<typeof updateMeInput>) {
  const user = await repo.updateProfile(deps.db.system, principal.userId, input);
  if (!user) throw new AppError('UnauthorizedError', 'Missing or invalid credentials');
  return getMe(deps, principal);
}

function toTokenInfo(row: repo.TokenRow) {
  return {
    documentId: row.documentId,
    name: row.name,
    prefix: row.tokenPrefix,
    expiresAt: isoRequired(row.expiresAt),
    scopes: row.scopes,
    lastUsedAt: iso(row.lastUsedAt),
    createdAt: isoRequired(row.createdAt),
  };
}
