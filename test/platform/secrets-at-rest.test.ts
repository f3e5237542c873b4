import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { dispatchOrganization } from '../../src/events.js';
import { runDue } from '../../src/modules/automations/runner.js';
import { sendDue } from '../../src/modules/conversion-pixels/delivery.js';
import { deliverDue } from '../../src/modules/webhooks/delivery.js';
import { type Database, queryRows } from '../../src/platform/db/client.js';
import type { Jobs } from '../../src/platform/jobs/jobs.js';
import { type MailJob, openMail } from '../../src/platform/mail/mailer.js';
import { secretBox } from '../../src/platform/secrets/encryption.js';
import { createBackground } from '../../src/workers.js';
import { type Api, getApp, invitationLink, newTenant, testConfig } from '../helpers/app.js';
import { type ConversionsPeer, startConversionsPeer } from '../helpers/peers/conversions.js';
import { type LeadAdsPeer, startLeadAdsPeer } from '../helpers/peers/lead-ads.js';
import { type Radicale, radicaleMissing, startRadicale } from '../helpers/peers/radicale.js';
import { startTwilioPeer, type TwilioPeer } from '../helpers/peers/twilio.js';
import { startWhatsAppPeer, type WhatsAppPeer } from '../helpers/peers/whatsapp.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { receiver } from '../modules/automations/helpers.js';
import { createPipeline } from '../modules/cards/factory.js';
import { oauth } from '../modules/lead-ads/helpers.js';

/**
 * Issue 30, item 1: a secret shown once (or written once) is never stored in clear, anywhere. Every
 * secret-bearing object is made with and without `Idempotency-Key` (the keyed request sent twice: the replay
 * must answer the same secret), the background work that uses them runs (automation runs, webhook deliveries,
 * conversions, channel health), then every text, varchar, char, json, jsonb, array and bytea column of every
 * table in every schema of the database (public, pgboss, drizzle…; the list comes from information_schema) is
 * searched for each secret, its base64, base64url and hex forms (bytea: its bytes): none may be found. The
 * request log of the app is searched too.
 */
const caldavSkip = radicaleMissing();
const rand = (p: string) => `${p}${randomBytes(18).toString('hex')}`;

interface World {
  app: FastifyInstance;
  db: Database;
  config: Config;
  wa: WhatsAppPeer;
  tw: TwilioPeer;
  smtp: TestSmtp;
  leads: LeadAdsPeer;
  conv: ConversionsPeer;
  radicale?: Radicale;
  hook: Awaited<ReturnType<typeof receiver>>;
  logs: string[];
  jobs?: Jobs;
  close(): Promise<void>;
}

let w: World;

beforeAll(async () => {
  const [wa, tw, smtp, leads, conv, hook] = await Promise.all([
    startWhatsAppPeer({ accessToken: rand('wa_') }),
    startTwilioPeer(),
    startSmtp(),
    startLeadAdsPeer({ appSecret: rand('las_') }),
    startConversionsPeer(),
    receiver(),
  ]);
  const radicale = caldavSkip ? undefined : await startRadicale();
  const { db } = await getApp();
  const config = testConfig({
    CRM_WHATSAPP_API_URL: wa.url,
    CRM_SMS_API_URL: tw.url,
    SMTP_URL: smtp.url,
    CRM_OUTBOUND_ALLOWLIST: '127.0.0.1',
    CRM_PROVIDER_TIMEOUT_MS: 3000,
    CRM_LEAD_ADS_API_URL: leads.url,
    CRM_LEAD_ADS_OAUTH_URL: leads.oauthUrl,
    CRM_LEAD_ADS_APP_ID: leads.appId,
    CRM_LEAD_ADS_APP_SECRET: leads.appSecret,
    CRM_LEAD_ADS_VERIFY_TOKEN: rand('verify_'),
    CRM_CONVERSIONS_API_URL: conv.url,
    PUBLIC_URL: 'http://crm.test',
  });
  const logs: string[] = [];
  const app = await buildApp({
    config,
    db,
    logger: { level: 'debug', stream: { write: (s: string) => logs.push(s) } },
  });
  await app.ready();
  w = {
    app,
    db,
    config,
    wa,
    tw,
    smtp,
    leads,
    conv,
    radicale,
    hook,
    logs,
    async close() {
      await app.close();
      await w.jobs?.stop();
      await Promise.all([
        wa.close(),
        tw.close(),
        smtp.close(),
        leads.close(),
        conv.close(),
        hook.close(),
        radicale?.stop(),
      ]);
    },
  };
});
afterAll(async () => w?.close());

