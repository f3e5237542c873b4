import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Config, databaseOptions } from '../config.js';
import { modules } from '../modules.js';
import { writeBackup, writeFileAtomically } from '../platform/backup/backup.js';
import { readBackup, restoreBackup } from '../platform/backup/restore.js';
import { requestBackup } from '../platform/backup/service.js';
import { DatabaseLockedError, openDatabase } from '../platform/db/client.js';
import { UsageError } from './usage.js';

/** `crm backup FILE` and `crm restore FILE [--force]` (docs/backups.md). */
export async function runBackupVerb(
  cmd: 'backup' | 'restore',
  config: Config,
  file: string | undefined,
  force: boolean,
): Promise<number> {
  if (!file) throw new UsageError(`${cmd} needs a FILE`);
  const path = resolve(file);
  if (cmd === 'restore') {
    const { manifest, replaced } = await restoreBackup(config, path, force, modules);
    console.log(
      `Restored ${path} (taken ${manifest.createdAt} by crm-service ${manifest.software}, migration ${manifest.schema.migration}, ${manifest.files.filter((f) => f.path.startsWith('uploads/')).length} uploaded files) into ${config.DATABASE_URL ? 'the PostgreSQL database of DATABASE_URL' : `${config.CRM_DATA_DIR}/db`}${replaced ? ', replacing what was there' : ''}; migrated to this build's schema.`,
    );
    return 0;
  }
  const started = Date.now();
  let via = 'this process';
  await writeFileAtomically(path, async (out) => {
    if (config.DATABASE_URL) return writeBackup({ config }, out);
    const dbDir = databaseOptions(config).dataDir;
    if (!existsSync(`${dbDir}/PG_VERSION`) && !serverPid(dbDir))
      throw new Error(`there is no embedded database in ${dbDir} (CRM_DATA_DIR=${config.CRM_DATA_DIR})`);
    // No server: this process opens the data directory itself (and holds its lock meanwhile).
    if (!serverPid(dbDir)) {
      try {
        const db = await openDatabase(databaseOptions(config));
        try {
          return await writeBackup({ db, config }, out);
        } finally {
          await db.close();
        }
      } catch (err) {
        if (!(err instanceof DatabaseLockedError)) throw err;
        // A server started meanwhile: ask it.
      }
    }
    via = `the running server (pid ${serverPid(dbDir)})`;
    return askServer(config, out);
  });
  // Read back and checked as a restore will check it.
  const manifest = await readBackup(path);
  const mb = (statSync(path).size / 1048576).toFixed(1);
  console.log(
    `Backup written to ${path} (${mb} MB, ${config.DATABASE_URL ? 'PostgreSQL' : 'embedded database'} by ${via}, migration ${manifest.schema.migration}, ${manifest.files.filter((f) => f.path.startsWith('uploads/')).length} uploaded files, ${Date.now() - started} ms; ${config.DATABASE_URL ? `card files were locked ${manifest.snapshotMs} ms for the snapshot` : `the snapshot held the database ${manifest.snapshotMs} ms`}).`,
  );
  return 0;
}

function serverPid(dbDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(`${dbDir}/.crm.lock`, 'utf8'));
    if (!pid) return undefined;
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? -1 : undefined;
  }
}

/** The server may still be starting (it opens its control channel once it listens): a few tries. */
async function askServer(config: Config, out: Parameters<typeof requestBackup>[1]) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await requestBackup(config, out);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ECONNREFUSED') && attempt < 60) {
        await sleep(500);
        continue;
      }
      if (code === 'ENOENT' || code === 'ECONNREFUSED')
        throw new Error(
          `a server holds the embedded database in ${config.CRM_DATA_DIR}/db but its control channel (${config.CRM_DATA_DIR}/run/crm.sock) does not answer: is it a crm older than 0.2, or still starting? Try again, or stop it and run crm backup alone.`,
        );
      throw err;
    }
  }
}
