import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { instanceSecrets } from './table.js';

/** Reads a named secret, generating it once (first process wins, the others read its value). */
export async function instanceSecret(db: Database, name: string): Promise<string> {
  await db.system
    .insert(instanceSecrets)
    .values({ name, value: randomBytes(48).toString('base64url') })
    .onConflictDoNothing();
  const [row] = await db.system.select().from(instanceSecrets).where(eq(instanceSecrets.name, name));
  return row.value;
}
