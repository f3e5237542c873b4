import { randomBytes } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { AppError, notFound, onUnique, validationError } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { pkceChallenge, tokenProblem } from '../../platform/providers/lead-ads/client.js';
import { toBadGateway } from '../../platform/providers/provider-error.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { type BoardStructure, loadBoardForConfigure, loadBoardStructure } from '../boards/index.js';
import {
  codeVerifier,
  integrationAad,
  type LeadAdsKit,
  pageAad,
  readState,
  requireClient,
  STATE_TTL_SECONDS,
  signState,
} from './kit.js';
import * as repo from './repo.js';
import {
  CONTACT_TARGETS,
  type FormRoute,
  type Integration,
  type RouteInput,
  type RouteUpdate,
} from './schema.js';
import { leadFormRoutes } from './table.js';

/** Lead ads need the plan feature (403 naming it); configuring them needs an admin (DESIGN.md §6). */
export function requireLeadAds(ctx: TenantContext, configure = false) {
  requireFeature(ctx, 'lead_ads');
  if (configure) requireRole(ctx, 'admin');
}

// ---- presenting

async function presentIntegrations(
  tx: Tx,
  orgId: number,
  rows: repo.IntegrationRow[],
): Promise<Integration[]> {
  const ids = rows.map((r) => r.id);
  const pages = await repo.pagesOf(tx, orgId, ids);
  const routed = ids.length
    ? await tx
        .selectDistinct({ integrationId: leadFormRoutes.integrationId, pageId: leadFormRoutes.pageId })
        .from(leadFormRoutes)
        .where(and(eq(leadFormRoutes.organizationId, orgId), inArray(leadFormRoutes.integrationId, ids)))
    : [];
  const subscribed = new Set(routed.map((r) => `${r.integrationId}:${r.pageId}`));
  const now = Date.now();
  return rows.map((r) => {
    // A token past its expiry reads as expired before the provider ever refuses it.
    const lapsed = r.status === 'connected' && r.tokenExpiresAt !== null && r.tokenExpiresAt.getTime() <= now;
    return {
      documentId: r.documentId,
      name: r.name,
      provider: 'lead_ads' as const,
      status: lapsed ? 'expired' : r.status,
      statusMessage: lapsed
        ? `The access token expired at ${r.tokenExpiresAt!.toISOString()}: reconnect with POST /lead-ads/oauth/start`
        : r.statusMessage,
      providerUserId: r.providerUserId,
      providerUserName: r.providerUserName,
      tokenExpiresAt: iso(r.tokenExpiresAt),
      pages: pages
        .filter((p) => p.integrationId === r.id)
        .map((p) => ({ id: p.pageId, name: p.name, subscribed: subscribed.has(`${r.id}:${p.pageId}`) })),
      createdAt: isoRequired(r.createdAt),
      updatedAt: isoRequired(r.updatedAt),
    };
  });
}

async function presentRoutes(tx: Tx, orgId: number, rows: repo.RouteRow[]): Promise<FormRoute[]> {
  const refs = await repo.routeRefs(tx, orgId, rows);
  return rows.map((r) => ({
    documentId: r.documentId,
    name: r.name,
    leadIntegrationDocumentId: refs.integrations.get(r.integrationId) ?? '',
    targetBoardDocumentId: refs.boards.get(r.boardId) ?? '',
    leadFormId: r.formId,
    leadFormName: r.formName,
    pageId: r.pageId,
    fieldMapping: r.fieldMapping,
    consentCapture: r.consentCapture ?? null,
    createdAt: isoRequired(r.createdAt),
    updatedAt: isoRequired(r.updatedAt),
  }));
}

// ---- provider calls with token bookkeeping

/**
 * A provider call made for a request: a refused token marks the integration expired or revoked (its own
 * transaction, so the mark stays although the request fails) before the failure becomes a 502.
 */
export async function withProvider<T>(
  kit: LeadAdsKit,
  orgId: number,
  integrationId: number | null,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    await markTokenProblem(kit, orgId, integrationId, err);
    return toBadGateway(err);
  }
}

