import { and, eq, sql } from 'drizzle-orm';
import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import type { ListQueryInput, QueryModel } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { logPage, tablePage } from '../../platform/http/table-pages.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { findBoardById } from '../boards/repo.js';
import { newWebhookSecret } from '../webhooks/signing.js';
import { maskAction, sealActions } from './headers.js';
import type { ActionResult, Automation, AutomationInput, AutomationUpdate } from './schema.js';
import { automations, automationRuns as runs } from './table.js';
import { automationNotFound, requirePublicTargets, validateAutomation } from './validate.js';

/** Automations are configuration: the plan feature, and admins (as webhooks). */
function requireAdmin(ctx: TenantContext) {
  requireFeature(ctx, 'automations');
  requireRole(ctx, 'admin');
}

export const sealContext = (orgId: number, documentId: string) => `automation:${orgId}:${documentId}`;

const model: QueryModel = {
  table: 'automations',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    enabled: { column: 'enabled', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  privateFields: ['secretSealed'],
};

type Row = typeof automations.$inferSelect;

async function present(tx: Tx, orgId: number, row: Row): Promise<Automation> {
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

const byDocumentId = (orgId: number, documentId: string) =>
  and(eq(automations.organizationId, orgId), eq(automations.documentId, documentId));

async function findIn(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx.select().from(automations).where(byDocumentId(orgId, documentId));
  if (!row) throw automationNotFound();
  return row;
}

export async function listAutomations(ctx: TenantContext, query: ListQueryInput) {
  requireAdmin(ctx);
  return tablePage(ctx, model, automations, query, (tx, r) => present(tx, ctx.orgId, r));
}

export async function getAutomation(ctx: TenantContext, documentId: string) {
  requireAdmin(ctx);
  return ctx.transaction(async (tx) => present(tx, ctx.orgId, await findIn(tx, ctx.orgId, documentId)));
}

export async function createAutomation(deps: AppDeps, ctx: TenantContext, input: AutomationInput) {
  requireAdmin(ctx);
  await requirePublicTargets(deps.config.CRM_OUTBOUND_ALLOWLIST, input.actions);
  const box = await secretBox(deps.config, deps.db);
  const secret = newWebhookSecret();
  const documentId = newDocumentId();
  return ctx.transaction(async (tx) => {
    const structure = await validateAutomation(tx, ctx.orgId, input);
    const [row] = await tx
      .insert(automations)
      .values({
        organizationId: ctx.orgId,
        documentId,
        name: input.name,
        enabled: input.enabled ?? true,
        boardId: structure?.board.id ?? null,
        triggerEvent: input.trigger.event,
        conditions: input.trigger.conditions ?? [],
        actions: sealActions(box, sealContext(ctx.orgId, documentId), input.actions),
        actorMembershipId: ctx.membershipId,
        secretSealed: box.encrypt(secret, sealContext(ctx.orgId, documentId)),
      })
      .returning();
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
  requireAdmin(ctx);
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
    const [updated] = await tx
      .update(automations)
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        boardId: structure?.board.id ?? null,
        triggerEvent: merged.trigger.event,
        conditions: merged.trigger.conditions ?? [],
        actions,
        actorMembershipId: ctx.membershipId,
        updatedAt: sql`now()`,
      })
      .where(byDocumentId(ctx.orgId, documentId))
      .returning();
    await audit(tx, ctx, 'automation.updated', documentId);
    return present(tx, ctx.orgId, updated);
  });
}

export async function setEnabled(ctx: TenantContext, documentId: string, enabled: boolean) {
  requireAdmin(ctx);
  return ctx.transaction(async (tx) => {
    const [row] = await tx
      .update(automations)
      .set({ enabled, updatedAt: sql`now()` })
      .where(byDocumentId(ctx.orgId, documentId))
      .returning();
    if (!row) throw automationNotFound();
    await audit(tx, ctx, enabled ? 'automation.enabled' : 'automation.disabled', documentId);
    return present(tx, ctx.orgId, row);
  });
}

export async function deleteAutomation(ctx: TenantContext, documentId: string) {
  requireAdmin(ctx);
  return ctx.transaction(async (tx) => {
    const [row] = await tx
      .delete(automations)
      .where(byDocumentId(ctx.orgId, documentId))
      .returning({ id: automations.id });
    if (!row) throw automationNotFound();
    await audit(tx, ctx, 'automation.deleted', documentId);
    return { documentId, deleted: true as const };
  });
}

export async function listRuns(
  ctx: TenantContext,
  documentId: string,
  query: { pagination?: ListQueryInput['pagination']; status?: string },
) {
  requireAdmin(ctx);
  return logPage(
    ctx,
    model,
    runs,
    query,
    async (tx) => eq(runs.automationId, (await findIn(tx, ctx.orgId, documentId)).id),
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
