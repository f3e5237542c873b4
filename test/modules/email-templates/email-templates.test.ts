import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { setOrganizationPlan } from '../../../src/modules/organizations/repo.js';
import { addMember, apiClient, newTenant } from '../../helpers/app.js';
import { createEmailChannel, type MessagingEnv, startMessaging } from '../../helpers/messaging.js';

let env: MessagingEnv;
beforeAll(async () => {
  env = await startMessaging({ config: { RATE_LIMIT_DISPATCH_MAX: 3 } });
});
afterAll(async () => env?.close());

const tpl = {
  name: 'Newsletter',
  subject: 'Hi {{contact.name}} from {{organization.name}}',
  html: '<p>Hello {{contact.name}} ({{contact.customFields.plan}})</p><a href="{{unsubscribeUrl}}">Unsubscribe</a>',
};

describe('e-mail templates', () => {
  test('CRUD, the variables it uses, unknown variables refused with the path', async () => {
    const t = await newTenant(env.app);
    const created = await t.api.post('/email-templates', { data: tpl });
    expect(created.status).toBe(201);
    expect(created.body.variables).toEqual([
      'contact.name',
      'organization.name',
      'contact.customFields.plan',
      'unsubscribeUrl',
    ]);
    const id = created.body.documentId;
    expect((await t.api.get('/email-templates')).body.data).toHaveLength(1);
    const upd = await t.api.put(`/email-templates/${id}`, { data: { subject: 'New {{variables.season}}' } });
    expect(upd.body.subject).toBe('New {{variables.season}}');
    const bad = await t.api.put(`/email-templates/${id}`, { data: { html: '<p>{{contact.password}}</p>' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors[0].path).toEqual(['html']);
    expect((await t.api.post('/email-templates', { data: tpl })).body.error.details.duplicateKeys).toEqual([
      'name',
    ]);
    expect((await t.api.delete(`/email-templates/${id}`)).status).toBe(200);
    expect((await t.api.get(`/email-templates/${id}`)).status).toBe(404);
  });

  test('preview renders for a contact, HTML-escaping its data', async () => {
    const t = await newTenant(env.app);
    const c = await t.api.post('/contacts', {
      data: { name: 'Bo <b>Bold</b>', email: 'bo@example.com', customFields: { plan: 'gold' } },
    });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    const { body } = await t.api.post('/email-templates', { data: tpl });
    const p = await t.api.post(`/email-templates/${body.documentId}/preview`, { contact: c.body.documentId });
    expect(p.status).toBe(200);
    expect(p.body.subject).toBe(`Hi Bo <b>Bold</b> from Org ${t.slug}`);
    expect(p.body.html).toContain('Hello Bo &lt;b&gt;Bold&lt;/b&gt; (gold)');
    expect(p.body.text).toContain('Hello Bo <b>Bold</b> (gold)');
    const sample = await t.api.post(`/email-templates/${body.documentId}/preview`, {});
    expect(sample.body.subject).toContain('Ana Silva');
    expect(
      (await t.api.post(`/email-templates/${body.documentId}/preview`, { contact: 'nope' })).status,
    ).toBe(404);
  });

  test('test-send delivers one real message over SMTP through a channel; rate-limited', async () => {
    const t = await newTenant(env.app);
    const ch = await createEmailChannel(t.api, { replyTo: 'reply@acme.test' });
    const { body } = await t.api.post('/email-templates', { data: tpl });
    const res = await t.api.post(`/email-templates/${body.documentId}/test-send`, {
      to: 'qa@example.com',
      channel: ch.documentId,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await env.smtp.waitFor((m) => m.some((x) => x.messageId === res.body.messageId));
    const mail = env.smtp.received.find((x) => x.messageId === res.body.messageId)!;
    expect(mail.to).toEqual(['qa@example.com']);
    expect(mail.from).toBe('news@acme.test');
    expect(mail.subject).toBe(`[TEST] Hi Ana Silva from Org ${t.slug}`);
    expect(mail.raw).toMatch(/Reply-To: reply@acme.test/);
    // A 4th send within the window is refused (RATE_LIMIT_DISPATCH_MAX=3 here).
    await t.api.post(`/email-templates/${body.documentId}/test-send`, { to: 'qa@example.com' });
    await t.api.post(`/email-templates/${body.documentId}/test-send`, { to: 'qa@example.com' });
    const limited = await t.api.post(`/email-templates/${body.documentId}/test-send`, {
      to: 'qa@example.com',
    });
    expect(limited.status).toBe(429);
  });

  test('images: type checked on the bytes, size capped, served publicly at a stable URL', async () => {
    const t = await newTenant(env.app);
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(32, 1),
    ]);
    const up = await t.api.post('/email-assets', {
      data: { filename: 'logo.png', mimeType: 'image/png', base64: png.toString('base64') },
    });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body.url).toBe(`http://crm.test/api/email-assets/${up.body.documentId}/logo.png`);
    const anon = apiClient(env.app, {});
    const img = await anon.request({
      method: 'GET',
      url: `/api/email-assets/${up.body.documentId}/logo.png`,
    });
    expect(img.status).toBe(200);
    expect(img.headers['content-type']).toBe('image/png');
    expect(
      (await anon.request({ method: 'GET', url: `/api/email-assets/${up.body.documentId}/other.png` }))
        .status,
    ).toBe(404);
    const lying = await t.api.post('/email-assets', {
      data: { filename: 'x.jpg', mimeType: 'image/jpeg', base64: png.toString('base64') },
    });
    expect(lying.status).toBe(400);
    const big = await t.api.post('/email-assets', {
      data: {
        filename: 'big.png',
        mimeType: 'image/png',
        base64: Buffer.concat([png, Buffer.alloc(2 * 1024 * 1024)]).toString('base64'),
      },
    });
    expect(big.status).toBe(413);
    expect((await t.api.get('/email-assets')).body.data).toHaveLength(1);
    await t.api.delete(`/email-assets/${up.body.documentId}`);
    expect(
      (await anon.request({ method: 'GET', url: `/api/email-assets/${up.body.documentId}/logo.png` })).status,
    ).toBe(404);
  });

  test('admins write, members read; features email_marketing and campaigns', async () => {
    const t = await newTenant(env.app);
    const m = await addMember(t, 'member');
    expect((await m.api.post('/email-templates', { data: tpl })).status).toBe(403);
    expect((await m.api.get('/email-templates')).status).toBe(200);
    await setOrganizationPlan(env.db.system, t.slug, 'free');
    const res = await t.api.get('/email-templates');
    expect(res.status).toBe(403);
    expect(res.body.error.details.feature).toBe('email_marketing');
  });

  test('another organization cannot read, change, preview, test-send or delete a template or image', async () => {
    const a = await newTenant(env.app);
    const b = await newTenant(env.app);
    const { body } = await a.api.post('/email-templates', { data: tpl });
    const id = body.documentId;
    expect((await b.api.get(`/email-templates/${id}`)).status).toBe(404);
    expect((await b.api.get('/email-templates')).body.data).toEqual([]);
    expect((await b.api.put(`/email-templates/${id}`, { data: { name: 'x' } })).status).toBe(404);
    expect((await b.api.post(`/email-templates/${id}/preview`, {})).status).toBe(404);
    expect((await b.api.post(`/email-templates/${id}/test-send`, { to: 'x@example.com' })).status).toBe(404);
    expect((await b.api.delete(`/email-templates/${id}`)).status).toBe(404);
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(8),
    ]);
    const up = await a.api.post('/email-assets', {
      data: { filename: 'a.png', mimeType: 'image/png', base64: png.toString('base64') },
    });
    expect((await b.api.delete(`/email-assets/${up.body.documentId}`)).status).toBe(404);
    expect((await b.api.get('/email-assets')).body.data).toEqual([]);
    // a's template previewed with b's contact: the contact is not found in a.
    const bc = await b.api.post('/contacts', { data: { name: 'B person' } });
    expect((await a.api.post(`/email-templates/${id}/preview`, { contact: bc.body.documentId })).status).toBe(
      404,
    );
  });
});
