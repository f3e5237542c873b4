import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMember, newTenant } from '../../helpers/app.js';
import { createSmsChannel, type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { emailCampaign, segmentFor } from './helpers.js';

/** The state table of DESIGN.md §11, through HTTP; no workers run here, so processing stays processing. */
let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging();
});
afterAll(async () => env?.close());

const future = () => new Date(Date.now() + 3600_000).toISOString();
const past = () => new Date(Date.now() - 60_000).toISOString();

async function act(t: Awaited<ReturnType<typeof newTenant>>, id: string, action: string) {
  return t.api.post(`/campaigns/${id}/${action}`);
}

describe('campaign state table', () => {
  test('create → draft; the response shows the channel type and chatChannel; CRUD', async () => {
    const t = await newTenant(env.app);
    const { campaign, channel, template } = await emailCampaign(t, { city: 'crud' });
    expect(campaign).toMatchObject({
      campaignStatus: 'draft',
      channel: 'email',
      chatChannel: { documentId: channel.documentId, type: 'email' },
      template: { documentId: template.documentId, kind: 'email' },
      stats: {
        total: 0,
        pending: 0,
        sent: 0,
        failed: 0,
        skipped: 0,
        delivered: 0,
        opened: 0,
        clicked: 0,
        bounced: 0,
      },
    });
    expect((await t.api.get('/campaigns')).body.data).toHaveLength(1);
    const upd = await t.api.put(`/campaigns/${campaign.documentId}`, {
      data: { name: 'Renamed', description: 'd' },
    });
    expect(upd.body).toMatchObject({ name: 'Renamed', description: 'd' });
    expect((await t.api.get(`/campaigns?filters[campaignStatus]=draft`)).body.data).toHaveLength(1);
    expect((await t.api.delete(`/campaigns/${campaign.documentId}`)).body.deleted).toBe(true);
    expect((await t.api.get(`/campaigns/${campaign.documentId}`)).status).toBe(404);
  });

  test('references are checked: unknown channel/segment/template, wrong template kind, SMS needs text', async () => {
    const t = await newTenant(env.app);
    const { channel, segment } = await emailCampaign(t, { city: 'refs' });
    const base = { name: 'x', channel: channel.documentId, segment };
    expect((await t.api.post('/campaigns', { data: { ...base, template: 'nope' } })).status).toBe(404);
    expect((await t.api.post('/campaigns', { data: { ...base } })).body.error.details.errors[0].path).toEqual(
      ['template'],
    );
    expect(
      (await t.api.post('/campaigns', { data: { ...base, segment: 'nope', template: 'x' } })).status,
    ).toBe(404);
    const sms = await createSmsChannel(t.api, env);
    const noText = await t.api.post('/campaigns', { data: { name: 's', channel: sms.documentId, segment } });
    expect(noText.status).toBe(400);
    expect(noText.body.error.details.errors[0].path).toEqual(['messageConfig']);
    const ok = await t.api.post('/campaigns', {
      data: { name: 's', channel: sms.documentId, segment, messageConfig: { text: 'Hi {{contact.name}}' } },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.channel).toBe('sms');
  });

  test('draft: trigger without a date → processing; with a past date → processing', async () => {
    const t = await newTenant(env.app);
    const a = await emailCampaign(t, { city: 'trg1', contacts: 2 });
    const r = await act(t, a.campaign.documentId, 'trigger');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ campaignStatus: 'processing', stats: { total: 2, pending: 2 } });
    expect(r.body.startedAt).not.toBeNull();
    const b = await emailCampaign(t, { city: 'trg2', scheduledAt: past() });
    expect((await act(t, b.campaign.documentId, 'trigger')).body.campaignStatus).toBe('processing');
  });

  test('draft: trigger with a future date → scheduled; pause → paused; resume → scheduled again', async () => {
    const t = await newTenant(env.app);
    const { campaign } = await emailCampaign(t, { city: 'sch', contacts: 1, scheduledAt: future() });
    const s = await act(t, campaign.documentId, 'trigger');
    expect(s.body).toMatchObject({ campaignStatus: 'scheduled', startedAt: null, stats: { total: 0 } });
    // A scheduled campaign can still be edited (its date too); the audience is not fixed yet.
    expect(
      (await t.api.put(`/campaigns/${campaign.documentId}`, { data: { scheduledAt: future() } })).status,
    ).toBe(200);
    expect((await act(t, campaign.documentId, 'pause')).body.campaignStatus).toBe('paused');
    expect((await act(t, campaign.documentId, 'resume')).body.campaignStatus).toBe('scheduled');
  });

  test("a scheduled campaign is on the agenda at its date; another organization's agenda does not show it", async () => {
    const t = await newTenant(env.app);
    const at = future();
    const { campaign } = await emailCampaign(t, { city: 'agd', contacts: 1, scheduledAt: at });
    const window = {
      start: new Date().toISOString(),
      end: new Date(Date.now() + 2 * 86_400_000).toISOString(),
    };
    const draft = await t.api.get('/agenda/events', window);
    expect(draft.body.data.filter((e: { source: string }) => e.source === 'campaigns')).toEqual([]);
    await act(t, campaign.documentId, 'trigger');
    const res = await t.api.get('/agenda/events', window);
    expect(res.status).toBe(200);
    const items = res.body.data.filter((e: { source: string }) => e.source === 'campaigns');
    expect(items).toEqual([
      expect.objectContaining({
        title: campaign.name,
        start: at,
        link: { type: 'campaign', documentId: campaign.documentId },
      }),
    ]);
    const other = await newTenant(env.app);
    const theirs = await other.api.get('/agenda/events', window);
    expect(theirs.body.data.filter((e: { source: string }) => e.source === 'campaigns')).toEqual([]);
  });

  test('paused before its date, resumed after it → processing', async () => {
    const t = await newTenant(env.app);
    const { campaign } = await emailCampaign(t, { city: 'late', contacts: 1, scheduledAt: future() });
    await act(t, campaign.documentId, 'trigger');
    await act(t, campaign.documentId, 'pause');
    // The date passes while paused (moved through the database: PUT refuses paused campaigns).
    await env.db.system.execute(
      (await import('drizzle-orm'))
        .sql`update campaigns set scheduled_at = now() - interval '1 minute' where document_id = ${campaign.documentId}`,
    );
    const r = await act(t, campaign.documentId, 'resume');
    expect(r.body).toMatchObject({ campaignStatus: 'processing', stats: { total: 1 } });
  });

  test('processing: pause → paused → resume → processing; cancel → cancelled with pending skipped', async () => {
    const t = await newTenant(env.app);
    const { campaign } = await emailCampaign(t, { city: 'proc', contacts: 3 });
    await act(t, campaign.documentId, 'trigger');
    expect((await act(t, campaign.documentId, 'pause')).body.campaignStatus).toBe('paused');
    expect((await act(t, campaign.documentId, 'resume')).body.campaignStatus).toBe('processing');
    const c = await act(t, campaign.documentId, 'cancel');
    expect(c.body).toMatchObject({
      campaignStatus: 'cancelled',
      stats: { total: 3, pending: 0, skipped: 3 },
    });
    expect(c.body.completedAt).not.toBeNull();
  });

  test('cancel from draft, scheduled and paused', async () => {
    const t = await newTenant(env.app);
    const d = await emailCampaign(t, { city: 'c1' });
    expect((await act(t, d.campaign.documentId, 'cancel')).body.campaignStatus).toBe('cancelled');
    const s = await emailCampaign(t, { city: 'c2', scheduledAt: future() });
    await act(t, s.campaign.documentId, 'trigger');
    expect((await act(t, s.campaign.documentId, 'cancel')).body.campaignStatus).toBe('cancelled');
    const p = await emailCampaign(t, { city: 'c3', contacts: 1 });
    await act(t, p.campaign.documentId, 'trigger');
    await act(t, p.campaign.documentId, 'pause');
    expect((await act(t, p.campaign.documentId, 'cancel')).body.campaignStatus).toBe('cancelled');
  });

  test('every other (status, action) pair is a 422 naming the status and the allowed actions', async () => {
    const t = await newTenant(env.app);
    const expectRefused = async (id: string, action: string, status: string, allowed: string[]) => {
      const r = await act(t, id, action);
      expect(r.status, `${status} ${action}`).toBe(422);
      expect(r.body.error.details).toMatchObject({ campaignStatus: status, allowed });
    };
    const d = await emailCampaign(t, { city: 'i1' });
    await expectRefused(d.campaign.documentId, 'pause', 'draft', ['trigger', 'cancel']);
    await expectRefused(d.campaign.documentId, 'resume', 'draft', ['trigger', 'cancel']);
    const s = await emailCampaign(t, { city: 'i2', scheduledAt: future() });
    await act(t, s.campaign.documentId, 'trigger');
    await expectRefused(s.campaign.documentId, 'trigger', 'scheduled', ['pause', 'cancel']);
    await expectRefused(s.campaign.documentId, 'resume', 'scheduled', ['pause', 'cancel']);
    const p = await emailCampaign(t, { city: 'i3', contacts: 1 });
    await act(t, p.campaign.documentId, 'trigger');
    await expectRefused(p.campaign.documentId, 'trigger', 'processing', ['pause', 'cancel']);
    await expectRefused(p.campaign.documentId, 'resume', 'processing', ['pause', 'cancel']);
    expect((await t.api.put(`/campaigns/${p.campaign.documentId}`, { data: { name: 'x' } })).status).toBe(
      422,
    );
    expect(
      (await t.api.delete(`/campaigns/${p.campaign.documentId}`)).body.error.details.campaignStatus,
    ).toBe('processing');
    await act(t, p.campaign.documentId, 'pause');
    await expectRefused(p.campaign.documentId, 'trigger', 'paused', ['resume', 'cancel']);
    await expectRefused(p.campaign.documentId, 'pause', 'paused', ['resume', 'cancel']);
    expect((await t.api.delete(`/campaigns/${p.campaign.documentId}`)).status).toBe(422);
    await act(t, p.campaign.documentId, 'cancel');
    for (const a of ['trigger', 'pause', 'resume', 'cancel'])
      await expectRefused(p.campaign.documentId, a, 'cancelled', []);
    // Finished campaigns can be deleted.
    expect((await t.api.delete(`/campaigns/${p.campaign.documentId}`)).status).toBe(200);
  });

  test('the audience is fixed at start: contacts added later are not sent; a deleted segment cannot start', async () => {
    const t = await newTenant(env.app);
    const { campaign, segment } = await emailCampaign(t, { city: 'fix', contacts: 2 });
    await t.api.post('/contacts', { data: { name: 'dup', email: 'P0.fix@example.com', city: 'fix' } });
    const r = await act(t, campaign.documentId, 'trigger');
    // Same address twice (case-insensitive) is one recipient.
    expect(r.body.stats.total).toBe(2);
    await t.api.post('/contacts', { data: { name: 'late', email: 'late@example.com', city: 'fix' } });
    expect((await t.api.get(`/campaigns/${campaign.documentId}`)).body.stats.total).toBe(2);
    const other = await emailCampaign(t, { city: 'gone' });
    await t.api.delete(`/segments/${other.segment}`);
    const refused = await act(t, other.campaign.documentId, 'trigger');
    expect(refused.status).toBe(422);
    expect(refused.body.error.details.errors[0].path).toEqual(['segment']);
    expect(segment).toBeTruthy();
  });

  test('viewers read but cannot act; the campaigns feature is needed', async () => {
    const t = await newTenant(env.app);
    const { campaign } = await emailCampaign(t, { city: 'role' });
    const v = await addMember(t, 'viewer');
    expect((await v.api.get(`/campaigns/${campaign.documentId}`)).status).toBe(200);
    expect((await v.api.post(`/campaigns/${campaign.documentId}/trigger`)).status).toBe(403);
    const { setOrganizationPlan } = await import('../../../src/modules/organizations/repo.js');
    await setOrganizationPlan(env.db.system, t.slug, 'free');
    const r = await t.api.get('/campaigns');
    expect(r.status).toBe(403);
    expect(r.body.error.details.feature).toBe('campaigns');
  });

  test('another organization cannot read, edit, act on, count or delete a campaign', async () => {
    const a = await newTenant(env.app);
    const b = await newTenant(env.app);
    const { campaign, channel, template } = await emailCampaign(a, { city: 'ten', contacts: 1 });
    const id = campaign.documentId;
    expect((await b.api.get(`/campaigns/${id}`)).status).toBe(404);
    expect((await b.api.get('/campaigns')).body.data).toEqual([]);
    expect((await b.api.get(`/campaigns/${id}/stats`)).status).toBe(404);
    expect((await b.api.get(`/campaigns/${id}/recipients`)).status).toBe(404);
    expect((await b.api.put(`/campaigns/${id}`, { data: { name: 'x' } })).status).toBe(404);
    for (const action of ['trigger', 'pause', 'resume', 'cancel'])
      expect((await act(b, id, action)).status).toBe(404);
    expect((await b.api.delete(`/campaigns/${id}`)).status).toBe(404);
    // b cannot build a campaign from a's channel, template or segment.
    const bSeg = await segmentFor(b.api, 'ten');
    const cross = await b.api.post('/campaigns', {
      data: { name: 'x', channel: channel.documentId, segment: bSeg, template: template.documentId },
    });
    expect(cross.status).toBe(404);
    expect((await a.api.get(`/campaigns/${id}`)).status).toBe(200);
  });
});
