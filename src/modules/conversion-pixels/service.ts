import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { notFound, validationError } from '../../platform/http/errors.js';
import type { ListQueryInput } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { logPage, tablePage } from '../../platform/http/table-pages.js';
import { type ServerEvent, sendServerEvents } from '../../platform/providers/conversions/client.js';
import { toBadGateway } from '../../platform/providers/provider-error.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { requireFeatureAdmin, type TenantContext } from '../../platform/tenancy/context.js';
import { findBoard, findBoardById, loadBoardStructure } from '../boards/index.js';
import * as repo from './repo.js';
import type { Pixel, PixelInput, PixelUpdate } from './schema.js';
import { conversionEvents as events, conversionPixels as pixels } from './table.js';

export const sealContext = (orgId: number, documentId: string) => `conversion_pixel:${orgId}:${documentId}`;

async function present(tx: Tx, orgId: number, row: repo.PixelRow): Promise<Pixel> {
  const board = (await findBoardById(tx, orgId, row.boardId))!;
  let trigger: Pixel['trigger'] = 'won';
  if (row.triggerType === 'phase') {
    const structure = await loadBoardStructure(tx, orgId, row.boardId);
    const phase = structure.phasesById.get(row.triggerPhaseId!);
    trigger = { phase: { documentId: phase?.documentId ?? '', slug: phase?.slug ?? '' } };
  }
  return {
    documentId: row.documentId,
    name: row.name,
    pixelId: row.pixelId,
    hasAccessToken: true,
    board: { documentId: board.documentId, name: board.name },
    trigger,
    enabled: row.enabled,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

/** The board and trigger of an input, checked: unknown board or phase → 400 naming the valid phases. */
async function resolveTarget(tx: Tx, orgId: number, boardRef: string, trigger: PixelInput['trigger']) {
  const board = await findBoard(tx, orgId, boardRef);
  if (!board)
    throw validationError(`Unknown board ${boardRef}`, [
      { path: ['board'], message: 'no board with this documentId' },
    ]);
  const structure = await loadBoardStructure(tx, orgId, board.id);
  if (trigger === 'won') {
    if (!structure.settings.wonPhaseId)
      throw validationError(
        'The board has no won phase: set boardSettings.wonPhase or use trigger { phase }',
        [{ path: ['trigger'], message: 'the board has no won phase' }],
      );
    return { boardId: board.id, triggerType: 'won', triggerPhaseId: null };
  }
  const phase = structure.phases.find((p) => p.documentId === trigger.phase || p.slug === trigger.phase);
  if (!phase)
    throw validationError(
      `Unknown phase ${trigger.phase}; phases of this board: ${structure.phases.map((p) => p.slug).join(', ')}`,
      [{ path: ['trigger', 'phase'], message: 'no such phase on the board' }],
    );
  return { boardId: board.id, triggerType: 'phase', triggerPhaseId: phase.id };
}

async function findIn(tx: Tx, orgId: number, documentId: string) {
  const row = await repo.findPixel(tx, orgId, documentId);
  if (!row) throw notFound('Conversion pixel');
  return row;
}

export async function listPixels(ctx: TenantContext, query: ListQueryInput) {
  requireFeatureAdmin(ctx, 'conversions');
  return tablePage(ctx, repo.pixelModel, pixels, query, (tx, r) => present(tx, ctx.orgId, r));
}

export async function getPixel(ctx: TenantContext, documentId: string) {
  requireFeatureAdmin(ctx, 'conversions');
  return ctx.transaction(async (tx) => present(tx, ctx.orgId, await findIn(tx, ctx.orgId, documentId)));
}

export async function createPixel(deps: AppDeps, ctx: TenantContext, input: PixelInput) {
  requireFeatureAdmin(ctx, 'conversions');
  const box = await secretBox(deps.config, deps.db);
  const documentId = newDocumentId();
  return ctx.transaction(async (tx) => {
    const target = await resolveTarget(tx, ctx.orgId, input.board, input.trigger);
    const row = await repo.insertPixel(tx, ctx.orgId, {
      documentId,
      name: input.name,
      pixelId: input.pixelId,
      accessTokenSealed: box.encrypt(input.accessToken, sealContext(ctx.orgId, documentId)),
      enabled: input.enabled ?? true,
      ...target,
    });
    await audit(tx, ctx, 'conversion_pixel.created', documentId);
    return present(tx, ctx.orgId, row);
  });
}

export async function updatePixel(deps: AppDeps, ctx: TenantContext, documentId: string, input: PixelUpdate) {
  requireFeatureAdmin(ctx, 'conversions');
  const box = await secretBox(deps.config, deps.db);
  return ctx.transaction(async (tx) => {
    const row = await findIn(tx, ctx.orgId, documentId);
    const current = await present(tx, ctx.orgId, row);
    const target =
      input.board !== undefined || input.trigger !== undefined
        ? await resolveTarget(
            tx,
            ctx.orgId,
            input.board ?? current.board.documentId,
            input.trigger ??
              (current.trigger === 'won' ? 'won' : { phase: current.trigger.phase.documentId }),
          )
        : {};
    const updated = await repo.updatePixel(tx, ctx.orgId, documentId, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.pixelId !== undefined ? { pixelId: input.pixelId } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.accessToken !== undefined
        ? { accessTokenSealed: box.encrypt(input.accessToken, sealContext(ctx.orgId, documentId)) }
        : {}),
      ...target,
    });
    await audit(tx, ctx, 'conversion_pixel.updated', documentId);
    return present(tx, ctx.orgId, updated);
  });
}

