import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newTenant } from '../../helpers/app.js';
import { dryRunChangesNothing, sameFailure, snapshot } from '../../helpers/dry-run.js';
import {
  createEmailChannel,
  createWhatsAppChannel,
  type MessagingEnv,
  startMessaging,
} from '../../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from './helpers.js';

/**
 * Dry runs of the writes that reach a provider (docs/dry-run.md): the checks run, nothing is written and no
 * request reaches the local WhatsApp peer or SMTP server.
 */

let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging();
});
afterAll(async () => env?.close());

const hoursAgo = (h: number) => Math.floor(Date.now() / 1000 - h * 3600);
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe('inbox sends', () => {
  test('a message, an attachment and a status change: the would-be answer, no provider call, nothing written', async () => {
    const t = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const [fresh, stale] = [waNumber(), waNumber()];
    await inbound(env, channel, [
      { from: fresh, text: 'hi' },
      { from: stale, text: 'old', timestamp: hoursAgo(25) },
    ]);
    const cf = await conversationOf(t.api, fresh);
    const cs = await conversationOf(t.api, stale);
    const requests = env.wa.requests.length;

    const dry = await dryRunChangesNothing(t, (q) =>
      t.api.post(`/conversations/${cf.id}/messages${q}`, { data: { message: { content: 'Hello!' } } }),
    );
    expect(dry.body).toMatchObject({
      direction: 'outgoing',
      content: 'Hello!',
      contentType: 'text',
      status: 'queued',
    });
    const file = await dryRunChangesNothing(t, (q) =>
      t.api.post(`/conversations/${cf.id}/attachments${q}`, {
        data: {
          filename: 'dot.png',
          mimeType: 'image/png',
          base64: PNG.toString('base64'),
          caption: 'A dot',
        },
      }),
    );
    expect(file.body).toMatchObject({
      contentType: 'image',
      attachments: [{ filename: 'dot.png', mediaId: null }],
    });
    const closed = await sameFailure(t, (q) =>
      t.api.post(`/conversations/${cs.id}/messages${q}`, { data: { message: { content: 'Hello?' } } }),
    );
    expect(closed.dry.status).toBe(422);
    const badType = await sameFailure(t, (q) =>
      t.api.post(`/conversations/${cf.id}/attachments${q}`, {
        data: { filename: 'a.exe', mimeType: 'application/x-msdownload', base64: 'AAAA' },
      }),
    );
    expect(badType.dry.status).toBe(400);
    const status = await dryRunChangesNothing(t, (q) =>
      t.api.patch(`/conversations/${cf.id}${q}`, { data: { status: 'resolved' } }),
    );
    expect(status.body.status).toBe('resolved');
    await dryRunChangesNothing(t, (q) => t.api.post(`/conversations/${cf.id}/seen${q}`));
    expect(env.wa.requests.length).toBe(requests);

    // The real send afterwards reaches the provider once.
    const real = await t.api.post(`/conversations/${cf.id}/messages`, {
      data: { message: { content: 'Hello!' } },
    });
    expect(real.status).toBe(201);
    expect(real.body.status).toBe('sent');
    expect(env.wa.messages.at(-1)).toMatchObject({ to: fresh, payload: { text: { body: 'Hello!' } } });
  });

  test('starting a conversation with a new contact: conversation and message as they would be, nothing kept', async () => {
    const t = await newTenant(env.app);
    const { inboxId, board } = await inboxSetup(env, t);
    const phone = waNumber();
    const contact = await t.api.post('/contacts', { data: { name: 'Dora', phone: `+${phone}` } });
    const requests = env.wa.requests.length;
    const input = (message: Record<string, unknown>) => ({
      data: { inboxId, contact: contact.body.documentId, message },
    });
    const template = {
      content: 'Welcome Dora',
      template_params: { name: 'welcome', category: 'MARKETING', language: 'pt_BR' },
    };
    const dry = await dryRunChangesNothing(t, (q) => t.api.post(`/conversations${q}`, input(template)));
    expect(dry.body.conversation).toMatchObject({
      inboxId,
      waId: phone,
      contact: { documentId: contact.body.documentId },
      card: { board: { documentId: board!.documentId } },
    });
    expect(dry.body.message).toMatchObject({
      contentType: 'template',
      status: 'queued',
      content: 'Welcome Dora',
    });
    expect((await t.api.get(`/contacts/${contact.body.documentId}/conversations`)).body.data).toEqual([]);
    // Free text to a contact who never wrote: the window is not open, in a dry run as for real.
    const before = await snapshot(t);
    const refused = await t.api.post('/conversations?dryRun=true', input({ content: 'hi' }));
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toMatch(/24-hour window/);
    expect(await snapshot(t)).toEqual(before);
    expect(env.wa.requests.length).toBe(requests);
    const real = await t.api.post('/conversations', input(template));
    expect(real.status, JSON.stringify(real.body)).toBe(201);
    expect(real.body.message.status).toBe('sent');
  });
});

