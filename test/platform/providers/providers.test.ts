import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolvePublicHost } from '../../../src/platform/outbound/resolve-host.js';
import { emailProvider } from '../../../src/platform/providers/email/client.js';
import { ProviderError } from '../../../src/platform/providers/provider-error.js';
import { smsProvider } from '../../../src/platform/providers/sms/client.js';
import { whatsappProvider } from '../../../src/platform/providers/whatsapp/client.js';
import { testConfig } from '../../helpers/app.js';
import { startTwilioPeer, type TwilioPeer } from '../../helpers/peers/twilio.js';
import { startWhatsAppPeer, type WhatsAppPeer } from '../../helpers/peers/whatsapp.js';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.js';

let wa: WhatsAppPeer;
let tw: TwilioPeer;
let smtp: TestSmtp;
beforeAll(async () => {
  [wa, tw, smtp] = await Promise.all([startWhatsAppPeer(), startTwilioPeer(), startSmtp()]);
});
afterAll(async () => {
  await Promise.all([wa?.close(), tw?.close(), smtp?.close()]);
});

const waConfig = () => testConfig({ CRM_WHATSAPP_API_URL: wa.url, CRM_PROVIDER_TIMEOUT_MS: 2000 });
const creds = () => ({
  accessToken: wa.accessToken,
  phoneNumberId: '1001',
  businessAccountId: '2002',
  appId: '3003',
});