/** secret → where it came from. */
type Secrets = Map<string, string>;

/**
 * A POST that creates a secret-bearing object: sent once, or (keyed) twice with the same key, the second
 * answered from the replay record with exactly the first answer (the same secret).
 */
function poster(api: Api, key: string | undefined) {
  let n = 0;
  return async (path: string, body: unknown, status = 201) => {
    if (!key) {
      const res = await api.post(path, body);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(status);
      return res.body;
    }
    const headers = { 'idempotency-key': `${key}-${++n}` };
    const first = await api.post(path, body, headers);
    expect(first.status, `${path}: ${JSON.stringify(first.body)}`).toBe(status);
    const again = await api.post(path, body, headers);
    // Soft: a replay that differs is reported with everything the search below finds.
    expect.soft(again.status, `${path} (replay)`).toBe(status);
    expect.soft(again.headers['idempotent-replayed'], `${path} (replay)`).toBe('true');
    expect.soft(again.body, `${path} (replay)`).toEqual(first.body);
    return first.body;
  };
}

/** Every secret-bearing object of one organization; records each secret it gives or is given. */
async function createEverything(secrets: Secrets, key: string | undefined) {
  const tag = key ? 'keyed' : 'plain';
  const t = await newTenant(w.app);
  const post = poster(t.api, key);
  const userPost = poster(t.userApi, key && `${key}-user`);
  const add = (label: string, value: string) => {
    secrets.set(value, `${tag}: ${label}`);
    return value;
  };

  // API token (shown once).
  const token = await userPost('/users/generate-token', { expiration: '1d', name: 'ci' });
  add('API token', token.token);

  // Invitation link (e-mailed once; only its hash is stored, the queued mail's body is sealed).
  const invitee = `invitee-${tag}-${randomBytes(4).toString('hex')}@example.test`;
  await post('/memberships', { data: { email: invitee, role: 'member' } }, 202);
  const [mail] = await queryRows<{ data: MailJob }>(
    w.db.system,
    sql`select data from pgboss.job where data->>'to' = ${invitee} and data->>'subject' like 'Invitation to join %'`,
  );
  add('invitation token', invitationLink(await openMail(mail.data, () => secretBox(w.config, w.db))).token);

  // Password reset code (e-mailed once; only its hash is stored, the queued mail's body is sealed).
  const forgot = await w.app.inject({
    method: 'POST',
    url: '/api/auth/forgot-password',
    payload: { email: t.user.email },
  });
  expect(forgot.statusCode, forgot.body).toBe(200);
  const [resetMail] = await queryRows<{ data: MailJob }>(
    w.db.system,
    sql`select data from pgboss.job where data->>'to' = ${t.user.email} and data->>'subject' like '%password%'`,
  );
  const resetText = (await openMail(resetMail.data, () => secretBox(w.config, w.db))).text;
  add('password reset code', /code=(crm_pwr_\w+)/.exec(resetText)![1]);

  // Webhook subscription secret (shown once).
  const sub = await post('/webhook-subscriptions', {
    data: { url: `${w.hook.url}/webhook`, events: ['card.created'] },
  });
  expect(sub.secret).toMatch(/^whsec_/);
  add('webhook subscription secret', sub.secret);

  // Channel credentials: WhatsApp (the plain one with the peer's token, used by the health check below).
  const waToken = key ? add('WhatsApp access token', rand('EAAw')) : w.wa.accessToken;
  secrets.set(w.wa.accessToken, 'WhatsApp access token (peer)');
  const wa = await post('/chat-channels', {
    data: {
      name: `WA ${tag}`,
      type: 'whatsapp',
      settings: { phoneNumberId: '1001', businessAccountId: '2002', appId: '3003' },
      credentials: {
        accessToken: waToken,
        appSecret: add('WhatsApp app secret', rand('was_')),
        verifyToken: add('WhatsApp verify token', rand('wav_')),
      },
    },
  });
  // SMS: the auth token.
  const smsToken = key ? add('SMS auth token', rand('')) : w.tw.authToken;
  secrets.set(w.tw.authToken, 'SMS auth token (peer)');
  const sms = await post('/chat-channels', {
    data: {
      name: `SMS ${tag}`,
      type: 'sms',
      settings: { from: '+15550001111' },
      credentials: { accountSid: w.tw.accountSid, authToken: smsToken },
    },
  });
  // E-mail: the SMTP password inside smtpUrl, and the webhookSecret (generated and shown once; or given).
  const smtpPassword = add('SMTP password', rand('smtppw'));
  const email = await post('/chat-channels', {
    data: {
      name: `Mail ${tag}`,
      type: 'email',
      settings: { fromName: 'Acme', fromAddress: 'news@acme.test' },
      credentials: { smtpUrl: `smtp://mailer:${smtpPassword}@127.0.0.1:2525` },
    },
  });
  add('e-mail channel webhookSecret', email.webhookSecret);
  const given = await post('/chat-channels', {
    data: {
      name: `Mail given ${tag}`,
      type: 'email',
      settings: { fromName: 'Acme', fromAddress: 'sales@acme.test' },
      credentials: { webhookSecret: add('e-mail channel webhookSecret (given)', rand('ews')) },
    },
  });
  for (const c of [wa, sms, email, given]) expect(c.hasCredentials).toBe(true);

  // CalDAV password.
  if (w.radicale) {
    const user = await w.radicale.addUser();
    secrets.set(user.password, `${tag}: CalDAV password`);
    await post('/calendar-connections', {
      data: { provider: 'caldav', url: w.radicale.url, username: user.username, password: user.password },
    });
  }

  // Lead ads: the OAuth flow (short-lived, long-lived and page tokens; the peer lists what it issued).
  const pageId = `p${randomBytes(6).toString('hex')}`;
  const userId = w.leads.addUser([{ id: pageId, name: 'Page', forms: [{ id: `f${pageId}` }] }]);
  if (key) {
    const start = await post(
      '/lead-ads/oauth/start',
      { data: { redirectUri: 'https://app.example/cb' } },
      200,
    );
    const { code, state } = w.leads.authorize(start.authorizationUrl, userId);
    await post('/lead-ads/oauth/complete', { data: { code, state } }, 200);
  } else {
    await oauth({ peer: w.leads } as never, t.api, userId);
  }

  // Automation: http_request headers (write-only) and its signing secret (shown once).
  const pipeline = await createPipeline(t.api);
  const boardId = pipeline.board.documentId;
  const automation = await post('/automations', {
    data: {
      name: `Notify ${tag}`,
      board: boardId,
      trigger: { event: 'card.created' },
      actions: [
        {
          type: 'http_request',
          params: {
            url: `${w.hook.url}/automation`,
            headers: {
              Authorization: `Bearer ${add('http_request Authorization header', rand('hdr'))}`,
              'X-Api-Key': add('http_request X-Api-Key header', rand('key')),
            },
          },
        },
      ],
    },
  });
  expect(automation.secret).toMatch(/^whsec_/);
  add('automation signing secret', automation.secret);

  // Conversion pixel access token (write-only); the plain one is the peer's, verified below.
  const pixelToken = key ? add('pixel access token', rand('EAAB')) : w.conv.accessToken;
  secrets.set(w.conv.accessToken, 'pixel access token (peer)');
  const pixel = await post('/conversion-pixels', {
    data: {
      name: `Pixel ${tag}`,
      pixelId: '1234567890',
      accessToken: pixelToken,
      board: boardId,
      trigger: 'won',
    },
  });

  // What uses them: a card (webhook delivery, automation http_request), pixel verification, channel health.
  const card = await t.api.post(`/boards/${boardId}/cards`, {
    data: { title: 'Acme deal', fields: { name: 'Ana', email: 'ana@acme.test' } },
  });
  expect(card.status, JSON.stringify(card.body)).toBe(201);
  if (!key) {
    const verified = await t.api.post(`/conversion-pixels/${pixel.documentId}/verify`, {});
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect((await t.api.get(`/chat-channels/${wa.documentId}/health`)).body.status).toBe('ok');
    expect((await t.api.get(`/chat-channels/${sms.documentId}/health`)).body.status).toBe('ok');
  }
  const [org] = await queryRows<{ id: number }>(
    w.db.system,
    sql`select id from organizations where slug = ${t.slug}`,
  );
  return Number(org.id);
}

