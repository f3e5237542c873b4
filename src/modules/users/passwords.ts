import type { z } from 'zod';
import { publicBaseUrl } from '../../config.js';
import { hashPassword, verifyPassword } from '../../platform/auth/passwords.js';
import type { Principal } from '../../platform/auth/plugin.js';
import { randomToken, sha256 } from '../../platform/auth/tokens.js';
import type { AppDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import { enqueueMail } from '../../platform/mail/mailer.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import * as repo from './repo.js';
import type { changePasswordInput, forgotPasswordInput, resetPasswordInput } from './schema.js';

/**
 * Passwords (docs/security.md, "Passwords"): a forgotten one is reset through a code e-mailed once (single use,
 * an hour, kept as its SHA-256; the queued e-mail's body sealed), a known one changed with the current one. Either
 * change ends every session issued before it; the answer carries a fresh session JWT. Strapi's routes and shapes.
 */

export const PASSWORD_RESET_PREFIX = 'crm_pwr_';
export const PASSWORD_RESET_MINUTES = 60;
/** One reset e-mail per address per minute: requests from many addresses cannot flood an inbox or keep killing the link. */
export const PASSWORD_RESET_COOLDOWN_MS = 60_000;

const mismatch = () =>
  new AppError(
    'ValidationError',
    'Passwords do not match: send the same new password in passwordConfirmation',
    {
      errors: [{ path: ['passwordConfirmation'], message: 'must equal password', name: 'ValidationError' }],
    },
  );

async function sessionOf(deps: AppDeps, user: repo.UserRow) {
  return {
    jwt: await deps.signer.sign(user.id),
    user: { id: user.id, username: user.username, email: user.email, name: user.name },
  };
}

/**
 * `POST /auth/forgot-password`: e-mails a reset link to the address when it is an account's (not blocked). The
 * answer is the same whether or not it is, so nobody learns who is registered.
 */
export async function forgotPassword(deps: AppDeps, input: z.infer<typeof forgotPasswordInput>) {
  const user = await repo.findUserByEmail(deps.db.system, input.email);
  if (user && !user.blocked) {
    const code = randomToken(PASSWORD_RESET_PREFIX);
    const expiresAt = new Date(Date.now() + PASSWORD_RESET_MINUTES * 60_000);
    const seal = await secretBox(deps.config, deps.db);
    await deps.db.system.transaction(async (tx) => {
      if (!(await repo.setPasswordReset(tx, user.id, sha256(code), expiresAt, PASSWORD_RESET_COOLDOWN_MS)))
        return;
      // The code is the secret: the queued mail's body is sealed (only its hash is stored in clear).
      await enqueueMail(deps.jobs, resetMail(deps, user, code, expiresAt), { tx, seal });
    });
  }
  return { ok: true as const };
}

function resetMail(deps: AppDeps, user: repo.UserRow, code: string, expiresAt: Date) {
  const base = publicBaseUrl(deps.config);
  return {
    to: user.email,
    subject: 'Redefinir sua senha / Reset your password',
    text:
      `Olá, ${user.name ?? user.username}.\n\n` +
      `Para escolher uma nova senha, abra: ${base}/app/reset-password?code=${code}\n\n` +
      `O link vale até ${expiresAt.toISOString()} e funciona uma vez. Se você não pediu, ignore esta mensagem: ` +
      'sua senha continua a mesma.\n\n---\n\n' +
      `Hello ${user.name ?? user.username},\n\nTo choose a new password, open: ${base}/app/reset-password?code=${code}\n` +
      `(or send POST ${base}/api/auth/reset-password with { "code": "${code}", "password": …, ` +
      '"passwordConfirmation": … }).\n\n' +
      `The link expires ${expiresAt.toISOString()} and works once. If you did not ask for it, ignore this ` +
      'message: your password stays as it is.\n',
  };
}

/** `POST /auth/reset-password`: the e-mailed code (once, before it expires) sets a new password. */
export async function resetPassword(deps: AppDeps, input: z.infer<typeof resetPasswordInput>) {
  if (input.password !== input.passwordConfirmation) throw mismatch();
  const passwordHash = await hashPassword(input.password);
  const user = await deps.db.system.transaction(async (tx) => {
    const taken = await repo.takePasswordReset(tx, sha256(input.code));
    return taken && repo.setPassword(tx, taken.id, passwordHash);
  });
  if (!user)
    throw new AppError(
      'ValidationError',
      'Incorrect code provided: the link is unknown, already used or expired; ask for a new one (POST /api/auth/forgot-password)',
      { errors: [{ path: ['code'], message: 'unknown, used or expired', name: 'ValidationError' }] },
    );
  return sessionOf(deps, user);
}

/** `POST /auth/change-password`: with the current password, from a session (not an API or OAuth token). */
export async function changePassword(
  deps: AppDeps,
  principal: Principal,
  input: z.infer<typeof changePasswordInput>,
) {
  if (principal.via !== 'session')
    throw new AppError('ForbiddenError', 'A password is changed with a session JWT from POST /auth/local');
  if (input.password !== input.passwordConfirmation) throw mismatch();
  const user = await repo.findUserById(deps.db.system, principal.userId);
  if (!user || !(await verifyPassword(user.passwordHash, input.currentPassword)))
    throw new AppError('ValidationError', 'The provided current password is invalid', {
      errors: [{ path: ['currentPassword'], message: 'invalid', name: 'ValidationError' }],
    });
  if (input.currentPassword === input.password)
    throw new AppError('ValidationError', 'Your new password must be different from the current one', {
      errors: [{ path: ['password'], message: 'same as the current one', name: 'ValidationError' }],
    });
  const updated = await repo.setPassword(deps.db.system, user.id, await hashPassword(input.password));
  return sessionOf(deps, updated);
}