export async function deletePixel(ctx: TenantContext, documentId: string) {
  requireFeatureAdmin(ctx, 'conversions');
  return ctx.transaction(async (tx) => {
    if (!(await repo.deletePixel(tx, ctx.orgId, documentId))) throw notFound('Conversion pixel');
    await audit(tx, ctx, 'conversion_pixel.deleted', documentId);
    return { documentId, deleted: true as const };
  });
}

/**
 * Sends one test event (with a `test_event_code`, so the provider shows it in its test tool and counts nothing)
 * now; a provider failure is a 502 naming it. Logged with status `test`.
 */
export async function verifyPixel(deps: AppDeps, ctx: TenantContext, documentId: string) {
  requireFeatureAdmin(ctx, 'conversions');
  const row = await ctx.transaction((tx) => findIn(tx, ctx.orgId, documentId));
  const box = await secretBox(deps.config, deps.db);
  const token = box.decrypt(row.accessTokenSealed, sealContext(ctx.orgId, documentId));
  const testEventCode = `TEST${randomBytes(3).toString('hex').toUpperCase()}`;
  const now = new Date();
  const event: ServerEvent = {
    event_name: 'TestEvent',
    event_time: Math.floor(now.getTime() / 1000),
    event_id: `verify:${documentId}:${now.getTime()}`,
    action_source: 'system_generated',
    user_data: { em: [], ph: [] },
  };
  const answer = await sendServerEvents(deps.config, row.pixelId, token, [event], testEventCode).catch(
    async (err) => {
      await logTest(ctx, row.id, event, null, (err as Error).message);
      return toBadGateway(err);
    },
  );
  await logTest(ctx, row.id, event, answer, null);
  return { ok: true as const, eventsReceived: answer?.events_received ?? null, testEventCode, event };
}

async function logTest(
  ctx: TenantContext,
  pixelId: number,
  event: ServerEvent,
  response: unknown,
  error: string | null,
) {
  await ctx.transaction((tx) =>
    repo.insertTestEvent(tx, ctx.orgId, {
      pixelId,
      dedupId: event.event_id,
      eventName: event.event_name,
      eventTime: new Date(event.event_time * 1000),
      status: error ? 'failed' : 'test',
      attempts: 1,
      payload: event,
      response: response ?? null,
      lastError: error,
      sentAt: error ? null : new Date(),
    }),
  );
}

export async function listEvents(
  ctx: TenantContext,
  documentId: string,
  query: { pagination?: ListQueryInput['pagination']; status?: string },
) {
  requireFeatureAdmin(ctx, 'conversions');
  return logPage(
    ctx,
    repo.pixelModel,
    events,
    query,
    async (tx) => repo.eventsOf((await findIn(tx, ctx.orgId, documentId)).id),
    (e) => ({
      id: e.id,
      eventId: e.dedupId,
      eventName: e.eventName,
      card: e.cardDocumentId,
      status: e.status as 'pending' | 'sent' | 'failed' | 'skipped' | 'test',
      attempts: e.attempts,
      lastError: e.lastError,
      payload: e.payload,
      response: e.response,
      sentAt: iso(e.sentAt),
      createdAt: isoRequired(e.createdAt),
    }),
  );
}

export type ConversionsConfig = Pick<
  Config,
  'CRM_CONVERSIONS_API_URL' | 'CRM_CONVERSIONS_API_VERSION' | 'CRM_PROVIDER_TIMEOUT_MS'
>;
