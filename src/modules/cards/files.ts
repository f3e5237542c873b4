import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../config.js';
import type { Database, Tx } from '../../platform/db/client.js';
import { documentIdPattern } from '../../platform/db/ids.js';
import type { WorkerDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import * as repo from './repo.js';

/**
 * The lifecycle of uploaded files (docs/cards.md, "Files"): where they live, the organization's storage
 * quota, their removal with their card or board, and the sweep of files no row references.
 *
 * A file is `<CRM_DATA_DIR>/uploads/<storage key>`, the key `<organization id>/<file documentId>`. The row in
 * `card_files` is the truth: a file is removed only after the transaction that deleted its row committed (a
 * rolled-back delete keeps both). A file whose removal was missed or failed has no row left: the sweep
 * removes it once it is older than the grace period.
 */

export const uploadsDir = (config: Config) => join(config.CRM_DATA_DIR, 'uploads');
export const storagePath = (config: Config, storageKey: string) => join(uploadsDir(config), storageKey);

/** Removes stored files; one already gone is fine, one that cannot be removed now is left to the sweep. */
export async function removeStoredFiles(config: Config, storageKeys: string[]) {
  await Promise.all(storageKeys.map((key) => unlink(storagePath(config, key)).catch(() => {})));
}

/**
 * Runs `work`, a transaction that pushes the storage keys of the file rows it deletes onto `doomed`, and
 * removes those files once it has resolved, i.e. committed. A transaction that throws removes nothing.
 */
export async function removingFiles<T>(config: Config, work: (doomed: string[]) => Promise<T>): Promise<T> {
  const doomed: string[] = [];
  const result = await work(doomed);
  await removeStoredFiles(config, doomed);
  return result;
}

// ---- quota

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(bytes % 1048576 === 0 ? 0 : 1)} MiB`;

function quotaExceeded(config: Config, used: number, fileBytes?: number) {
  const quota = config.CRM_ORG_STORAGE_QUOTA_BYTES;
  const needs = fileBytes === undefined ? '' : `, the file needs ${mib(fileBytes)}`;
  return new AppError(
    'PayloadTooLargeError',
    `The organization's storage quota of ${mib(quota)} is used up (${mib(used)} used${needs})`,
    { quotaBytes: quota, usedBytes: used, ...(fileBytes === undefined ? {} : { fileBytes }) },
  );
}

/** Before a file is received: refuses at once when the organization has no room left at all. */
export async function requireStorageLeft(tx: Tx, config: Config, orgId: number) {
  const used = await repo.organizationStorageUsed(tx, orgId);
  if (used >= config.CRM_ORG_STORAGE_QUOTA_BYTES) throw quotaExceeded(config, used);
}

/**
 * Before a received file's row is inserted (in the same transaction): usage is summed from the rows under a
 * per-organization lock held until commit, so concurrent uploads are counted one after another and the
 * quota is never overshot.
 */
export async function reserveStorage(tx: Tx, config: Config, orgId: number, fileBytes: number) {
  await repo.lockOrganizationStorage(tx, orgId);
  const used = await repo.organizationStorageUsed(tx, orgId);
  if (used + fileBytes > config.CRM_ORG_STORAGE_QUOTA_BYTES) throw quotaExceeded(config, used, fileBytes);
}

// ---- the sweep

export const uploadSweepQueue: QueueDef = { name: 'upload-sweep', expireInSeconds: 3600 };

/** Files of one organization's directory last written before `cutoff` (only names the uploads give). */
async function filesOlderThan(dir: string, cutoff: Date): Promise<string[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => documentIdPattern.test(n));
  const old: string[] = [];
  for (const name of names) {
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info?.isFile() && info.mtime < cutoff) old.push(name);
  }
  return old;
}

/**
 * Removes, per organization directory under uploads/: uploads no card took within the grace period (rows,
 * then their files), and files no row references that were last written before it. The grace spares an
 * upload in flight, whose file is written before its row is inserted. Each organization's rows are read
 * in its own tenant transaction; an organization that no longer exists has no rows, so its files all go.
 */
export async function sweepUploads(db: Database, config: Config, now = new Date()) {
  const root = uploadsDir(config);
  const cutoff = new Date(now.getTime() - config.CRM_UPLOAD_GRACE_SECONDS * 1000);
  const result = { unattachedRows: 0, orphanFiles: 0 };
  const dirs = await readdir(root).catch(() => [] as string[]);
  for (const dir of dirs.filter((d) => /^[1-9]\d{0,15}$/.test(d))) {
    const orgId = Number(dir);
    const unattached = await db.tenantTransaction(orgId, (tx) =>
      repo.deleteUnattachedFiles(tx, orgId, cutoff),
    );
    await removeStoredFiles(config, unattached);
    result.unattachedRows += unattached.length;
    const old = await filesOlderThan(join(root, dir), cutoff);
    for (let i = 0; i < old.length; i += 1000) {
      const chunk = old.slice(i, i + 1000);
      const held = await db.tenantTransaction(orgId, (tx) => repo.existingFileDocumentIds(tx, orgId, chunk));
      const orphans = chunk.filter((name) => !held.has(name));
      await removeStoredFiles(
        config,
        orphans.map((name) => `${orgId}/${name}`),
      );
      result.orphanFiles += orphans.length;
    }
  }
  return result;
}

export async function registerUploadWorkers({ db, config, jobs }: WorkerDeps) {
  await jobs.every(uploadSweepQueue, config.CRM_UPLOAD_SWEEP_SECONDS, async () => {
    await sweepUploads(db, config);
  });
}