export async function markTokenProblem(
  kit: LeadAdsKit,
  orgId: number,
  integrationId: number | null,
  err: unknown,
) {
  const problem = tokenProblem(err);
  if (!problem || integrationId === null) return;
  await kit.db.tenantTransaction(orgId, (tx) =>
    repo.updateIntegration(tx, orgId, integrationId, {
      status: problem,
      statusMessage: `The provider refused the token (${(err as Error).message}): reconnect with POST /lead-ads/oauth/start`,
    }),
  );
}

// ---- OAuth

export async function startOAuth(
  ctx: TenantContext,
  kit: LeadAdsKit,
  input: { redirectUri: string; integration?: string },
) {
  requireLeadAds(ctx, true);
  const client = requireClient(kit);
  if (input.integration) {
    const found = await ctx.transaction((tx) => repo.findIntegration(tx, ctx.orgId, input.integration!));
    if (!found)
      throw validationError(`No lead integration ${input.integration} in this organization`, [
        { path: ['integration'], message: 'not found', name: 'ValidationError' },
      ]);
  }
  const nonce = randomBytes(18).toString('base64url');
  const expiresAt = Math.floor(Date.now() / 1000) + STATE_TTL_SECONDS;
  const state = signState(kit, {
    orgId: ctx.orgId,
    userId: ctx.userId,
    redirectUri: input.redirectUri,
    integration: input.integration ?? null,
    nonce,
    expiresAt,
  });
  const authorizationUrl = client.authorizationUrl({
    redirectUri: input.redirectUri,
    state,
    codeChallenge: pkceChallenge(codeVerifier(kit, nonce)),
  });
  return { authorizationUrl, state, expiresAt: new Date(expiresAt * 1000).toISOString() };
}

const badState = (message: string) =>
  validationError(message, [{ path: ['state'], message, name: 'ValidationError' }]);

export async function completeOAuth(
  ctx: TenantContext,
  kit: LeadAdsKit,
  input: { code: string; state: string },
) {
  requireLeadAds(ctx, true);
  const client = requireClient(kit);
  const state = readState(kit, input.state);
  if (!state)
    throw badState('The state is not one this server issued: start again with POST /lead-ads/oauth/start');
  if (state.expiresAt * 1000 < Date.now())
    throw badState('The state expired (10 minutes): start again with POST /lead-ads/oauth/start');
  if (state.orgId !== ctx.orgId || state.userId !== ctx.userId)
    throw badState('The state was issued to another user or organization: start again from this account');
  const short = await withProvider(kit, ctx.orgId, null, () =>
    client.exchangeCode({
      code: input.code,
      redirectUri: state.redirectUri,
      codeVerifier: codeVerifier(kit, state.nonce),
    }),
  );
  return connect(ctx, kit, short.accessToken, { integration: state.integration });
}

/** POST /lead-integrations: a user token obtained elsewhere, connected like the OAuth step's. */
export async function createIntegration(
  ctx: TenantContext,
  kit: LeadAdsKit,
  input: { name?: string; accessToken: string },
) {
  requireLeadAds(ctx, true);
  return connect(ctx, kit, input.accessToken, { integration: null, name: input.name });
}

/**
 * The long-lived token, the provider user and the pages with their tokens; then the integration is created, or
 * updated when it is a reconnect (the state named it, or the same provider user is already connected).
 */
