import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { notFound } from '../../platform/http/errors.js';
import type { ListQueryInput } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { logPage, tablePage } from '../../platform/http/table-pages.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { requireFeatureAdmin, type TenantContext } from '../../platform/tenancy/context.js';
import { findBoardById } from '../boards/index.js';
import { newWebhookSecret } from '../webhooks/index.js';
import { maskAction, sealActions } from './headers.js';
import * as repo from './repo.js';
import type { ActionResult, Automation, AutomationInput, AutomationUpdate } from './schema.js';
import { automations, automationRuns as runs } from './table.js';
import { requirePublicTargets, validateAutomation } from './validate.js';

export const sealContext = (orgId: number, documentId: string) => `automation:${orgId}:${documentId}`;

async function present(tx: Tx, orgId: number, row: repo.AutomationRow): Promise<Automation> {
  const board = row.boardId === null ? undefined : await findBoardById(tx, orgId, row.boardId);
  return {
    documentId: row.documentId,
    name: row.name,
    enabled: row.enabled,
    board: board ? { documentId: board.documentId, name: board.name } : null,
    trigger: { event: row.triggerEvent, conditions: row.conditions as unknown[] },
    // http_request header values are write-only: names with masked values (headers.ts).
    actions: (row.actions as { type: string; params: unknown }[]).map(maskAction),
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

async function findIn(tx: Tx, orgId: number, documentId: string) {
  const row = await repo.findAutomation(tx, orgId, documentId);
  if (!row) throw notFound('Automation');
  return row;
}

export async function listAutomations(ctx: TenantContext, query: ListQueryInput) {
  requireFeatureAdmin(ctx, 'automations');
  return tablePage(ctx, repo.automationModel, automations, query, (tx, r) => present(tx, ctx.orgId, r));
}

export async function getAutomation(ctx: TenantContext, documentId: string) {
  requireFeatureAdmin(ctx, 'automations');
  return ctx.transaction(async (tx) => present(tx, ctx.orgId, await findIn(tx, ctx.orgId, documentId)));
}

export async function createAutomation(deps: AppDeps, ctx: TenantContext, input: AutomationInput) {
  requireFeatureAdmin(ctx, 'automations');
  await requirePublicTargets(deps.config.CRM_OUTBOUND_ALLOWLIST, input.actions);
  const box = await secretBox(deps.config, deps.db);
  const secret = newWebhookSecret();
  const documentId = newDocumentId();
  return ctx.transaction(async (tx) => {
    const structure = await validateAutomation(tx, ctx.orgId, input);
    const row = await repo.insertAutomation(tx, ctx.orgId, {
      documentId,
      name: input.name,
      enabled: input.enabled ?? true,
      boardId: structure?.board.id ?? null,
      triggerEvent: input.trigger.event,
      conditions: input.trigger.conditions ?? [],
      actions: sealActions(box, sealContext(ctx.orgId, documentId), input.actions),
      actorMembershipId: ctx.membershipId,
      secretSealed: box.encrypt(secret, sealContext(ctx.orgId, documentId)),
    });
    await audit(tx, ctx, 'automation.created', documentId);
    return { ...(await present(tx, ctx.orgId, row)), secret };
  });
}

/**
 * A change (also enable / disable) re-validates the whole automation; the saving admin becomes its actor.
 * New actions keep the stored http_request header values they do not replace (headers.ts).
 */
export async function updateAutomation(
  deps: AppDeps,
  ctx: TenantContext,
  documentId: string,
  input: AutomationUpdate,
) {
  requireFeatureAdmin(ctx, 'automations');
  if (input.actions) await requirePublicTargets(deps.config.CRM_OUTBOUND_ALLOWLIST, input.actions);
  const box = await secretBox(deps.config, deps.db);
  return ctx.transaction(async (tx) => {
    const row = await findIn(tx, ctx.orgId, documentId);
    const current = await present(tx, ctx.orgId, row);
    const stored = row.actions as { type: string; params: unknown }[];
    const merged = {
      board: input.board === undefined ? current.board?.documentId : input.board,
      trigger: input.trigger ?? (current.trigger as AutomationInput['trigger']),
      actions: input.actions ?? (stored as AutomationInput['actions']),
    };
    const structure = await validateAutomation(tx, ctx.orgId, merged);
    const actions = input.actions
      ? sealActions(box, sealContext(ctx.orgId, documentId), input.actions, stored)
      : stored;
    const updated = (await repo.updateAutomation(tx, ctx.orgId, documentId, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      boardId: structure?.board.id ?? null,
      triggerEvent: merged.trigger.event,
      conditions: merged.trigger.conditions ?? [],
      actions,
      actorMembershipId: ctx.membershipId,
    }))!;
    await audit(tx, ctx, 'automation.updated', documentId);
    return present(tx, ctx.orgId, updated);
  });
}

export async function setEnabled(ctx: TenantContext, documentId: string, enabled: boolean) {
  requireFeatureAdmin(ctx, 'automations');
  return ctx.transaction(async (tx) => {
    const row = await repo.updateAutomation(tx, ctx.orgId, documentId, { enabled });
    if (!row) throw notFound('Automation');
    await audit(tx, ctx, enabled ? 'automation.enabled' : 'automation.disabled', documentId);
    return present(tx, ctx.orgId, row);
  });
}

export async function deleteAutomation(ctx: TenantContext, documentId: string) {
  requireFeatureAdmin(ctx, 'automations');
  return ctx.transaction(async (tx) => {
    if (!(await repo.deleteAutomation(tx, ctx.orgId, documentId))) throw notFound('Automation');
    await audit(tx, ctx, 'automation.deleted', documentId);
    return { documentId, deleted: true as const };
  });
}

export async function listRuns(
  ctx: TenantContext,
  documentId: string,
  query: { pagination?: ListQueryInput['pagination']; status?: string },
) {
  requireFeatureAdmin(ctx, 'automations');
  return logPage(
    ctx,
    repo.automationModel,
    runs,
    query,
    async (tx) => repo.runsOf((await findIn(tx, ctx.orgId, documentId)).id),
    (r) => ({
      id: r.id,
      eventId: r.eventId,
      eventType: r.eventType,
      subject: r.subject,
      depth: r.depth,
      status: r.status as 'pending' | 'succeeded' | 'failed' | 'skipped',
      attempts: r.attempts,
      message: r.message,
      results: r.results as ActionResult[],
      createdAt: isoRequired(r.createdAt),
      finishedAt: iso(r.finishedAt),
    }),
  );
}
