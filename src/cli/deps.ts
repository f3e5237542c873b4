import { type Config, databaseOptions } from '../config.js';
import type { ensureDemo } from '../modules/organizations/demo.js';
import { modules } from '../modules.js';
import { sessionSigner } from '../platform/auth/tokens.js';
import { openDatabase } from '../platform/db/client.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import type { AppDeps } from '../platform/deps.js';
import { instanceSecret } from '../platform/secrets/secrets.js';
import { startJobs } from '../workers.js';

/** Opens and migrates the database, runs `fn` with the service's dependencies, then closes everything. */
export async function withDeps<T>(config: Config, fn: (deps: AppDeps) => Promise<T>): Promise<T> {
  const db = await openDatabase(databaseOptions(config));
  try {
    await migrateDatabase(db, modules);
    const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt')));
    const { jobs, mailer, metrics } = await startJobs(config, db, false);
    try {
      return await fn({ config, db, signer, jobs, mailer, metrics });
    } finally {
      await jobs.stop();
    }
  } finally {
    await db.close();
  }
}

export function printDemo(url: string, demo: Awaited<ReturnType<typeof ensureDemo>>) {
  const { credentials: creds, created, board } = demo;
  if (!creds) {
    console.log(
      `Demo organization "demo" exists (credentials file not found in the data dir); its board: ${board.name} (${board.documentId}).`,
    );
    return;
  }
  console.log(`
${created ? 'Created the demo organization.' : 'Demo organization:'}
  API:          ${url}/api
  Docs:         ${url}/api/docs
  Web app:      ${url}/app/   (sign in with the login below)
  Organization: ${creds.organization}   (send it as x-tenant-id)
  Login:        ${creds.email} / ${creds.password}
  API token:    ${creds.token}

Try it (the members, then the cards of the board "${board.name}"):
  curl -s -H 'Authorization: Bearer ${creds.token}' -H 'x-tenant-id: ${creds.organization}' ${url}/api/memberships
  curl -s -H 'Authorization: Bearer ${creds.token}' -H 'x-tenant-id: ${creds.organization}' ${url}/api/boards/${board.documentId}/cards
`);
}
