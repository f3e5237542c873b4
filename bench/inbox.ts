/**
 * Inbox speed (issue 15): inbound webhook ingestion and the read paths, over real HTTP on 127.0.0.1, on the
 * embedded database (or DATABASE_URL).
 *  1. ingestion: signed WhatsApp webhooks (2 messages each, 200 senders) posted by 10 concurrent clients →
 *     messages/s sustained and p99 to acknowledge (target ≥ 500 messages/s, p99 < 1 s);
 *  2. seeds --conversations (default 10,000) and --messages (default 1,000,000) by SQL, then 10 concurrent
 *     clients read the conversation list (page 1, 25) and a random conversation's message page (20) →
 *     p50/p99 (target p99 < 50 ms at 10 connections on PostgreSQL).
 *
 * On PostgreSQL the service runs as its own process (`bin/crm.js serve`, like bench/run.ts), the load generator
 * here; `--in-process` serves from this process instead and counts statements per message at the driver.
 *
 *   npx tsx bench/inbox.ts [--posts 1000] [--conversations 10000] [--messages 1000000] [--reads 2000]
 *                          [--in-process] [--port 18338]
 */
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { modules } from '../src/modules.js';
import { type Database, openDatabase, queryRows } from '../src/platform/db/client.js';
import { migrateDatabase } from '../src/platform/db/migrate.js';
import { startWhatsAppPeer, type WhatsAppPeer } from '../test/helpers/peers/whatsapp.js';
import {
  loadAverage,
  numberFlag,
  parseFlags,
  postgresCpuMs,
  processCpuMs,
  startServiceProcess,
  statementMeter,
  stopService,
} from './lib.js';

const flags = parseFlags(process.argv.slice(2));
const POSTS = numberFlag(flags, 'posts', 1000);
const CONVERSATIONS = numberFlag(flags, 'conversations', 10_000);
const MESSAGES = numberFlag(flags, 'messages', 1_000_000);
const READS = numberFlag(flags, 'reads', 2000);
const CONCURRENCY = 10;
const PORT = numberFlag(flags, 'port', 18_338);

const ms = (n: number) => `${n.toFixed(1)} ms`;

/**
 * PostgreSQL: the service in its own process (as deployed; the load generator and the webhooks' signing do
 * not share its event loop), unless --in-process (then the statements per message are counted at the driver).
 * PGlite: in this process (the seeding below needs the same embedded database).
 */