async function connect(
  ctx: TenantContext,
  kit: LeadAdsKit,
  userToken: string,
  opts: { integration: string | null; name?: string },
) {
  const client = requireClient(kit);
  const { long, me, pages } = await withProvider(kit, ctx.orgId, null, async () => {
    const long = await client.exchangeLongLived(userToken);
    const [me, pages] = await Promise.all([client.me(long.accessToken), client.listPages(long.accessToken)]);
    return { long, me, pages };
  });
  const expiresAt = long.expiresIn ? new Date(Date.now() + long.expiresIn * 1000) : null;
  return ctx.transaction(async (tx) => {
    let row = opts.integration
      ? await repo.findIntegration(tx, ctx.orgId, opts.integration, true)
      : await repo.findIntegrationByProviderUser(tx, ctx.orgId, me.id);
    if (opts.integration && !row) throw notFound('Lead integration');
    const documentId = row?.documentId ?? newDocumentId();
    const credentials = kit.box.encrypt(
      JSON.stringify({ accessToken: long.accessToken }),
      integrationAad(ctx.orgId, documentId),
    );
    const values = {
      providerUserId: me.id,
      providerUserName: me.name,
      status: 'connected' as const,
      statusMessage: null,
      credentials,
      tokenExpiresAt: expiresAt,
      connectedByMembershipId: ctx.membershipId,
    };
    if (row) row = await repo.updateIntegration(tx, ctx.orgId, row.id, values);
    else
      row = await repo
        .insertIntegration(tx, ctx.orgId, {
          ...values,
          documentId,
          name: opts.name ?? (me.name ? `Lead ads (${me.name})` : 'Lead ads'),
        })
        .catch(
          onUnique('providerUserId', 'This provider account is already connected to another integration'),
        );
    await repo.replacePages(
      tx,
      ctx.orgId,
      row.id,
      pages.map((p) => ({
        pageId: p.id,
        name: p.name,
        credentials: kit.box.encrypt(
          JSON.stringify({ accessToken: p.accessToken }),
          pageAad(ctx.orgId, documentId, p.id),
        ),
      })),
    );
    await audit(tx, ctx, 'lead_integration.connected', row.documentId);
    return (await presentIntegrations(tx, ctx.orgId, [row]))[0];
  });
}

// ---- integrations

export async function listIntegrations(ctx: TenantContext, query: ListQueryInput) {
  requireLeadAds(ctx);
  const q = compileListQuery(repo.integrationModel, query, 'name:asc');
  return ctx.transaction(async (tx) => {
    const { rows, total } = await repo.listIntegrations(tx, ctx.orgId, q);
    return listPage(await presentIntegrations(tx, ctx.orgId, rows), total, q);
  });
}

async function integrationOr404(tx: Tx, ctx: TenantContext, documentId: string, lock = false) {
  const row = await repo.findIntegration(tx, ctx.orgId, documentId, lock);
  if (!row) throw notFound('Lead integration');
  return row;
}

export async function getIntegration(ctx: TenantContext, documentId: string) {
  requireLeadAds(ctx);
  return ctx.transaction(
    async (tx) =>
      (await presentIntegrations(tx, ctx.orgId, [await integrationOr404(tx, ctx, documentId)]))[0],
  );
}

export async function updateIntegration(ctx: TenantContext, documentId: string, input: { name: string }) {
  requireLeadAds(ctx, true);
  return ctx.transaction(async (tx) => {
    const row = await integrationOr404(tx, ctx, documentId, true);
    const updated = await repo.updateIntegration(tx, ctx.orgId, row.id, { name: input.name });
    return (await presentIntegrations(tx, ctx.orgId, [updated]))[0];
  });
}

export async function deleteIntegration(ctx: TenantContext, documentId: string) {
  requireLeadAds(ctx, true);
  return ctx.transaction(async (tx) => {
    const row = await integrationOr404(tx, ctx, documentId, true);
    const routes = await repo.countRoutesOfIntegration(tx, ctx.orgId, row.id);
    if (routes > 0)
      throw new AppError(
        'UnprocessableEntityError',
        `${routes} form route(s) use this integration: delete them first (DELETE /lead-form-routes/{id})`,
        { routes },
      );
    await repo.deleteIntegration(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'lead_integration.deleted', row.documentId);
    return { documentId: row.documentId, deleted: true as const };
  });
}

interface OpenPage {
  pageId: string;
  name: string;
  accessToken: string;
}