/** Every column of a type that can hold text or bytes, in every schema but the catalogs. */
async function searchableColumns(db: Database) {
  return queryRows<{ table_schema: string; table_name: string; column_name: string; kind: string }>(
    db.system,
    sql`select c.table_schema, c.table_name, c.column_name,
          case when c.data_type = 'bytea' then 'bytea' else 'text' end as kind
        from information_schema.columns c
        join information_schema.tables t
          on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
        where c.table_schema not in ('pg_catalog', 'information_schema')
          and c.table_schema not like 'pg\\_toast%' and c.table_schema not like 'pg\\_temp%'
          and (c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'xml')
               or (c.data_type = 'ARRAY' and c.udt_name in ('_text', '_varchar', '_bpchar', '_json', '_jsonb'))
               or (c.data_type = 'USER-DEFINED' and c.udt_name = 'citext'))
        order by 1, 2, 3`,
  );
}

const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** Each secret in the forms it could be stored in: as is, base64, base64url, hex, JSON-escaped. */
function forms(secrets: Secrets) {
  const out = new Map<string, string>();
  for (const [secret, label] of secrets) {
    const bytes = Buffer.from(secret, 'utf8');
    out.set(secret, label);
    out.set(bytes.toString('base64').replace(/=+$/, ''), `${label} (base64)`);
    out.set(bytes.toString('base64url'), `${label} (base64url)`);
    out.set(bytes.toString('hex'), `${label} (hex)`);
  }
  return out;
}

