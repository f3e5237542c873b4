import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newTenant } from '../../helpers/app.js';
import { createEmailChannel, type MessagingEnv, startMessaging } from '../../helpers/messaging.js';
import { automationWorld } from '../automations/helpers.js';

/** Automation sends are marketing unless the action says transactional (docs/lgpd.md, "Consent"). */
let env: MessagingEnv;
const world = automationWorld();
beforeAll(async () => {
  env = await startMessaging();
});
afterAll(async () => {
  await world.close();
  await env?.close();
});

describe('automation sends and consent', () => {
  test('marketing send_email skips a contact without consent; a transactional one is sent', async () => {
    const t = await world.track(await newTenant(env.app));
    await createEmailChannel(t.api);
    const tpl = await t.api.post('/email-templates', {
      data: { name: 'Receipt', subject: 'For {{contact.name}}', html: '<p>Hi</p>' },
    });
    const action = (purpose?: string) => ({
      type: 'send_email',
      params: { template: tpl.body.documentId, ...(purpose ? { purpose } : {}) },
    });
    const bad = await t.api.post('/automations', {
      data: { name: 'bad', trigger: { event: 'contact.created' }, actions: [action('spam')] },
    });
    expect(bad.status).toBe(400);
    const a = await t.api.post('/automations', {
      data: {
        name: 'both',
        trigger: { event: 'contact.created' },
        actions: [action(), action('transactional')],
      },
    });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    await t.api.post('/contacts', { data: { name: 'Nocon', email: 'nocon@auto.example' } });
    await world.cycle(env.config);
    const [run] = (await t.api.get(`/automations/${a.body.documentId}/runs`)).body.data;
    expect(run.status).toBe('succeeded');
    expect(run.results[0].output).toEqual({
      skipped: true,
      to: 'nocon@auto.example',
      reason: 'the contact has no email marketing consent and the organization requires one: not sent',
    });
    expect(run.results[1].output.messageId).toBeTruthy();
    expect(env.smtp.received.filter((m) => m.to[0] === 'nocon@auto.example')).toHaveLength(1);
  });
});