/** The integration's pages with their tokens opened. */
function openPages(
  kit: LeadAdsKit,
  orgId: number,
  integration: repo.IntegrationRow,
  pages: repo.PageRow[],
): OpenPage[] {
  return pages.map((p) => ({
    pageId: p.pageId,
    name: p.name,
    accessToken: JSON.parse(kit.box.decrypt(p.credentials, pageAad(orgId, integration.documentId, p.pageId)))
      .accessToken,
  }));
}

async function formsOfPages(kit: LeadAdsKit, orgId: number, integrationId: number, pages: OpenPage[]) {
  const client = requireClient(kit);
  const lists = await withProvider(kit, orgId, integrationId, () =>
    Promise.all(pages.map((p) => client.listForms(p.pageId, p.accessToken))),
  );
  return pages.flatMap((p, i) => lists[i].map((f) => ({ ...f, pageId: p.pageId, pageName: p.name })));
}

/** GET /lead-integrations/{id}/forms: the lead forms of the integration's pages, from the provider. */
export async function listForms(ctx: TenantContext, kit: LeadAdsKit, documentId: string, pageId?: string) {
  requireLeadAds(ctx);
  const { row, pages } = await ctx.transaction(async (tx) => {
    const row = await integrationOr404(tx, ctx, documentId);
    return { row, pages: await repo.pagesOf(tx, ctx.orgId, [row.id]) };
  });
  const wanted = pages.filter((p) => pageId === undefined || p.pageId === pageId);
  if (pageId !== undefined && wanted.length === 0)
    throw validationError(`The integration has no page ${pageId}`, [
      {
        path: ['pageId'],
        message: `not a page of this integration (${pages.map((p) => p.pageId).join(', ') || 'none'})`,
        name: 'ValidationError',
      },
    ]);
  return { data: await formsOfPages(kit, ctx.orgId, row.id, openPages(kit, ctx.orgId, row, wanted)) };
}

// ---- form routes

export function mappingTargets(structure: BoardStructure): string[] {
  const slugs = (structure.entryPhase?.fields ?? []).filter((f) => f.type !== 'statement').map((f) => f.slug);
  return ['title', ...CONTACT_TARGETS.map((c) => `contact.${c}`), ...slugs];
}

function checkMapping(structure: BoardStructure, mappings: { source: string; target: string }[]) {
  if (!structure.entryPhase)
    throw validationError('The target board has no entry phase: add a phase first', [
      { path: ['targetBoardDocumentId'], message: 'has no entry phase', name: 'ValidationError' },
    ]);
  const valid = mappingTargets(structure);
  const errors = mappings.flatMap((m, i) =>
    valid.includes(m.target)
      ? []
      : [
          {
            path: ['fieldMapping', 'mappings', String(i), 'target'],
            message: `unknown target ${m.target}`,
            name: 'ValidationError',
          },
        ],
  );
  const seen = new Set<string>();
  mappings.forEach((m, i) => {
    if (seen.has(m.target))
      errors.push({
        path: ['fieldMapping', 'mappings', String(i), 'target'],
        message: `target ${m.target} is mapped twice`,
        name: 'ValidationError',
      });
    seen.add(m.target);
  });
  if (errors.length)
    throw validationError(`${errors[0].message}; valid targets: ${valid.join(', ')}`, errors, {
      validTargets: valid,
    });
}

async function boardFor(tx: Tx, ctx: TenantContext, boardDocumentId: string) {
  try {
    const access = await loadBoardForConfigure(tx, ctx, boardDocumentId);
    return loadBoardStructure(tx, ctx.orgId, access.board.id);
  } catch (err) {
    if (err instanceof AppError && err.errorName === 'NotFoundError')
      throw validationError(`No board ${boardDocumentId} in this organization`, [
        { path: ['targetBoardDocumentId'], message: 'no such board', name: 'ValidationError' },
      ]);
    throw err;
  }
}

async function integrationForRoute(tx: Tx, ctx: TenantContext, documentId: string) {
  const row = await repo.findIntegration(tx, ctx.orgId, documentId);
  if (!row)
    throw validationError(`No lead integration ${documentId} in this organization`, [
      { path: ['leadIntegrationDocumentId'], message: 'no such integration', name: 'ValidationError' },
    ]);
  return { row, pages: await repo.pagesOf(tx, ctx.orgId, [row.id]) };
}

