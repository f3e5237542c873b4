import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { setOrganizationPlan } from '../../src/modules/organizations/repo.js';
import type { Database } from '../../src/platform/db/client.js';
import { getApp, testConfig } from '../helpers/app.js';
import { startWhatsAppPeer, type WhatsAppPeer } from '../helpers/peers/whatsapp.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { call, connectStdio, fails, mcpEnv, newOrg, type Org, read, type Service, write } from './harness.js';

let service: Service;
let wa: WhatsAppPeer;
let smtp: TestSmtp;
let db: Database;

beforeAll(async () => {
  [wa, smtp] = await Promise.all([startWhatsAppPeer(), startSmtp()]);
  const config = testConfig({
    PORT: 0,
    HOST: '127.0.0.1',
    CRM_DATA_DIR: 'memory://',
    CRM_WHATSAPP_API_URL: wa.url,
    SMTP_URL: smtp.url,
    CRM_OUTBOUND_ALLOWLIST: '127.0.0.1',
  });
  // The worker's shared database (also on PGlite), so the test can change an organization's plan.
  db = (await getApp()).db;
  const app = await buildApp({ config, db });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  service = { url, close: () => app.close() };
});
afterAll(async () => {
  await service?.close();
  await Promise.all([wa?.close(), smtp?.close()]);
});

