import { and, desc, eq, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { apiTokens, users } from './table.js';

export type UserRow = typeof users.$inferSelect;
export type TokenRow = typeof apiTokens.$inferSelect;

export async function findUserByIdentifier(ex: Executor, identifier: string) {
  const [row] = await ex
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = lower(${identifier}) or ${users.username} = ${identifier}`)
    .limit(1);
  return row;
}

export async function findUserById(ex: Executor, id: number) {
  const [row] = await ex.select().from(users).where(eq(users.id, id));
  return row;
}

export async function findUserByEmail(ex: Executor, email: string) {
  const [row] = await ex.select().from(users).where(sql`lower(${users.email}) = lower(${email})`);
  return row;
}

export async function insertUser(
  ex: Executor,
  input: { username: string; email: string; passwordHash: string; name?: string | null },
) {
  const [row] = await ex
    .insert(users)
    .values({ ...input, email: input.email.toLowerCase(), documentId: newDocumentId() })
    .returning();
  return row;
}

/** The person's own profile fields (PUT /users/me): those given change, the others stay. */
export async function updateProfile(
  ex: Executor,
  id: number,
  values: { name?: string | null; mentionEmails?: boolean },
) {
  const [row] = await ex
    .update(users)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  return row;
}

export async function insertToken(
  ex: Executor,
  input: {
    userId: number;
    name: string;
    tokenHash: string;
    tokenPrefix: string;
    scopes: string[] | null;
    expiresAt: Date;
  },
) {
  const [row] = await ex
    .insert(apiTokens)
    .values({ ...input, documentId: newDocumentId() })
    .returning();
  return row;
}

export function listTokens(ex: Executor, userId: number) {
  return ex.select().from(apiTokens).where(eq(apiTokens.userId, userId)).orderBy(desc(apiTokens.createdAt));
}

export async function deleteToken(ex: Executor, userId: number, documentId: string) {
  const rows = await ex
    .delete(apiTokens)
    .where(and(eq(apiTokens.userId, userId), eq(apiTokens.documentId, documentId)))
    .returning({ id: apiTokens.id });
  return rows.length > 0;
}

/**
 * Keeps a new pending reset code (its hash) for the user, replacing any earlier one, unless the earlier one was
 * made less than `cooldownMs` ago (then nothing changes and the answer is false: no second e-mail, and the link
 * already sent keeps working).
 */
export async function setPasswordReset(
  ex: Executor,
  id: number,
  hash: string,
  expiresAt: Date,
  cooldownMs: number,
) {
  const latest = new Date(expiresAt.getTime() - cooldownMs);
  const rows = await ex
    .update(users)
    .set({ passwordResetHash: hash, passwordResetExpiresAt: expiresAt, updatedAt: new Date() })
    .where(
      and(
        eq(users.id, id),
        sql`(${users.passwordResetExpiresAt} is null or ${users.passwordResetExpiresAt} <= ${latest})`,
      ),
    )
    .returning({ id: users.id });
  return rows.length > 0;
}

/**
 * Takes the pending reset code with this hash, once: the user it was for, with the code cleared in the same
 * statement (a second use finds nothing); undefined when unknown, expired or the user is blocked.
 */
export async function takePasswordReset(ex: Executor, hash: string) {
  const [row] = await ex
    .update(users)
    .set({ passwordResetHash: null, passwordResetExpiresAt: null })
    .where(
      and(
        eq(users.passwordResetHash, hash),
        sql`${users.passwordResetExpiresAt} > now()`,
        eq(users.blocked, false),
      ),
    )
    .returning();
  return row;
}

/**
 * Sets the password and ends the user's sessions issued before this second (a pending reset code is dropped):
 * the JWT signed right after still stands. The second is this process's clock, the one that signs the JWT's
 * `iat` (the database's could be ahead and refuse the new session).
 */
export async function setPassword(ex: Executor, id: number, passwordHash: string) {
  const [row] = await ex
    .update(users)
    .set({
      passwordHash,
      sessionsValidFrom: new Date(Math.floor(Date.now() / 1000) * 1000),
      passwordResetHash: null,
      passwordResetExpiresAt: null,
      updatedAt: new Date(),
    })
    .where(eq(users.id, id))
    .returning();
  return row;
}

/**
 * Of an organization's memberships (internal ids), those whose user takes the e-mail of a mention: not blocked and
 * `mention_emails` on; keyed by membership id, with the address and the name to greet (the username when none).
 */
export async function mentionMailRecipients(ex: Executor, orgId: number, membershipIds: number[]) {
  if (membershipIds.length === 0) return new Map<number, { email: string; name: string }>();
  const rows = await queryRows<{ id: number; email: string; name: string }>(
    ex,
    sql`select m.id, u.email, coalesce(u.name, u.username) as name
      from memberships m join users u on u.id = m.user_id
      where m.organization_id = ${orgId} and m.id in ${membershipIds} and u.mention_emails and not u.blocked`,
  );
  return new Map(rows.map((r) => [Number(r.id), { email: r.email, name: r.name }]));
}