/** The page holding the form (asking the provider for each page's forms); unknown → 400 listing the forms. */
async function locateForm(
  kit: LeadAdsKit,
  orgId: number,
  integration: repo.IntegrationRow,
  pages: OpenPage[],
  formId: string,
) {
  const forms = await formsOfPages(kit, orgId, integration.id, pages);
  const form = forms.find((f) => f.id === formId);
  if (!form)
    throw validationError(
      `No lead form ${formId} on the integration's pages; forms: ${forms.map((f) => `${f.id} (${f.name})`).join(', ') || 'none'}`,
      [{ path: ['leadFormId'], message: 'not a form of the integration pages', name: 'ValidationError' }],
      { validForms: forms.map((f) => ({ id: f.id, name: f.name, pageId: f.pageId })) },
    );
  return { form, page: pages.find((p) => p.pageId === form.pageId)! };
}

export async function listRoutes(ctx: TenantContext, query: ListQueryInput) {
  requireLeadAds(ctx);
  const q = compileListQuery(repo.routeModel, query, 'name:asc');
  return ctx.transaction(async (tx) => {
    const { rows, total } = await repo.listRoutes(tx, ctx.orgId, q);
    return listPage(await presentRoutes(tx, ctx.orgId, rows), total, q);
  });
}

export async function routeOr404(tx: Tx, ctx: TenantContext, documentId: string, lock = false) {
  const row = await repo.findRoute(tx, ctx.orgId, documentId, lock);
  if (!row) throw notFound('Lead form route');
  return row;
}

export async function getRoute(ctx: TenantContext, documentId: string) {
  requireLeadAds(ctx);
  return ctx.transaction(
    async (tx) => (await presentRoutes(tx, ctx.orgId, [await routeOr404(tx, ctx, documentId)]))[0],
  );
}

/**
 * Create: the board and mapping are checked, the form found on the integration's pages (provider), the page
 * subscribed to leadgen webhooks (provider), then the route written. The provider calls run outside the
 * transaction; subscribing twice is harmless, so a write that fails after it leaves nothing wrong.
 */
export async function createRoute(ctx: TenantContext, kit: LeadAdsKit, input: RouteInput) {
  requireLeadAds(ctx, true);
  const prep = await ctx.transaction(async (tx) => {
    const structure = await boardFor(tx, ctx, input.targetBoardDocumentId);
    checkMapping(structure, input.fieldMapping.mappings);
    return { structure, ...(await integrationForRoute(tx, ctx, input.leadIntegrationDocumentId)) };
  });
  const client = requireClient(kit);
  const pages = openPages(kit, ctx.orgId, prep.row, prep.pages);
  const { form, page } = await locateForm(kit, ctx.orgId, prep.row, pages, input.leadFormId);
  await withProvider(kit, ctx.orgId, prep.row.id, () => client.subscribePage(page.pageId, page.accessToken));
  return ctx.transaction(async (tx) => {
    const row = await repo
      .insertRoute(tx, ctx.orgId, {
        name: input.name,
        integrationId: prep.row.id,
        boardId: prep.structure.board.id,
        pageId: page.pageId,
        formId: form.id,
        formName: form.name,
        fieldMapping: { mappings: input.fieldMapping.mappings },
        consentCapture: input.consentCapture ?? null,
      })
      .catch(onUnique('leadFormId', `Form ${form.id} already has a route in this organization`));
    await audit(tx, ctx, 'lead_form_route.created', row.documentId);
    return (await presentRoutes(tx, ctx.orgId, [row]))[0];
  });
}

