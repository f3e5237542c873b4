import { resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import { ImportRefusedError, importOrganizationArchive } from '../modules/org-lifecycle/index.js';
import { hashPassword } from '../platform/auth/passwords.js';
import { queryRows } from '../platform/db/client.js';
import { withDeps } from './deps.js';
import { UsageError } from './usage.js';

/** `crm org import FILE`: an organization export loaded into this instance's database (docs/lgpd.md). */
export async function runOrgImport(config: Config, file: string): Promise<number> {
  const path = resolve(file);
  return withDeps(config, async ({ db }) => {
    try {
      const r = await importOrganizationArchive(db, config, path);
      console.log(
        `Imported organization ${r.organization.slug} ("${r.organization.name}", id ${r.organization.id}, documentId ${r.organization.documentId}): ${r.rows} rows, ${r.files} files.`,
      );
      if (r.createdUsers.length)
        console.log(
          `Created users without a password (set one with \`crm user password --email E --password P\`): ${r.createdUsers.join(', ')}`,
        );
      return 0;
    } catch (err) {
      if (err instanceof ImportRefusedError) {
        console.error(`crm: import refused, nothing was written: ${err.message}`);
        return 1;
      }
      throw err;
    }
  });
}

/** `crm user password --email E --password P`: sets a user's password (e.g. a user an import created). */
export async function setUserPassword(config: Config, email: string, password: string): Promise<number> {
  if (password.length < 6) throw new UsageError('the password needs at least 6 characters');
  const hash = await hashPassword(password);
  return withDeps(config, async ({ db }) => {
    const rows = await queryRows<{ id: number }>(
      db.system,
      sql`update users set password_hash = ${hash}, updated_at = now() where email = ${email.toLowerCase()} returning id`,
    );
    if (!rows.length) throw new UsageError(`no user with email ${email}`);
    console.log(`Password set for ${email}.`);
    return 0;
  });
}
