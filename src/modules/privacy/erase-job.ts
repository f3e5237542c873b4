import { unlink } from 'node:fs/promises';
import type { Config } from '../../config.js';
import { audit } from '../../platform/audit/audit.js';
import type { Database, Tx } from '../../platform/db/client.js';
import { storagePath } from '../cards/index.js';
import * as erase from './erase-repo.js';
import {
  identifierPattern,
  nameIsDistinctive,
  type PersonIdentifiers,
  suppressionAddresses,
} from './identifiers.js';
import { addressHasher } from './keyed-hash.js';
import { exportFilePath } from './links.js';
import type { PersonRow, PrivacyRequestRow } from './repo.js';
import * as repo from './repo.js';
import { sweepJobQueue, sweepOrganization } from './sweep.js';

/**
 * The erasure job (docs/lgpd.md, "Erasure"): in one tenant transaction, the person's own rows anonymised or
 * deleted (erase-repo.ts), then every other row of the organization swept of the person's identifiers
 * (sweep.ts), and the person's unfinished exports failed (repo.stopExports); after commit, the job queue's copies
 * swept and the files removed, each failure there a warning on the done request. The audit entry and the
 * request's summary hold ids and counts only.
 */

export interface EraseDeps {
  db: Database;
  config: Config;
}

interface Patterns {
  full: string | null;
  sweep: string | null;
}

const patternsOf = (p: PersonIdentifiers): Patterns => ({
  full: identifierPattern(p, { withName: true }),
  sweep: identifierPattern(p, { withName: nameIsDistinctive(p.name) }),
});

/** The person's own rows; answers counts per kind and the storage keys of their uploads. */
async function eraseOwnRows(tx: Tx, orgId: number, person: PersonRow, full: string) {
  const addresses = suppressionAddresses(person);
  const digits = person.phone?.replace(/\D/g, '') || null;
  const cardIds = await erase.personCardIds(tx, orgId, person.id);
  const summary: Record<string, number> = {
    suppressionsHashed: await erase.hashSuppressions(tx, orgId, addresses),
    campaignRecipients: await erase.anonymiseRecipients(tx, orgId, person.id, addresses, full),
    conversations: await erase.deleteConversations(tx, orgId, person.id, digits),
    cards: await erase.scrubCards(tx, orgId, cardIds, full),
    cardRecords: await erase.scrubCardChildren(tx, orgId, cardIds, person.id, full),
    timeline: await erase.scrubTimeline(tx, orgId, person.id),
    consentProofs: await erase.scrubConsentProofs(tx, orgId, person.id),
  };
  const storageKeys = await erase.deleteCardFiles(tx, orgId, cardIds);
  summary.files = storageKeys.length;
  summary.contact = await erase.anonymiseContact(tx, orgId, person.id);
  return { summary, storageKeys };
}

export async function runErasure(deps: EraseDeps, request: PrivacyRequestRow, userId: number) {
  const { organizationId: orgId, id } = request;
  // The keyed hash's pads exist before the transaction hashes suppressions with them.
  await addressHasher(deps.db);
  let patterns: Patterns = { full: null, sweep: null };
  const { storageKeys, exports } = await deps.db.tenantTransaction(orgId, async (tx) => {
    // The person's exports wait for this transaction (worker.ts): none starts reading inside it.
    await repo.lockPerson(tx, orgId, request.contactId);
    const person = await repo.personById(tx, orgId, request.contactId, true);
    const summary: Record<string, number> = {};
    let keys: string[] = [];
    if (person) {
      patterns = patternsOf(person);
      if (patterns.full) {
        const own = await eraseOwnRows(tx, orgId, person, patterns.full);
        Object.assign(summary, own.summary);
        keys = own.storageKeys;
      } else summary.contact = await erase.anonymiseContact(tx, orgId, person.id);
      if (patterns.sweep)
        for (const [table, n] of Object.entries(await sweepOrganization(tx, orgId, patterns.sweep)))
          summary[`swept.${table}`] = n;
    }
    const stopped = await repo.stopExports(tx, orgId, request.contactId);
    await repo.updateRequest(tx, orgId, id, { status: 'done', summary, finishedAt: new Date() });
    await audit(tx, { orgId, userId }, 'contact.erased', person?.document_id ?? null, {
      request: request.documentId,
    });
    return { storageKeys: keys, exports: stopped.map((p) => p.documentId) };
  });
  // Committed: the person's data is gone from the database and the request says `done`. What follows touches
  // copies outside the organization's tables; a failure there is a warning on the done request, never `failed`.
  const warnings = await afterCommit(deps, orgId, patterns.sweep, storageKeys, exports);
  if (warnings.length)
    await deps.db.tenantTransaction(orgId, (tx) => repo.updateRequest(tx, orgId, id, { warnings }));
}

/** The job queue's copies, the uploads' files, the stopped exports' files: each failure a warning. */
async function afterCommit(
  deps: EraseDeps,
  orgId: number,
  sweep: string | null,
  storageKeys: string[],
  exports: string[],
) {
  const warnings: string[] = [];
  const reason = (err: unknown) =>
    ((err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err))).slice(0, 200);
  if (sweep)
    await sweepJobQueue(deps.db.system, orgId, sweep).catch((err) =>
      warnings.push(
        `The job queue's copies were not swept (${reason(err)}): queued jobs may still name the person until they run and age out of the queue's archive`,
      ),
    );
  const unremoved = async (paths: string[]) => {
    const failed = await Promise.all(
      paths.map((path) =>
        unlink(path).then(
          () => null,
          (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : reason(err)),
        ),
      ),
    );
    return failed.filter((f): f is string => f !== null);
  };
  const files = await unremoved(storageKeys.map((key) => storagePath(deps.config, key)));
  if (files.length)
    warnings.push(
      `${files.length} of ${storageKeys.length} uploaded files could not be removed from disk (${files[0]}): an operator removes them`,
    );
  const zips = await unremoved(exports.map((doc) => exportFilePath(deps.config, orgId, doc)));
  if (zips.length)
    warnings.push(
      `${zips.length} export files could not be removed from disk (${zips[0]}); their links no longer work`,
    );
  return warnings;
}
