import type { WorkerDeps } from '../deps.js';
import { type ImportJobData, type ImportKind, runImportJob } from './runner.js';

/** A kind's queue handler (the area's registerWorkers): each job is one run of the import. */
export async function workImportQueue<S, P>(deps: WorkerDeps, kind: ImportKind<S, P>) {
  await deps.jobs.work<ImportJobData>(kind.queue, async (data) => {
    await runImportJob(deps, kind, data);
  });
}