/** Update: partial; a new form (or integration) is located and its page subscribed; a page left unused is unsubscribed. */
export async function updateRoute(
  ctx: TenantContext,
  kit: LeadAdsKit,
  documentId: string,
  input: RouteUpdate,
) {
  requireLeadAds(ctx, true);
  const prep = await ctx.transaction(async (tx) => {
    const current = await routeOr404(tx, ctx, documentId);
    const refs = await repo.routeRefs(tx, ctx.orgId, [current]);
    const boardRef = input.targetBoardDocumentId ?? refs.boards.get(current.boardId)!;
    const structure = await boardFor(tx, ctx, boardRef);
    checkMapping(structure, (input.fieldMapping ?? current.fieldMapping).mappings);
    const integrationRef = input.leadIntegrationDocumentId ?? refs.integrations.get(current.integrationId)!;
    const integration = await integrationForRoute(tx, ctx, integrationRef);
    return { current, structure, ...integration };
  });
  const client = requireClient(kit);
  const { current } = prep;
  const pages = openPages(kit, ctx.orgId, prep.row, prep.pages);
  let located: { pageId: string; formId: string; formName: string | null } = {
    pageId: current.pageId,
    formId: current.formId,
    formName: current.formName,
  };
  if (
    (input.leadFormId !== undefined && input.leadFormId !== current.formId) ||
    prep.row.id !== current.integrationId
  ) {
    const { form, page } = await locateForm(
      kit,
      ctx.orgId,
      prep.row,
      pages,
      input.leadFormId ?? current.formId,
    );
    located = { pageId: page.pageId, formId: form.id, formName: form.name };
  }
  const page = pages.find((p) => p.pageId === located.pageId);
  if (page)
    await withProvider(kit, ctx.orgId, prep.row.id, () =>
      client.subscribePage(page.pageId, page.accessToken),
    );
  const result = await ctx.transaction(async (tx) => {
    await routeOr404(tx, ctx, documentId, true);
    const row = await repo
      .updateRoute(tx, ctx.orgId, current.id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        integrationId: prep.row.id,
        boardId: prep.structure.board.id,
        ...located,
        ...(input.fieldMapping ? { fieldMapping: { mappings: input.fieldMapping.mappings } } : {}),
        ...(input.consentCapture !== undefined ? { consentCapture: input.consentCapture } : {}),
      })
      .catch(onUnique('leadFormId', `Form ${located.formId} already has a route in this organization`));
    await audit(tx, ctx, 'lead_form_route.updated', row.documentId);
    return (await presentRoutes(tx, ctx.orgId, [row]))[0];
  });
  if (current.pageId !== located.pageId) await unsubscribeIfUnused(kit, ctx, current);
  return result;
}

export async function deleteRoute(ctx: TenantContext, kit: LeadAdsKit, documentId: string) {
  requireLeadAds(ctx, true);
  const row = await ctx.transaction(async (tx) => {
    const row = await routeOr404(tx, ctx, documentId, true);
    await repo.deleteRoute(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'lead_form_route.deleted', row.documentId);
    return row;
  });
  await unsubscribeIfUnused(kit, ctx, row);
  return { documentId: row.documentId, deleted: true as const };
}

/**
 * The page's leadgen subscription goes when no route of any organization needs the page any more. Best effort:
 * the route is already gone, and a subscription left behind only brings webhooks that match no route.
 */
async function unsubscribeIfUnused(kit: LeadAdsKit, ctx: TenantContext, old: repo.RouteRow) {
  if (!kit.client) return;
  if (await repo.pageStillRouted(kit.db.system, old.pageId)) return;
  const { integration, pages } = await ctx.transaction(async (tx) => {
    const integration = await repo.findIntegrationById(tx, ctx.orgId, old.integrationId);
    return { integration, pages: integration ? await repo.pagesOf(tx, ctx.orgId, [integration.id]) : [] };
  });
  const page = integration
    ? openPages(kit, ctx.orgId, integration, pages).find((p) => p.pageId === old.pageId)
    : undefined;
  if (!page || !integration) return;
  await kit.client.unsubscribePage(page.pageId, page.accessToken).catch(async (err) => {
    await markTokenProblem(kit, ctx.orgId, integration.id, err);
  });
}
