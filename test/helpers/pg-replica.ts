/**
 * A PostgreSQL primary with a streaming hot standby for the replica tests: scripts/cluster/pg-pair.ts (shared with
 * the cluster harness), migrated here. `pgReplicaMissing()` says why the tests skip (no Debian server binaries).
 */

import { type PgPair, pgPairMissing, startPrimaryWithReplica } from '../../scripts/cluster/pg-pair.js';
import { modules } from '../../src/modules.js';
import { type Database, openDatabase } from '../../src/platform/db/client.js';
import { migrateDatabase } from '../../src/platform/db/migrate.js';

export type { PgPair };
export const pgReplicaMissing = pgPairMissing;

/** A started pair whose primary is migrated (the standby follows), and a Database on both. */
export async function startMigratedPair(replicaMaxLagMs = 1000): Promise<{ pair: PgPair; db: Database }> {
  const pair = await startPrimaryWithReplica();
  try {
    const db = await openReplicaDatabase(pair, replicaMaxLagMs);
    await migrateDatabase(db, modules);
    await pair.waitForReplay();
    return { pair, db };
  } catch (err) {
    await pair.stop();
    throw err;
  }
}

/** Another Database on the same pair (another "process"). */
export function openReplicaDatabase(pair: PgPair, replicaMaxLagMs = 1000): Promise<Database> {
  return openDatabase({
    databaseUrl: pair.primaryUrl,
    replicaUrl: pair.replicaUrl,
    replicaMaxLagMs,
    dataDir: 'memory://',
    poolSize: 4,
  });
}