describe('messaging templates and test e-mail', () => {
  test('WhatsApp templates: submit, media handle, sync and delete reach no provider in a dry run', async () => {
    const t = await newTenant(env.app);
    const ch = await createWhatsAppChannel(t.api, env);
    const url = `/chat-channels/${ch.documentId}/templates`;
    const tpl = (name: string) => ({
      data: {
        name,
        language: 'pt_BR',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Olá {{1}}' }],
      },
    });
    const requests = env.wa.requests.length;
    const dry = await dryRunChangesNothing(t, (q) => t.api.post(`${url}${q}`, tpl('dry_sale')));
    expect(dry.body).toMatchObject({ name: 'dry_sale', status: 'PENDING', externalId: null });
    expect(env.wa.templates.has('dry_sale|pt_BR')).toBe(false);
    const handle = await dryRunChangesNothing(t, (q) =>
      t.api.post(`${url}/media-handle${q}`, {
        filename: 'banner.png',
        mimeType: 'image/png',
        base64: PNG.toString('base64'),
      }),
    );
    expect(handle.body.handle).toBe('');
    expect(env.wa.requests.length).toBe(requests);

    const real = await t.api.post(url, tpl('real_sale'));
    expect(real.status).toBe(201);
    const afterCreate = env.wa.requests.length;
    const dup = await sameFailure(t, (q) => t.api.post(`${url}${q}`, tpl('real_sale')));
    expect(dup.dry.status).toBe(400);
    const synced = await dryRunChangesNothing(t, (q) => t.api.post(`${url}/sync${q}`));
    expect(synced.body.data.map((x: any) => x.name)).toEqual(['real_sale']);
    await dryRunChangesNothing(t, (q) => t.api.delete(`${url}/${real.body.documentId}${q}`));
    expect(env.wa.templates.has('real_sale|pt_BR')).toBe(true);
    expect(env.wa.requests.length).toBe(afterCreate);
    const missing = await sameFailure(t, (q) => t.api.delete(`${url}/zzzzzzzzzzzzzzzzzzzzzzzz${q}`));
    expect(missing.dry.status).toBe(404);
  });

  test('a test e-mail as a dry run is rendered and checked but not sent', async () => {
    const t = await newTenant(env.app);
    const ch = await createEmailChannel(t.api);
    const created = await t.api.post('/email-templates', {
      data: { name: 'News', subject: 'Hi {{contact.name}}', html: '<p>Hello {{contact.name}}</p>' },
    });
    expect(created.status).toBe(201);
    const received = env.smtp.received.length;
    const dry = await dryRunChangesNothing(t, (q) =>
      t.api.post(`/email-templates/${created.body.documentId}/test-send${q}`, {
        to: 'qa@example.com',
        channel: ch.documentId,
      }),
    );
    expect(dry.body).toMatchObject({ to: 'qa@example.com', subject: expect.stringMatching(/^\[TEST\] Hi /) });
    const bad = await sameFailure(t, (q) =>
      t.api.post(`/email-templates/${created.body.documentId}/test-send${q}`, { to: 'not-an-address' }),
    );
    expect(bad.dry.status).toBe(400);
    // test-send answers after the SMTP server accepted the message: had one gone out, it would be here.
    expect(env.smtp.received.length).toBe(received);
    expect(env.smtp.received.some((m) => m.messageId === dry.body.messageId)).toBe(false);
  });
});