describe('message template, e-mail template and channel tools (stdio)', () => {
  let org: Org;
  let client: Client;
  let channelId: string;

  beforeAll(async () => {
    org = await newOrg(service);
    client = await connectStdio(mcpEnv(service, org));
    const ch = await org.call('POST', '/chat-channels', {
      data: {
        name: 'WA',
        type: 'whatsapp',
        settings: { phoneNumberId: '1001', businessAccountId: '2002', appId: '3003' },
        credentials: { accessToken: wa.accessToken, appSecret: 's', verifyToken: 'v' },
      },
    });
    channelId = ch.body.documentId;
  });
  afterAll(async () => client?.close());

  it('channels: list, health from the provider, board links', async () => {
    const list = await read(client, 'crm.list_chat_channels', { type: 'whatsapp' });
    expect(list.data.map((c: any) => c.documentId)).toEqual([channelId]);
    expect(JSON.stringify(list)).not.toContain(wa.accessToken);
    expect(await read(client, 'crm.get_chat_channel_health', { channelId })).toMatchObject({ status: 'ok' });
    const board = await org.call('POST', '/boards', { data: { name: 'B' } });
    await org.call('PUT', `/boards/${board.body.documentId}/chat-channels`, {
      data: { channels: [channelId] },
    });
    const linked = await read(client, 'crm.list_board_chat_channels', { boardId: board.body.documentId });
    expect(linked.data.map((c: any) => c.documentId)).toEqual([channelId]);
  });

  it('WhatsApp templates: submit (confirmed), sync, list, media handle, delete at the provider', async () => {
    const args = {
      channelId,
      name: 'mcp_promo',
      language: 'en_US',
      category: 'MARKETING',
      components: [{ type: 'BODY', text: 'Hi {{1}}' }],
    };
    // Nothing reaches the provider before the person confirms.
    const preview = await call(client, 'crm.create_whatsapp_template', args);
    expect(preview.structuredContent?.status).toBe('confirmation_required');
    expect(wa.templates.has('mcp_promo|en_US')).toBe(false);
    const created = await write(client, 'crm.create_whatsapp_template', args);
    expect(created).toMatchObject({ name: 'mcp_promo', status: 'PENDING' });
    expect(wa.templates.has('mcp_promo|en_US')).toBe(true);
    wa.templates.get('mcp_promo|en_US')!.status = 'APPROVED';
    const synced = await write(client, 'crm.sync_whatsapp_templates', { channelId });
    expect(synced.meta).toEqual({ created: 0, updated: 1, deleted: 0 });
    const approved = await read(client, 'crm.list_whatsapp_templates', { channelId, status: 'APPROVED' });
    expect(approved.data.map((t: any) => t.name)).toEqual(['mcp_promo']);
    expect((await read(client, 'crm.list_channel_templates', { channelId })).data).toHaveLength(1);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(20)]).toString('base64');
    const handle = await write(client, 'crm.upload_whatsapp_template_media_handle', {
      channelId,
      filename: 'h.png',
      mimeType: 'image/png',
      base64: png,
    });
    expect(handle.handle).toMatch(/^4::/);
    expect(
      await write(client, 'crm.delete_whatsapp_template', { channelId, templateId: created.documentId }),
    ).toEqual({
      documentId: created.documentId,
      deleted: true,
    });
    expect(wa.templates.has('mcp_promo|en_US')).toBe(false);
  });

  it('e-mail templates: CRUD, preview, test e-mail sent over SMTP only after confirmation', async () => {
    const tpl = await write(client, 'crm.create_email_template', {
      name: 'Welcome',
      subject: 'Welcome {{contact.name}}',
      html: '<p>Hi {{contact.name}}</p>',
    });
    expect(tpl.variables).toEqual(['contact.name']);
    expect((await read(client, 'crm.list_email_templates', { search: 'wel' })).data).toHaveLength(1);
    expect((await read(client, 'crm.get_email_template', { templateId: tpl.documentId })).name).toBe(
      'Welcome',
    );
    const upd = await write(client, 'crm.update_email_template', {
      templateId: tpl.documentId,
      subject: 'Hello {{contact.name}}',
    });
    expect(upd.subject).toBe('Hello {{contact.name}}');
    const preview = await read(client, 'crm.preview_email_template', { templateId: tpl.documentId });
    expect(preview.subject).toBe('Hello Ana Silva');
    await fails(
      client,
      'crm.create_email_template',
      { name: 'Bad', subject: '{{contact.secret}}', html: '<p/>' },
      400,
      'ValidationError',
    );

    const before = smtp.received.length;
    const first = await call(client, 'crm.send_test_email', {
      templateId: tpl.documentId,
      to: 'me@example.com',
    });
    expect(first.structuredContent?.status).toBe('confirmation_required');
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.length).toBe(before);
    const sent = await write(client, 'crm.send_test_email', {
      templateId: tpl.documentId,
      to: 'me@example.com',
    });
    await smtp.waitFor((m) => m.some((x) => x.messageId === sent.messageId));
    expect(smtp.received.find((x) => x.messageId === sent.messageId)?.subject).toBe('[TEST] Hello Ana Silva');

    expect(await write(client, 'crm.delete_email_template', { templateId: tpl.documentId })).toMatchObject({
      deleted: true,
    });
  });

  it('e-mail tools need the campaigns feature (403 naming it)', async () => {
    const other = await newOrg(service);
    await setOrganizationPlan(db.system, other.slug, 'free');
    const c = await connectStdio(mcpEnv(service, other));
    try {
      const err = await fails(c, 'crm.list_email_templates', {}, 403, 'ForbiddenError');
      expect(err.details.feature).toBe('email_marketing');
      await fails(c, 'crm.list_chat_channels', {}, 403, 'ForbiddenError');
    } finally {
      await c.close();
    }
  });

  it('with elicitation the person is asked; a declined test e-mail sends nothing', async () => {
    const tpl = await org.call('POST', '/email-templates', {
      data: { name: 'E', subject: 'S', html: '<p>x</p>' },
    });
    const asked: string[] = [];
    const c = await connectStdio(mcpEnv(service, org), (message) => {
      asked.push(message);
      return 'decline';
    });
    try {
      const before = smtp.received.length;
      const res = await call(c, 'crm.send_test_email', {
        templateId: tpl.body.documentId,
        to: 'x@example.com',
      });
      expect(res.structuredContent?.status).toBe('declined');
      expect(asked[0]).toContain('send a real test e-mail');
      await new Promise((r) => setTimeout(r, 300));
      expect(smtp.received.length).toBe(before);
    } finally {
      await c.close();
    }
  });
});
