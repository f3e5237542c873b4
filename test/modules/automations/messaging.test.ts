import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiClient, newTenant } from '../../helpers/app.js';
import {
  createEmailChannel,
  createWhatsAppChannel,
  type MessagingEnv,
  startMessaging,
} from '../../helpers/messaging.js';
import { grantMarketing } from '../campaigns/helpers.js';
import { automationWorld } from './helpers.js';

/** send_email and send_template_message through the local SMTP server and WhatsApp Cloud API peer. */
let env: MessagingEnv;
const world = automationWorld();
let t: Awaited<ReturnType<typeof world.track>>;

beforeAll(async () => {
  env = await startMessaging();
  t = await world.track(await newTenant(env.app));
});
afterAll(async () => {
  await world.close();
  await env?.close();
});

describe('automations: messages', () => {
  test('send_email renders the template for the contact and sends it once; a suppressed address is skipped, recorded', async () => {
    await createEmailChannel(t.api);
    const tpl = await t.api.post('/email-templates', {
      data: { name: 'Welcome', subject: 'Welcome {{contact.name}}', html: '<p>Hi {{contact.name}}</p>' },
    });
    const bad = await t.api.post('/automations', {
      data: {
        name: 'x',
        trigger: { event: 'contact.created' },
        actions: [{ type: 'send_email', params: { template: 'n'.repeat(24) } }],
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/no e-mail template/);
    const a = await t.api.post('/automations', {
      data: {
        name: 'Welcome mail',
        trigger: { event: 'contact.created' },
        actions: [{ type: 'send_email', params: { template: tpl.body.documentId } }],
      },
    });
    expect(a.status).toBe(201);
    await t.api.post('/suppressions', { data: { address: 'blocked.auto@example.com' } });
    const auto = await t.api.post('/contacts', {
      data: { name: 'Auto Mail', email: 'auto.mail@example.com' },
    });
    await grantMarketing(t.api, auto.body.documentId, 'email');
    await t.api.post('/contacts', { data: { name: 'Blocked', email: 'blocked.auto@example.com' } });
    await world.cycle(env.config);
    const runs = (await t.api.get(`/automations/${a.body.documentId}/runs`)).body.data;
    const byStatus = runs.map((r: any) => [r.status, r.results[0].ok]).sort();
    expect(byStatus).toEqual([
      ['succeeded', true],
      ['succeeded', true],
    ]);
    // The opted-out contact: the run records the skip (and would go on with later actions); nothing is sent.
    const skipped = runs.find((r: any) => r.results[0].output.skipped);
    expect(skipped.results[0].output).toEqual({
      skipped: true,
      to: 'blocked.auto@example.com',
      reason: 'blocked.auto@example.com is on the suppression list (manual): not sent',
    });
    const mails = env.smtp.received.filter((m) => m.to[0] === 'auto.mail@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('Welcome Auto Mail');
    expect(env.smtp.received.filter((m) => m.to[0] === 'blocked.auto@example.com')).toHaveLength(0);
  });

  test('send_email carries the unsubscribe link and List-Unsubscribe like campaign mail; unsubscribing stops the next one', async () => {
    const u = await world.track(await newTenant(env.app));
    await createEmailChannel(u.api);
    const tpl = await u.api.post('/email-templates', {
      data: {
        name: 'Follow-up',
        subject: 'News for {{contact.name}}',
        html: '<p>Hi</p><a href="{{unsubscribeUrl}}">stop these</a>',
      },
    });
    const a = await u.api.post('/automations', {
      data: {
        name: 'Follow-up mail',
        trigger: { event: 'contact.updated' },
        actions: [
          { type: 'send_email', params: { template: tpl.body.documentId } },
          { type: 'create_task', params: { name: 'call them' } },
        ],
      },
    });
    expect(a.status).toBe(201);
    const contact = (
      await u.api.post('/contacts', { data: { name: 'Optout', email: 'Opt.Out@Example.com' } })
    ).body;
    await grantMarketing(u.api, contact.documentId, 'email');
    await u.api.put(`/contacts/${contact.documentId}`, { data: { city: 'Recife' } });
    await world.cycle(env.config);
    const mails = env.smtp.received.filter((m) => m.to[0].toLowerCase() === 'opt.out@example.com');
    expect(
      mails,
      JSON.stringify((await u.api.get(`/automations/${a.body.documentId}/runs`)).body),
    ).toHaveLength(1);
    const raw = mails[0].raw.replace(/\r?\n[ \t]+/g, ' ');
    const header = /List-Unsubscribe: <http:\/\/crm\.test(\/api\/unsubscribe\/[\w.-]+)>/.exec(raw);
    expect(header).not.toBeNull();
    expect(raw).toMatch(/List-Unsubscribe-Post: List-Unsubscribe=One-Click/);
    const path = header![1];
    // The same link in the body (the template's {{unsubscribeUrl}}) and the text part.
    const body = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    expect(body).toContain(`href="http://crm.test${path}"`);
    expect(body).toContain(`Unsubscribe: http://crm.test${path}`);
    const anon = apiClient(env.app, {});
    // A token of another kind or tampered is not an unsubscribe link.
    expect(
      (await anon.request({ method: 'GET', url: `${path.slice(0, -2)}${path.endsWith('xx') ? 'yy' : 'xx'}` }))
        .status,
    ).toBe(404);
    expect((await anon.request({ method: 'GET', url: path })).status).toBe(200);
    const one = await anon.request({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(one.status).toBe(200);
    const supp = (await u.api.get('/suppressions')).body.data;
    expect(supp.map((s: any) => [s.address, s.reason])).toEqual([['opt.out@example.com', 'unsubscribed']]);
    // Another organization never sees it, and its own mail to the same address is unaffected.
    expect((await t.api.get('/suppressions')).body.data.map((s: any) => s.address)).not.toContain(
      'opt.out@example.com',
    );
    await u.api.put(`/contacts/${contact.documentId}`, { data: { city: 'Olinda' } });
    await world.cycle(env.config);
    expect(env.smtp.received.filter((m) => m.to[0].toLowerCase() === 'opt.out@example.com')).toHaveLength(1);
    const runs = (await u.api.get(`/automations/${a.body.documentId}/runs`)).body.data;
    const latest = runs.find((r: any) => r.results[0].output?.skipped);
    expect(latest.status).toBe('succeeded');
    expect(latest.results[0].output.reason).toMatch(/suppression list \(unsubscribed\): not sent/);
    // The skip does not stop the run: the next action ran.
    expect(latest.results[1]).toMatchObject({ type: 'create_task', ok: true });
  });

  test('send_template_message sends an approved WhatsApp template to the contact with rendered parameters', async () => {
    const channel = await createWhatsAppChannel(t.api, env);
    env.wa.templates.set('auto_hello|pt_BR', {
      id: '9901',
      name: 'auto_hello',
      language: 'pt_BR',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Oi {{1}}' }],
    });
    await t.api.post(`/chat-channels/${channel.documentId}/templates/sync`);
    const unknown = await t.api.post('/automations', {
      data: {
        name: 'x',
        trigger: { event: 'contact.created' },
        actions: [
          { type: 'send_template_message', params: { channel: channel.documentId, template: 'nope' } },
        ],
      },
    });
    expect(unknown.status).toBe(400);
    const a = await t.api.post('/automations', {
      data: {
        name: 'Hello on WhatsApp',
        trigger: { event: 'contact.created', conditions: [{ field: 'contact.phone', op: 'exists' }] },
        actions: [
          {
            type: 'send_template_message',
            params: { channel: channel.documentId, template: 'auto_hello', params: ['{{contact.name}}'] },
          },
        ],
      },
    });
    expect(a.status).toBe(201);
    await t.api.post('/suppressions', { data: { address: '+5511987654321' } });
    const zap = await t.api.post('/contacts', { data: { name: 'Zap Person', phone: '+5511912345678' } });
    await grantMarketing(t.api, zap.body.documentId, 'whatsapp');
    await t.api.post('/contacts', { data: { name: 'Opted Out', phone: '+5511987654321' } });
    await world.cycle(env.config);
    const runs = (await t.api.get(`/automations/${a.body.documentId}/runs`)).body.data;
    expect(runs.map((r: any) => r.status)).toEqual(['succeeded', 'succeeded']);
    // The suppressed phone: a recorded skip, nothing reaches the provider.
    const skipped = runs.find((r: any) => r.results[0].output.skipped);
    expect(skipped.results[0].output).toEqual({
      skipped: true,
      to: '+5511987654321',
      reason: '+5511987654321 is on the suppression list (manual): not sent',
    });
    expect(env.wa.messages.filter((m) => m.to === '5511987654321')).toHaveLength(0);
    const sent = env.wa.messages.filter((m) => m.to === '5511912345678');
    expect(sent).toHaveLength(1);
    expect(sent[0].payload.template).toMatchObject({
      name: 'auto_hello',
      language: { code: 'pt_BR' },
      components: [{ type: 'body', parameters: [{ type: 'text', text: 'Zap Person' }] }],
    });
  });
});
