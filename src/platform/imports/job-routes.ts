import { unlink } from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import type { AppDeps } from '../deps.js';
import { validationError } from '../http/errors.js';
import type { RouteApp } from '../http/route-app.js';
import type { QueueDef } from '../jobs/jobs.js';
import type { TenantContext } from '../tenancy/context.js';
import {
  cancelImportJob,
  createImportJob,
  getImportJob,
  importFailuresPage,
  importFailuresQuery,
  importJob,
  listImportFailures,
  optionFields,
  receiveCsv,
} from './http.js';
import { importFilePath } from './runner.js';

/**
 * The routes of a background import that are the same in every area (`POST …/imports` is the area's own: its
 * options, its access check, its documentation): the start's work once access is checked, and a job's
 * `GET`, `GET …/failures` and `POST …/cancel`.
 */

type ImportArea = 'contacts' | 'cards';

/**
 * The start route's work once the caller's access is checked: the CSV stored, the options sent as multipart fields
 * checked by `fieldOptions` (importFieldOptions or an extension of it) over the query string's, the job written and
 * its queue woken. Answers the job (for a 202).
 */
export async function startImportJob(
  req: FastifyRequest,
  deps: Pick<AppDeps, 'config' | 'jobs'>,
  start: {
    kind: ImportArea;
    queue: QueueDef;
    fieldOptions: z.ZodType<Record<string, unknown>>;
    query: Record<string, unknown>;
    /** A board's import: the board (its documentId is kept in the options, where the import reads it). */
    board?: { id: number; documentId: string };
  },
) {
  const file = await receiveCsv(req, deps.config, req.tenant.orgId);
  let options: Record<string, unknown>;
  try {
    const parsed = start.fieldOptions.safeParse(optionFields(file.fields));
    if (!parsed.success)
      throw validationError(
        'Invalid import options',
        parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
      );
    options = { ...start.query, ...parsed.data, ...(start.board && { board: start.board.documentId }) };
  } catch (err) {
    await unlink(importFilePath(deps.config, req.tenant.orgId, file.documentId)).catch(() => {});
    throw err;
  }
  const job = await createImportJob(req.tenant, deps.jobs, start.queue, deps.config, file, {
    kind: start.kind,
    boardId: start.board?.id,
    options,
  });
  deps.jobs.nudge(start.queue);
  return job;
}

export interface ImportJobRoutes<P extends z.ZodType> {
  kind: ImportArea;
  config: Pick<Config, 'CRM_DATA_DIR'>;
  /** The job's path (`/contacts/imports/:id`); its failures and cancel are below it. */
  path: string;
  params: P;
  tags: string[];
  operationIds: { get: string; failures: string; cancel: string };
  /** Rows may update existing records (contacts matched by key; cards are only created): the job says how many. */
  updates: boolean;
  /**
   * Checks that the caller may read the area's imports (write: cancel them); answers the import's documentId and,
   * for a board's import, the board's internal id.
   */
  locate(
    ctx: TenantContext,
    params: z.infer<P>,
    write: boolean,
  ): Promise<{ importId: string; boardId?: number }>;
}

/** A job's `GET`, `GET …/failures` and `POST …/cancel`, registered in the caller's scope in that order. */
export function registerImportJobRoutes<P extends z.ZodType>(app: RouteApp, area: ImportJobRoutes<P>) {
  const { kind, tags, operationIds } = area;
  const counters = area.updates ? 'rowsCreated, rowsUpdated, rowsFailed' : 'rowsCreated, rowsFailed';
  const locate = (req: FastifyRequest, write: boolean) =>
    area.locate(req.tenant, req.params as z.infer<P>, write);

  app.get(
    area.path,
    {
      config: { scope: `${kind}:read` as const },
      schema: {
        tags,
        operationId: operationIds.get,
        summary: `A background ${kind} import: status, progress, the first failures`,
        description:
          `status queued|running|done|failed|cancelled; rowsDone (committed), ${counters}, bytesDone of ` +
          'bytesTotal; the first failures with their line and reason (all: `…/failures`).',
        params: area.params,
        response: { 200: importJob },
      },
    },
    async (req) => {
      const { importId, boardId } = await locate(req, false);
      return req.tenant.transaction((tx) => getImportJob(tx, req.tenant.orgId, importId, kind, boardId));
    },
  );

  app.get(
    `${area.path}/failures`,
    {
      config: { scope: `${kind}:read` as const },
      schema: {
        tags,
        operationId: operationIds.failures,
        summary: `A background ${kind} import's skipped rows, by row: line, field and reason (paginated)`,
        description:
          'Every row the import skipped (up to 10,000 kept; rowsFailed counts all), ordered by row: the data row number, ' +
          "the file's line where it ends, the field at fault (null when none) and the reason.",
        params: area.params,
        querystring: importFailuresQuery,
        response: { 200: importFailuresPage },
      },
    },
    async (req) => {
      const { importId, boardId } = await locate(req, false);
      return req.tenant.transaction((tx) =>
        listImportFailures(tx, req.tenant.orgId, importId, kind, req.query, boardId),
      );
    },
  );

  app.post(
    `${area.path}/cancel`,
    {
      config: { scope: `${kind}:write` as const },
      schema: {
        tags,
        operationId: operationIds.cancel,
        summary: `Cancel a background ${kind} import (the batches committed stay)`,
        description:
          'A queued or running import stops after the batch being written (its rows stay written); the stored file ' +
          'is removed. An import already finished is answered as it is.',
        params: area.params,
        response: { 200: importJob },
      },
    },
    async (req) => {
      const { importId, boardId } = await locate(req, true);
      const job = await req.tenant.transaction((tx) =>
        cancelImportJob(tx, req.tenant.orgId, importId, kind, boardId),
      );
      if (job.status === 'cancelled')
        await unlink(importFilePath(area.config, req.tenant.orgId, job.documentId)).catch(() => {});
      return job;
    },
  );
}
