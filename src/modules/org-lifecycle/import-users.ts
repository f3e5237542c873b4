import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../platform/db/client.js';
import { type ExportedUser, ImportRefusedError } from './archive-format.js';

/**
 * The members' users of an export against this database's users: the same user (same id and documentId) is
 * kept as it is; one missing is created with its id and no usable password (`crm user password` sets one);
 * an id, e-mail or username held here by someone else refuses the import (ids are kept, never remapped).
 */
export async function checkUsers(ex: Executor, users: ExportedUser[]): Promise<ExportedUser[]> {
  if (!users.length) return [];
  const ids = users.map((u) => u.id);
  const here = await queryRows<ExportedUser>(
    ex,
    sql`select id, document_id as "documentId", username, email from users
        where id = any(${sql.raw(`array[${ids.map(Number).join(',')}]::bigint[]`)})
           or email in (${sql.join(
             users.map((u) => sql`${u.email}`),
             sql`, `,
           )}) or username in (${sql.join(
             users.map((u) => sql`${u.username}`),
             sql`, `,
           )})`,
  );
  const missing: ExportedUser[] = [];
  for (const u of users) {
    const same = here.find((h) => h.id === u.id && h.documentId === u.documentId);
    if (same) continue;
    const clash = here.find((h) => h.id === u.id || h.email === u.email || h.username === u.username);
    if (clash)
      throw new ImportRefusedError(
        `user ${u.email} (id ${u.id}) of the export clashes with user ${clash.email} (id ${clash.id}) of this database: ids are kept, so the import needs the same user or none`,
      );
    missing.push(u);
  }
  return missing;
}

/** Creates the missing users (ids kept, password unusable: '!' matches no argon2 hash); answers their e-mails. */
export async function insertUsers(ex: Executor, users: ExportedUser[]): Promise<string[]> {
  for (const u of users)
    await ex.execute(
      sql`insert into users (id, document_id, username, email, password_hash, blocked, confirmed)
          overriding system value
          values (${u.id}, ${u.documentId}, ${u.username}, ${u.email}, '!', ${u.blocked}, ${u.confirmed})`,
    );
  return users.map((u) => u.email);
}