describe('WhatsApp Cloud API provider', () => {
  test('sends a template message and reads the health of the number', async () => {
    const p = whatsappProvider(waConfig(), creds());
    const { messageId } = await p.sendTemplate('5511999990000', { name: 'hello', language: 'pt_BR' });
    expect(messageId).toMatch(/^wamid\./);
    expect(wa.messages.at(-1)).toMatchObject({
      phoneNumberId: '1001',
      to: '5511999990000',
      type: 'template',
    });
    expect(wa.requests.at(-1)?.path).toBe('/v21.0/1001/messages');
    expect(await p.health()).toEqual({ displayPhoneNumber: '+55 11 90000-0000', qualityRating: 'GREEN' });
  });

  test('templates: create, list across pages, delete; media handle by resumable upload', async () => {
    const p = whatsappProvider(waConfig(), creds());
    for (let i = 0; i < 3; i++) {
      const created = await p.createTemplate({
        name: `promo_${i}`,
        language: 'en_US',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Hi {{1}}' }],
      });
      expect(created.status).toBe('PENDING');
    }
    expect((await p.listTemplates()).map((t) => t.name)).toEqual(['promo_0', 'promo_1', 'promo_2']);
    await p.deleteTemplate('promo_1');
    expect(wa.templates.size).toBe(2);
    const handle = await p.uploadMediaHandle({
      filename: 'a.png',
      mimeType: 'image/png',
      bytes: Buffer.alloc(100, 1),
    });
    expect(handle).toMatch(/^4::/);
  });

  test('a wrong token and provider errors become ProviderError with the Graph message', async () => {
    const bad = whatsappProvider(waConfig(), { ...creds(), accessToken: 'nope' });
    const err = await bad.health().catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({
      provider: 'whatsapp',
      status: 401,
      permanent: true,
      message: 'Invalid OAuth access token.',
    });
    wa.failNext(1, 503);
    const transient = await whatsappProvider(waConfig(), creds())
      .sendText('551199', 'x')
      .catch((e) => e);
    expect(transient).toMatchObject({ status: 503, permanent: false });
  });

  test('a provider that does not answer in time is a retryable ProviderError', async () => {
    wa.setDelay(500);
    const p = whatsappProvider(
      testConfig({ CRM_WHATSAPP_API_URL: wa.url, CRM_PROVIDER_TIMEOUT_MS: 100 }),
      creds(),
    );
    const err = await p.sendText('551199', 'x').catch((e) => e);
    wa.setDelay(0);
    expect(err).toMatchObject({ provider: 'whatsapp', status: 0, permanent: false, outcomeUnknown: true });
    expect(err.message).toMatch(/no answer within 100 ms/);
  });

  test('a refused connection proves nothing was sent; a connection lost after the request leaves the outcome unknown', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await whatsappProvider(
      testConfig({ CRM_WHATSAPP_API_URL: `http://127.0.0.1:${port}` }),
      creds(),
    )
      .sendText('551199', 'x')
      .catch((e) => e);
    expect(refused).toBeInstanceOf(ProviderError);
    expect(refused).toMatchObject({ status: 0, permanent: false, outcomeUnknown: false });
    expect(refused.message).toMatch(/unreachable \(connect ECONNREFUSED/);

    // Counted and dropped for this number only (the timeout test's late answer to 551199 may still arrive).
    wa.dropNext(1, '551198');
    const lost = await whatsappProvider(waConfig(), creds())
      .sendText('551198', 'y')
      .catch((e) => e);
    // The peer took it: a sender that asked again would deliver it twice.
    expect(wa.messages.filter((m) => m.to === '551198')).toHaveLength(1);
    expect(lost).toMatchObject({ status: 0, permanent: false, outcomeUnknown: true });
    expect(lost.message).toMatch(/connection lost before an answer \(other side closed\)/);

    // A redirect is the provider's answer, not followed: its target refusing the connection proves nothing.
    const redirecting = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: `http://127.0.0.1:${port}/v21.0/1001/messages` }).end();
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    const moved = await whatsappProvider(
      testConfig({
        CRM_WHATSAPP_API_URL: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`,
      }),
      creds(),
    )
      .sendText('551197', 'z')
      .catch((e) => e);
    await new Promise((r) => redirecting.close(r));
    expect(moved).toMatchObject({ status: 307, permanent: true, outcomeUnknown: false });
  });
});

describe('WhatsApp media download: the guarded fetch, the token never follows to another origin', () => {
  const token = 'wa-media-token';
  const mediaBytes = Buffer.from('the picture bytes');
  let graph: Server;
  let other: Server;
  let graphUrl: string;
  let otherUrl: string;
  const seen: { server: string; path: string; authorization?: string }[] = [];
  const listen = async (s: Server) => {
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  };
  beforeAll(async () => {
    // The Graph API: media metadata whose URL is on the same server, which redirects as the test needs.
    graph = createServer((req, res) => {
      const path = req.url ?? '';
      seen.push({ server: 'graph', path, authorization: req.headers.authorization });
      const meta = (url: string, size = mediaBytes.length) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ url, mime_type: 'image/jpeg', file_size: size }));
      const media = /^\/v21\.0\/(\w+)$/.exec(path)?.[1];
      if (media === 'internal') return meta('http://10.0.0.1/media');
      if (media === 'understated') return meta(`${otherUrl}/file`, 1);
      if (media) return meta(`${graphUrl}/media/${media}`);
      const redirect = (location: string) => res.writeHead(302, { location }).end();
      if (path === '/media/elsewhere') return redirect(`${otherUrl}/file`);
      if (path === '/media/same') return redirect(`${graphUrl}/file`);
      if (path === '/media/metadata') return redirect('http://169.254.169.254/latest/meta-data/');
      if (path === '/file' && req.headers.authorization === `Bearer ${token}`)
        return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(mediaBytes);
      res.writeHead(404).end();
    });
    // Another origin (another port): it answers the bytes to anyone, and records what it was sent.
    other = createServer((req, res) => {
      seen.push({ server: 'other', path: req.url ?? '', authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(mediaBytes);
    });
    [graphUrl, otherUrl] = await Promise.all([listen(graph), listen(other)]);
  });
  afterAll(async () => {
    await Promise.all([graph, other].map((s) => new Promise((r) => s.close(r))));
  });
  const provider = (allowlist: string | undefined) =>
    whatsappProvider(testConfig({ CRM_WHATSAPP_API_URL: graphUrl, CRM_OUTBOUND_ALLOWLIST: allowlist }), {
      ...creds(),
      accessToken: token,
    });

  test('a redirect to another origin is followed without the bearer token', async () => {
    seen.length = 0;
    const file = await provider('127.0.0.1').downloadMedia('elsewhere', 1024);
    expect(file.bytes.equals(mediaBytes)).toBe(true);
    expect(seen).toEqual([
      { server: 'graph', path: '/v21.0/elsewhere', authorization: `Bearer ${token}` },
      { server: 'graph', path: '/media/elsewhere', authorization: `Bearer ${token}` },
      { server: 'other', path: '/file', authorization: undefined },
    ]);
  });

  test('a redirect on the same origin keeps it', async () => {
    seen.length = 0;
    const file = await provider('127.0.0.1').downloadMedia('same', 1024);
    expect(file).toMatchObject({ mimeType: 'image/jpeg' });
    expect(seen.map((s) => [s.path, s.authorization])).toEqual([
      ['/v21.0/same', `Bearer ${token}`],
      ['/media/same', `Bearer ${token}`],
      ['/file', `Bearer ${token}`],
    ]);
  });

  test('internal targets are refused: the media URL itself, a redirect to the metadata address', async () => {
    for (const media of ['internal', 'metadata']) {
      const err = await provider('127.0.0.1')
        .downloadMedia(media, 1024)
        .catch((e: unknown) => e);
      expect(err, media).toBeInstanceOf(ProviderError);
      expect((err as ProviderError).message, media).toMatch(/refused/);
    }
    // Without the allowlist even the loopback peer's media URL is internal (the Graph API URL is the operator's).
    const err = await provider(undefined)
      .downloadMedia('same', 1024)
      .catch((e: unknown) => e);
    expect((err as ProviderError).message).toMatch(/media download refused.*127\.0\.0\.1/);
  });

  test('a body larger than the cap fails, announced or not', async () => {
    for (const media of ['elsewhere', 'understated']) {
      const err = await provider('127.0.0.1')
        .downloadMedia(media, 4)
        .catch((e: unknown) => e);
      expect(err, media).toMatchObject({ status: 413, permanent: true });
    }
  });
});

describe('SMS provider (Twilio Messages API shape)', () => {
  test('sends with basic auth and checks the account', async () => {
    const config = testConfig({ CRM_SMS_API_URL: tw.url });
    const p = smsProvider(config, '+15550001111', { accountSid: tw.accountSid, authToken: tw.authToken });
    const res = await p.send('+5511999990000', 'Hello');
    expect(res.messageId).toMatch(/^SM/);
    expect(tw.messages.at(-1)).toMatchObject({ to: '+5511999990000', from: '+15550001111', body: 'Hello' });
    expect(await p.health()).toEqual({ status: 'active' });
    const wrong = smsProvider(config, '+1555', { accountSid: tw.accountSid, authToken: 'bad' });
    expect(await wrong.health().catch((e) => e)).toMatchObject({
      status: 401,
      message: 'Authenticate',
      code: 20003,
    });
    expect(await p.send('12', 'x').catch((e) => e)).toMatchObject({
      status: 400,
      code: 21211,
      permanent: true,
    });
  });
});

describe('SMTP provider', () => {
  test("a channel's SMTP URL delivers with the given headers; a private host is refused unless allow-listed", async () => {
    const allowed = emailProvider(testConfig({ CRM_OUTBOUND_ALLOWLIST: '127.0.0.1' }), smtp.url);
    await allowed.verify();
    await allowed.send({
      from: 'News <news@example.com>',
      to: 'ana@example.com',
      subject: 'Hi',
      html: '<p>Hi</p>',
      text: 'Hi',
      messageId: '<m1@crm.test>',
      headers: { 'List-Unsubscribe': '<https://x/u>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
    await smtp.waitFor((m) => m.some((x) => x.messageId === '<m1@crm.test>'));
    expect(smtp.received.at(-1)?.raw).toMatch(/List-Unsubscribe-Post: List-Unsubscribe=One-Click/);
    const refused = emailProvider(
      testConfig({ CRM_OUTBOUND_ALLOWLIST: undefined }),
      smtp.url.replace('127.0.0.1', '127.0.0.2'),
    );
    expect(await refused.verify().catch((e) => e)).toMatchObject({ provider: 'email', permanent: true });
  });

  const mail = (id: string) => ({
    from: 'news@example.com',
    to: 'ana@example.com',
    subject: 'Hi',
    html: '<p>Hi</p>',
    text: 'Hi',
    messageId: `<${id}@crm.test>`,
  });

  test('a refused connection or a server that never greets sent nothing: retryable, outcome known', async () => {
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = emailProvider(testConfig({ SMTP_URL: `smtp://127.0.0.1:${port}` }));
    expect(await refused.send(mail('refused')).catch((e) => e)).toMatchObject({
      provider: 'email',
      status: 0,
      permanent: false,
      outcomeUnknown: false,
    });

    const mute = createNetServer(() => {});
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    try {
      const silent = emailProvider(
        testConfig({
          SMTP_URL: `smtp://127.0.0.1:${(mute.address() as AddressInfo).port}`,
          CRM_PROVIDER_TIMEOUT_MS: 300,
        }),
      );
      expect(await silent.send(mail('no-greeting')).catch((e) => e)).toMatchObject({
        provider: 'email',
        status: 0,
        permanent: false,
        code: 'ETIMEDOUT',
        outcomeUnknown: false,
      });
    } finally {
      mute.close();
    }
  });

  test('a connection dropped, or never answered, after the message data went out: outcome unknown', async () => {
    const server = await startSmtp();
    try {
      const p = emailProvider(testConfig({ SMTP_URL: server.url, CRM_PROVIDER_TIMEOUT_MS: 300 }));
      server.dropAfterData(1);
      expect(await p.send(mail('dropped')).catch((e) => e)).toMatchObject({
        provider: 'email',
        status: 0,
        permanent: false,
        outcomeUnknown: true,
      });
      server.silenceAfterData(1);
      expect(await p.send(mail('unanswered')).catch((e) => e)).toMatchObject({
        provider: 'email',
        status: 0,
        code: 'ETIMEDOUT',
        outcomeUnknown: true,
      });
      // Both reached the server: sending them again would deliver them twice.
      expect(server.received.map((m) => m.messageId)).toEqual([
        '<dropped@crm.test>',
        '<unanswered@crm.test>',
      ]);
      await p.send(mail('after'));
      expect(server.received.at(-1)?.messageId).toBe('<after@crm.test>');
    } finally {
      await server.close();
    }
  });
});

describe('outbound rules', () => {
  test("a channel's SMTP host must resolve to a public address unless allow-listed", async () => {
    await expect(resolvePublicHost('localhost', new Set())).rejects.toThrow(/refused/);
    await expect(resolvePublicHost('169.254.169.254', new Set())).rejects.toThrow(/refused/);
    expect(await resolvePublicHost('127.0.0.1', new Set(['127.0.0.1']))).toBe('127.0.0.1');
  });
});
