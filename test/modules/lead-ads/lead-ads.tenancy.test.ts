import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type Connected,
  connectTenant,
  createRoute,
  type LeadAdsEnv,
  startLeadAds,
  waitDeliveries,
} from './helpers.js';

describe('lead ads tenancy', () => {
  let env: LeadAdsEnv;
  let a: Connected;
  let b: Connected;
  let routeA: any;
  let routeB: any;

  beforeAll(async () => {
    env = await startLeadAds({ workers: true });
    a = await connectTenant(env);
    b = await connectTenant(env);
    routeA = await createRoute(a);
    routeB = await createRoute(b);
  });
  afterAll(async () => {
    await env?.close();
  });

  test("a leadgen for one organization's page lands only in that organization's board", async () => {
    const lead = env.peer.addLead(a.pageId, a.formId, { full_name: 'Only A', email: 'only-a@acme.test' });
    const res = await env.post(env.peer.leadgenWebhook([lead]));
    expect(res.body).toEqual({ received: 1, queued: 1 });
    const [d] = await waitDeliveries(a.api, routeA.documentId, (r) => r[0]?.status === 'succeeded');
    expect((await a.api.get(`/boards/${a.board.boardId}/cards/${d.card}`)).status).toBe(200);
    expect((await b.api.get(`/boards/${b.board.boardId}/cards`)).body.data).toEqual([]);
    expect((await b.api.get(`/lead-form-routes/${routeB.documentId}/deliveries`)).body.data).toEqual([]);
    expect((await b.api.get('/contacts', { q: 'only-a' })).body.data).toEqual([]);
    // A webhook naming B's page with A's form id (a forged pairing) matches no route of either.
    const forged = env.peer.leadgenWebhook([{ id: lead.id, pageId: b.pageId, formId: a.formId, adId: 'x' }]);
    expect((await env.post(forged)).body).toEqual({ received: 1, queued: 0 });
  });

  test("another organization cannot read, change, count or use A's integration, routes and deliveries", async () => {
    const intId = a.integration.documentId;
    expect((await b.api.get(`/lead-integrations/${intId}`)).status).toBe(404);
    expect((await b.api.put(`/lead-integrations/${intId}`, { data: { name: 'x' } })).status).toBe(404);
    expect((await b.api.delete(`/lead-integrations/${intId}`)).status).toBe(404);
    expect((await b.api.get(`/lead-integrations/${intId}/forms`)).status).toBe(404);
    const list = await b.api.get('/lead-integrations');
    expect(list.body.data.map((i: any) => i.documentId)).toEqual([b.integration.documentId]);
    expect(list.body.meta.pagination.total).toBe(1);

    expect((await b.api.get(`/lead-form-routes/${routeA.documentId}`)).status).toBe(404);
    expect((await b.api.put(`/lead-form-routes/${routeA.documentId}`, { data: { name: 'x' } })).status).toBe(
      404,
    );
    expect((await b.api.delete(`/lead-form-routes/${routeA.documentId}`)).status).toBe(404);
    expect((await b.api.get(`/lead-form-routes/${routeA.documentId}/deliveries`)).status).toBe(404);
    const routes = await b.api.get('/lead-form-routes');
    expect(routes.body.data.map((r: any) => r.documentId)).toEqual([routeB.documentId]);

    // B cannot route a form through A's integration, nor into A's board.
    const viaA = await b.api.post('/lead-form-routes', {
      data: {
        name: 'steal',
        leadIntegrationDocumentId: intId,
        targetBoardDocumentId: b.board.boardId,
        leadFormId: a.otherFormId,
        fieldMapping: { mappings: [] },
      },
    });
    expect(viaA.status).toBe(400);
    expect(viaA.body.error.details.errors[0].path).toEqual(['leadIntegrationDocumentId']);
    const intoA = await b.api.post('/lead-form-routes', {
      data: {
        name: 'steal',
        leadIntegrationDocumentId: b.integration.documentId,
        targetBoardDocumentId: a.board.boardId,
        leadFormId: b.otherFormId,
        fieldMapping: { mappings: [] },
      },
    });
    expect(intoA.status).toBe(400);
    // B cannot reach A's page forms through its own integration either (the provider says which pages are B's).
    const aForm = await b.api.post('/lead-form-routes', {
      data: {
        name: 'steal',
        leadIntegrationDocumentId: b.integration.documentId,
        targetBoardDocumentId: b.board.boardId,
        leadFormId: a.otherFormId,
        fieldMapping: { mappings: [] },
      },
    });
    expect(aForm.status).toBe(400);
    // An OAuth state issued to A does not complete in B.
    const start = await a.api.post('/lead-ads/oauth/start', {
      data: { redirectUri: 'https://app.example.com/cb' },
    });
    const { code, state } = env.peer.authorize(start.body.authorizationUrl, b.userId);
    expect((await b.api.post('/lead-ads/oauth/complete', { data: { code, state } })).status).toBe(400);
    // Reconnecting names an integration of the caller's organization only.
    const reconnect = await b.api.post('/lead-ads/oauth/start', {
      data: { redirectUri: 'https://app.example.com/cb', integration: intId },
    });
    expect(reconnect.status).toBe(400);
  });

  test("A's delivery ids mean nothing under B's routes", async () => {
    const [d] = (await a.api.get(`/lead-form-routes/${routeA.documentId}/deliveries`)).body.data;
    const res = await b.api.post(
      `/lead-form-routes/${routeB.documentId}/deliveries/${d.documentId}/redeliver`,
    );
    expect(res.status).toBe(404);
  });
});