async function searchDatabase(db: Database, secrets: Secrets) {
  const needles = forms(secrets);
  const list = [...needles.keys()];
  const columns = await searchableColumns(db);
  expect(columns.length).toBeGreaterThan(50);
  const schemas = new Set(columns.map((c) => c.table_schema));
  expect(schemas.has('public')).toBe(true);
  expect(schemas.has('pgboss')).toBe(true);
  const found: string[] = [];
  for (const c of columns) {
    const col = `${ident(c.table_schema)}.${ident(c.table_name)}`;
    const value =
      c.kind === 'bytea'
        ? `position(convert_to(n, 'UTF8') in t.${ident(c.column_name)}) > 0`
        : `strpos(t.${ident(c.column_name)}::text, n) > 0`;
    const rows = await queryRows<{ n: string }>(
      db.system,
      sql`select n from jsonb_array_elements_text(${JSON.stringify(list)}::jsonb) n
          where exists (select 1 from ${sql.raw(col)} t where ${sql.raw(value)})`,
    );
    for (const r of rows)
      found.push(`${c.table_schema}.${c.table_name}.${c.column_name}: ${needles.get(r.n)}`);
  }
  return { found, columns: columns.length };
}

describe('secrets at rest (issue 30, item 1)', () => {
  test('no table, column or log line holds a secret in clear, with or without Idempotency-Key', async () => {
    const secrets: Secrets = new Map();
    const orgIds = [
      await createEverything(secrets, undefined),
      await createEverything(secrets, `k-${randomBytes(4).toString('hex')}`),
    ];
    for (const s of w.leads.issuedTokens()) secrets.set(s, 'lead ads token (issued by the provider)');
    // The background work that opens them: events → webhook deliveries, automation runs, conversions.
    const jobs = (await createBackground(w.config, w.db)).jobs;
    w.jobs = jobs;
    await jobs.start({ workers: false });
    for (let round = 0; round < 4; round++) {
      for (const orgId of orgIds) await dispatchOrganization(w.db, orgId);
      await runDue({ db: w.db, config: w.config, jobs }, undefined, new Set(orgIds));
      await deliverDue({ db: w.db, config: w.config });
      await sendDue({ db: w.db, config: w.config }, new Set(orgIds));
    }
    // The deliveries really carried them (so the search below is not vacuous).
    const got = w.hook.got;
    expect(got.filter((r) => r.url === '/webhook').length).toBeGreaterThanOrEqual(2);
    const calls = got.filter((r) => r.url === '/automation');
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const c of calls) {
      expect(secrets.get(String(c.headers['x-api-key']))).toMatch(/X-Api-Key/);
      expect(String(c.headers.authorization)).toMatch(/^Bearer hdr/);
    }
    expect(w.conv.received.length).toBeGreaterThanOrEqual(1);
    expect(secrets.size).toBeGreaterThanOrEqual(caldavSkip ? 24 : 26);

    const { found } = await searchDatabase(w.db, secrets);
    expect(found).toEqual([]);
    expect(w.logs.length).toBeGreaterThan(20);
    const logged = [...forms(secrets).entries()]
      .filter(([s]) => w.logs.some((l) => l.includes(s)))
      .map(([, label]) => label);
    expect(logged).toEqual([]);
  }, 240_000);

  test('the search finds a secret where one is stored (it is not vacuous)', async () => {
    const canary = rand('canary');
    const t = await newTenant(w.app);
    // A contact's name is stored as typed (and copied into events, search text…): the search must see it.
    const contact = await t.api.post('/contacts', { data: { name: canary } });
    expect(contact.status, JSON.stringify(contact.body)).toBe(201);
    const { found } = await searchDatabase(w.db, new Map([[canary, 'canary']]));
    expect(found.length).toBeGreaterThan(0);
  }, 120_000);
});