async function startInboxService(wa: WhatsAppPeer) {
  const inProcess = flags['in-process'] === true || !process.env.DATABASE_URL;
  const env = { CRM_WHATSAPP_API_URL: wa.url, RATE_LIMIT_ENABLED: 'false', PUBLIC_URL: 'http://crm.test' };
  const child = inProcess
    ? undefined
    : await startServiceProcess(PORT, { ...env, CRM_LOG_LEVEL: process.env.BENCH_LOG ?? 'warn' });
  const db = await openDatabase({
    databaseUrl: process.env.DATABASE_URL,
    dataDir: 'memory://',
    poolSize: 20,
  });
  let base = `http://127.0.0.1:${PORT}`;
  let closeApp = async () => {};
  if (!child) {
    await migrateDatabase(db, modules);
    const config = loadConfig(
      {
        ...process.env,
        CRM_LOG_LEVEL: process.env.BENCH_LOG ?? 'silent',
        CRM_DATA_DIR: `/tmp/crm-bench-inbox-${process.pid}`,
      },
      { ...env, RATE_LIMIT_ENABLED: false },
    );
    const app = await buildApp({ config, db });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    closeApp = () => app.close();
  }
  /** The service's CPU ms so far: the child's from /proc, or this process's (which then includes the clients). */
  const serviceCpuMs = () => {
    if (child) return processCpuMs(child.pid) ?? 0;
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  return { db, child, base, closeApp, serviceCpuMs };
}

type InboxService = Awaited<ReturnType<typeof startInboxService>>;

/** A JSON request to the service at `base`: the answer's body; an error status throws. */
function jsonCaller(base: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}/api${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** A fresh user and organization `slug` with a WhatsApp channel on a board: its headers and the channel. */
async function setUpInbox(base: string, wa: WhatsAppPeer, slug: string) {
  const call = jsonCaller(base);
  const reg = await call('POST', '/auth/local/register', {
    username: slug,
    email: `${slug}@x.test`,
    password: 'correct-horse-battery',
  });
  const auth = { authorization: `Bearer ${reg.jwt}` };
  await call('POST', '/organizations', { data: { name: 'Bench', slug } }, auth);
  const h = { ...auth, 'x-tenant-id': slug };
  const channel = await call(
    'POST',
    '/chat-channels',
    {
      data: {
        name: 'WA',
        type: 'whatsapp',
        settings: { phoneNumberId: '1', businessAccountId: '2' },
        credentials: { accessToken: wa.accessToken, appSecret: 'bench-secret', verifyToken: 'v' },
      },
    },
    h,
  );
  const board = await call('POST', '/boards', { data: { name: 'Chats' } }, h);
  await call(
    'PUT',
    `/boards/${board.documentId}/chat-channels`,
    { data: { channels: [channel.documentId] } },
    h,
  );
  return { h, channelId: channel.documentId as string };
}

/** What an ingestion phase sends to and measures. */
interface Ingestion {
  service: InboxService;
  wa: WhatsAppPeer;
  channelId: string;
  meter: ReturnType<typeof statementMeter>;
}

// Every payload is built and signed before its phase starts, and autocannon sends them (10 connections): the
// load generator's own CPU stays a fraction of the service's, as in bench/run.ts.
async function ingestionPhase(
  { service, wa, channelId, meter }: Ingestion,
  label: string,
  posts: number,
  messages: (i: number) => { from: string; text: string }[],
) {
  const { db, child, base, serviceCpuMs } = service;
  const payloads = Array.from({ length: posts }, (_, i) =>
    wa.messagesWebhook('bench-secret', '1', messages(i)),
  );
  const load = loadAverage();
  meter.start();
  const cpu0 = serviceCpuMs();
  let next = 0;
  const r = await autocannon({
    url: base,
    connections: CONCURRENCY,
    amount: posts,
    requests: [
      {
        method: 'POST',
        path: `/api/webhooks/whatsapp/${channelId}`,
        setupRequest: (req) => {
          const p = payloads[next++ % payloads.length];
          return { ...req, headers: p.headers, body: p.body };
        },
      },
    ],
  });
  const m = meter.stop();
  if (r.non2xx + r.errors > 0) throw new Error(`webhook: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  const cpuMs = serviceCpuMs() - cpu0;
  const n = posts * messages(0).length;
  const counted = db.kind === 'postgres' && !child;
  console.log(
    `ingestion, ${label} (${db.kind}, ${child ? 'service process' : 'in process'}, load ${load}): ${n} messages in ${(m.wallMs / 1000).toFixed(1)} s = ${(n / (m.wallMs / 1000)).toFixed(0)} messages/s; ack p50 ${ms(r.latency.p50)}, p99 ${ms(r.latency.p99)}; ${counted ? `${(m.statements / n).toFixed(1)} statements/message, ` : ''}${(cpuMs / n).toFixed(2)} ms CPU/message (${child ? 'the service' : 'this process, clients included'})`,
  );
}

// 1. Ingestion: first messages from 200 new numbers (conversation, contact and card each), then --posts
// payloads to the known conversations. Statements (PostgreSQL round trips) and this process's CPU per message
// do not depend on the machine's load; messages/s and the ack latencies do.
async function measureIngestion(service: InboxService, wa: WhatsAppPeer, channelId: string) {
  const senders = Array.from({ length: 200 }, (_, i) => `55119${String(10_000_000 + i)}`);
  const ingestion = { service, wa, channelId, meter: statementMeter() };
  await ingestionPhase(ingestion, 'new numbers', senders.length / 2, (i) => [
    { from: senders[2 * i], text: `first ${i}` },
    { from: senders[2 * i + 1], text: `first ${i}` },
  ]);
  await ingestionPhase(ingestion, 'known conversations', POSTS, (i) => [
    { from: senders[i % senders.length], text: `hello ${i}` },
    { from: senders[(i * 7) % senders.length], text: `again ${i}` },
  ]);
}

// 2. Seed by SQL (the reads are measured, not the seeding): the conversations' ids, in order.
async function seedConversations(db: Database, slug: string) {
  const [{ orgId, inboxId }] = await queryRows<{ orgId: number; inboxId: number }>(
    db.system,
    sql`select i.organization_id as "orgId", i.id as "inboxId" from chat_inboxes i
        join organizations o on o.id = i.organization_id where o.slug = ${slug}`,
  );
  const t0 = performance.now();
  await db.system.execute(sql`insert into conversations (organization_id, inbox_id, wa_id, status, unread_count, last_message_at, last_incoming_at, last_message_preview)
    select ${orgId}, ${inboxId}, '5521' || lpad(g::text, 9, '0'), (array['open','pending','resolved','snoozed'])[1 + g % 4],
           g % 3, now() - (g || ' minutes')::interval, now() - (g || ' minutes')::interval, 'message ' || g
    from generate_series(1, ${CONVERSATIONS}) g`);
  const convIds = (
    await queryRows<{ id: number }>(
      db.system,
      sql`select id from conversations where organization_id = ${orgId} order by id`,
    )
  ).map((r) => r.id);
  // Conversation ids have gaps (a lost ON CONFLICT race still takes an identity value): pick from the list.
  for (let done = 0; done < MESSAGES; done += 100_000) {
    const n = Math.min(100_000, MESSAGES - done);
    await db.system.execute(sql`insert into chat_messages (organization_id, conversation_id, direction, content, content_type, status, provider_message_id, created_at)
      select ${orgId}, (${sql.raw(`'{${convIds.join(',')}}'`)}::bigint[])[1 + g % ${convIds.length}], case when g % 2 = 0 then 'incoming' else 'outgoing' end,
             'message body ' || g, 'text', 'delivered', 'wamid.seed.' || ${done} || '.' || g, now() - (g || ' seconds')::interval
      from generate_series(1, ${n}) g`);
  }
  // As bench/run.ts: VACUUM ANALYZE before measuring (the server here has autovacuum off; the service's own
  // maintenance vacuums `conversations` every CRM_DB_MAINTENANCE_SECONDS in that case, docs/postgresql.md).
  await db.system.execute(sql`vacuum analyze conversations`);
  await db.system.execute(sql`vacuum analyze chat_messages`);
  console.log(
    `seeded ${CONVERSATIONS} conversations and ${MESSAGES} messages in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  return convIds;
}

// 3. Reads at 10 connections, by autocannon (as bench/run.ts: a load generator whose own CPU per request is a
// fraction of fetch's, so on these two shared cores the figures are the service's and the database's), each
// path after a warm-up of its own (JIT, plan and buffer caches). The clients ask for br/gzip like a browser.
async function readPhase(
  { base, child, serviceCpuMs }: InboxService,
  h: Record<string, string>,
  label: string,
  path: (i: number) => string,
) {
  let i = 0;
  const run = (amount: number) =>
    autocannon({
      url: base,
      connections: CONCURRENCY,
      amount,
      requests: [
        {
          method: 'GET',
          headers: { ...h, 'accept-encoding': 'br, gzip' },
          setupRequest: (req) => ({ ...req, path: `/api${path(i++)}` }),
        },
      ],
    });
  await run(Math.min(300, READS));
  const cpu0 = serviceCpuMs();
  const db0 = child ? postgresCpuMs() : 0;
  const r = await run(READS);
  const bad = r.non2xx + r.errors;
  const cpu = `service ${((serviceCpuMs() - cpu0) / READS).toFixed(2)} ms${child ? `, database ${((postgresCpuMs() - db0) / READS).toFixed(2)} ms` : ''}`;
  console.log(
    `${label}: p50 ${ms(r.latency.p50)}, p99 ${ms(r.latency.p99)}, ${r.requests.average.toFixed(0)} req/s (${READS} requests${bad ? `, ${bad} failed` : ''}); CPU per request: ${cpu}`,
  );
}

async function main() {
  const wa = await startWhatsAppPeer();
  const service = await startInboxService(wa);
  const slug = `bench-inbox-${process.pid}`;
  const { h, channelId } = await setUpInbox(service.base, wa, slug);
  await measureIngestion(service, wa, channelId);
  const convIds = await seedConversations(service.db, slug);
  await readPhase(service, h, 'conversation list', () => '/conversations?pageSize=25');
  await readPhase(
    service,
    h,
    'message page',
    (i) => `/conversations/${convIds[(i * 7919) % convIds.length]}/messages?limit=20`,
  );
  await service.closeApp();
  if (service.child) await stopService(service.child);
  await service.db.close();
  await wa.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
