import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import type { Database } from '../../src/platform/db/client.js';
import { startJobs, type WorkerDeps } from '../../src/workers.js';
import { type Api, getApp, testConfig } from './app.js';
import { startTwilioPeer, type TwilioPeer } from './peers/twilio.js';
import { startWhatsAppPeer, type WhatsAppPeer } from './peers/whatsapp.js';
import { startSmtp, type TestSmtp } from './smtp.js';

/** An app whose providers point at local peers (WhatsApp, Twilio, SMTP), optionally running the workers. */
export interface MessagingEnv {
  app: FastifyInstance;
  db: Database;
  config: Config;
  wa: WhatsAppPeer;
  tw: TwilioPeer;
  smtp: TestSmtp;
  background?: WorkerDeps;
  close(): Promise<void>;
}

export async function startMessaging(
  opts: { workers?: boolean; config?: Partial<Config> } = {},
): Promise<MessagingEnv> {
  const [wa, tw, smtp] = await Promise.all([startWhatsAppPeer(), startTwilioPeer(), startSmtp()]);
  const { db } = await getApp();
  const config = testConfig({
    CRM_WHATSAPP_API_URL: wa.url,
    CRM_SMS_API_URL: tw.url,
    SMTP_URL: smtp.url,
    CRM_OUTBOUND_ALLOWLIST: '127.0.0.1',
    CRM_PROVIDER_TIMEOUT_MS: 3000,
    CRM_JOBS_POLL_SECONDS: 0.5,
    PUBLIC_URL: 'http://crm.test',
    ...opts.config,
  });
  const background = opts.workers ? await startJobs(config, db, true) : undefined;
  const app = await buildApp({ config, db, background });
  await app.ready();
  return {
    app,
    db,
    config,
    wa,
    tw,
    smtp,
    background,
    async close() {
      await app.close();
      await background?.jobs.stop();
      await Promise.all([wa.close(), tw.close(), smtp.close()]);
    },
  };
}

export async function createWhatsAppChannel(
  api: Api,
  env: MessagingEnv,
  extra: Record<string, unknown> = {},
) {
  const res = await api.post('/chat-channels', {
    data: {
      name: `WA ${Math.random().toString(36).slice(2, 8)}`,
      type: 'whatsapp',
      settings: { phoneNumberId: '1001', businessAccountId: '2002', appId: '3003', ...extra },
      credentials: { accessToken: env.wa.accessToken, appSecret: 'wa-app-secret', verifyToken: 'wa-verify' },
    },
  });
  if (res.status !== 201) throw new Error(`channel create failed: ${JSON.stringify(res.body)}`);
  return res.body as { documentId: string };
}

export async function createEmailChannel(api: Api, extra: Record<string, unknown> = {}) {
  const res = await api.post('/chat-channels', {
    data: {
      name: `Mail ${Math.random().toString(36).slice(2, 8)}`,
      type: 'email',
      settings: { fromName: 'Acme News', fromAddress: 'news@acme.test', ...extra },
    },
  });
  if (res.status !== 201) throw new Error(`channel create failed: ${JSON.stringify(res.body)}`);
  return res.body as { documentId: string; webhookSecret: string };
}

export async function createSmsChannel(api: Api, env: MessagingEnv) {
  const res = await api.post('/chat-channels', {
    data: {
      name: `SMS ${Math.random().toString(36).slice(2, 8)}`,
      type: 'sms',
      settings: { from: '+15550001111' },
      credentials: { accountSid: env.tw.accountSid, authToken: env.tw.authToken },
    },
  });
  if (res.status !== 201) throw new Error(`channel create failed: ${JSON.stringify(res.body)}`);
  return res.body as { documentId: string };
}
