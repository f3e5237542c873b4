import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newTenant } from '../../helpers/app.js';
import {
  createEmailChannel,
  createWhatsAppChannel,
  type MessagingEnv,
  startMessaging,
} from '../../helpers/messaging.js';
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
  test('send_email renders the template for the contact and sends it once; a suppressed address is not written to', async () => {
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
    await t.api.post('/contacts', { data: { name: 'Auto Mail', email: 'auto.mail@example.com' } });
    await t.api.post('/contacts', { data: { name: 'Blocked', email: 'blocked.auto@example.com' } });
    await world.cycle(env.config);
    const runs = (await t.api.get(`/automations/${a.body.documentId}/runs`)).body.data;
    const byStatus = runs.map((r: any) => [r.status, r.results[0].ok]).sort();
    expect(byStatus).toEqual([
      ['failed', false],
      ['succeeded', true],
    ]);
    expect(runs.find((r: any) => r.status === 'failed').results[0].message).toMatch(/suppression list/);
    const mails = env.smtp.received.filter((m) => m.to[0] === 'auto.mail@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('Welcome Auto Mail');
    expect(env.smtp.received.filter((m) => m.to[0] === 'blocked.auto@example.com')).toHaveLength(0);
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
    await t.api.post('/contacts', { data: { name: 'Zap Person', phone: '+5511912345678' } });
    await world.cycle(env.config);
    const [run] = (await t.api.get(`/automations/${a.body.documentId}/runs`)).body.data;
    expect(run.status).toBe('succeeded');
    const sent = env.wa.messages.filter((m) => m.to === '5511912345678');
    expect(sent).toHaveLength(1);
    expect(sent[0].payload.template).toMatchObject({
      name: 'auto_hello',
      language: { code: 'pt_BR' },
      components: [{ type: 'body', parameters: [{ type: 'text', text: 'Zap Person' }] }],
    });
  });
});
