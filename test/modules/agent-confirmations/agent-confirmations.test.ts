import { beforeAll, describe, expect, test } from 'vitest';
import { type Api, addMember, apiClient, newTenant, type Tenant } from '../../helpers/app.js';

const ask = {
  tool: 'crm.create_contact',
  summary: 'create the contact "Ana"',
  arguments: { name: 'Ana', tags: ['a'] },
};

const call = { tool: ask.tool, arguments: ask.arguments };

/** An API token of the tenant's owner, as the tool server holds it. */
async function tokenApi(t: Tenant): Promise<Api> {
  const res = await t.userApi.post('/users/generate-token', { expiration: '1d' });
  expect(res.status).toBe(201);
  return apiClient(t.app, { authorization: `Bearer ${res.body.token}`, 'x-tenant-id': t.slug });
}

describe('agent confirmations', () => {
  let t: Tenant;
  let agent: Api;

  beforeAll(async () => {
    t = await newTenant();
    agent = await tokenApi(t);
  });

  test('asked with a token, approved by the signed-in person, redeemed once for exactly the call', async () => {
    const created = await agent.post('/agent-confirmations', {
      data: { ...ask, preview: { data: { name: 'Ana' } } },
    });
    expect(created.status).toBe(201);
    const c = created.body;
    expect(c).toMatchObject({
      status: 'pending',
      tool: ask.tool,
      summary: ask.summary,
      arguments: ask.arguments,
    });
    expect(c.url).toBe(`/app/confirm/${c.documentId}?org=${t.slug}`);
    expect(c.preview).toEqual({ data: { name: 'Ana' } });

    // Not yet approved: nothing to redeem.
    const early = await agent.post(`/agent-confirmations/${c.documentId}/redeem`, { data: call });
    expect(early.body).toMatchObject({ redeemed: false, reason: 'pending' });

    // The agent's token cannot approve its own call.
    const self = await agent.post(`/agent-confirmations/${c.documentId}/approve`);
    expect(self.status).toBe(403);
    expect(self.body.error.message).toMatch(/signed in/);
    expect((await agent.get(`/agent-confirmations/${c.documentId}`)).body.status).toBe('pending');

    const approved = await t.api.post(`/agent-confirmations/${c.documentId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved' });
    expect(approved.body.decidedAt).toEqual(expect.any(String));
    // Approving twice is harmless; declining an approved one is a conflict.
    expect((await t.api.post(`/agent-confirmations/${c.documentId}/approve`)).status).toBe(200);
    const late = await t.api.post(`/agent-confirmations/${c.documentId}/decline`);
    expect(late.status).toBe(409);
    expect(late.body.error.details).toEqual({ status: 'approved' });

    // Other arguments (even one tag more) or another tool do not redeem it, and do not spend it.
    const other = await agent.post(`/agent-confirmations/${c.documentId}/redeem`, {
      data: { ...call, arguments: { name: 'Ana', tags: ['a', 'b'] } },
    });
    expect(other.body).toMatchObject({ redeemed: false, reason: 'mismatch' });
    const tool = await agent.post(`/agent-confirmations/${c.documentId}/redeem`, {
      data: { ...call, tool: 'crm.delete_contact' },
    });
    expect(tool.body).toMatchObject({ redeemed: false, reason: 'mismatch' });

    // Key order does not matter; the second redemption is refused.
    const ok = await agent.post(`/agent-confirmations/${c.documentId}/redeem`, {
      data: { tool: ask.tool, arguments: { tags: ['a'], name: 'Ana' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ redeemed: true, data: { status: 'used' } });
    const again = await agent.post(`/agent-confirmations/${c.documentId}/redeem`, { data: call });
    expect(again.body).toMatchObject({ redeemed: false, reason: 'used' });
  });

  test('a declined call is never redeemed', async () => {
    const c = (await agent.post('/agent-confirmations', { data: ask })).body;
    const declined = await t.api.post(`/agent-confirmations/${c.documentId}/decline`);
    expect(declined.body.status).toBe('declined');
    expect((await t.api.post(`/agent-confirmations/${c.documentId}/approve`)).status).toBe(409);
    const r = await agent.post(`/agent-confirmations/${c.documentId}/redeem`, { data: call });
    expect(r.body).toMatchObject({ redeemed: false, reason: 'declined' });
  });

  test('bad bodies are 400s naming the field', async () => {
    const noTool = await agent.post('/agent-confirmations', { data: { summary: 's', arguments: {} } });
    expect(noTool.status).toBe(400);
    expect(JSON.stringify(noTool.body.error)).toContain('tool');
    const badTtl = await agent.post('/agent-confirmations', { data: { ...ask, expiresInSeconds: 0 } });
    expect(badTtl.status).toBe(400);
    const extra = await agent.post('/agent-confirmations', { data: { ...ask, status: 'approved' } });
    expect(extra.status).toBe(400);
    expect((await agent.get('/agent-confirmations/nope')).status).toBe(404);
  });

  test('only the member it was asked of sees and decides it; another organization cannot either', async () => {
    const c = (await agent.post('/agent-confirmations', { data: ask })).body;
    const admin = await addMember(t, 'admin');
    expect((await admin.api.get(`/agent-confirmations/${c.documentId}`)).status).toBe(404);
    expect((await admin.api.post(`/agent-confirmations/${c.documentId}/approve`)).status).toBe(404);

    const other = await newTenant();
    const otherAgent = await tokenApi(other);
    expect((await other.api.get(`/agent-confirmations/${c.documentId}`)).status).toBe(404);
    expect((await other.api.post(`/agent-confirmations/${c.documentId}/approve`)).status).toBe(404);
    expect(
      (await otherAgent.post(`/agent-confirmations/${c.documentId}/redeem`, { data: call })).status,
    ).toBe(404);
    // The same user, in another organization it also belongs to, does not see it either.
    const sameUserElsewhere = apiClient(t.app, {
      authorization: `Bearer ${t.user.jwt}`,
      'x-tenant-id': (
        await t.userApi.post('/organizations', { data: { name: 'Second', slug: `${t.slug}-2` } })
      ).body.slug,
    });
    expect((await sameUserElsewhere.get(`/agent-confirmations/${c.documentId}`)).status).toBe(404);
    expect((await t.api.get(`/agent-confirmations/${c.documentId}`)).body.status).toBe('pending');
  });

  test('a token without account:write cannot ask', async () => {
    const res = await t.userApi.post('/users/generate-token', {
      expiration: '1d',
      scopes: ['contacts:write'],
    });
    expect(res.status).toBe(201);
    const scoped = apiClient(t.app, { authorization: `Bearer ${res.body.token}`, 'x-tenant-id': t.slug });
    const denied = await scoped.post('/agent-confirmations', { data: ask });
    expect(denied.status).toBe(403);
  });
});
