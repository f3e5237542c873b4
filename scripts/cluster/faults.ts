/**
 * Faults under load on the cluster of scripts/cluster/cluster.ts (issue 34 item 4, docs/scaling.md): each scenario
 * prints its counts, and the whole run ends with one table. Loopback only, a few minutes in total.
 *
 *   npx tsx scripts/cluster/faults.ts [--only api-kill,sse,campaign,webhooks,pgbouncer,replica,redis,mcp]
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startWhatsAppPeer, type WhatsAppPeer } from '../../test/helpers/peers/whatsapp.js';
import { alive, type Cluster, killProc, startCluster } from './cluster.js';
import { mcpScenario } from './mcp-scenario.js';
import {
  allCards,
  busiest,
  call,
  countBy,
  loop,
  must,
  openSse,
  ownerOfPort,
  pct,
  type Res,
  type Sse,
  signUp,
  startReceiver,
  tryCall,
  waitUntil,
} from './fault-helpers.js';

const argv = process.argv.slice(2);
const onlyArg = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
const only = onlyArg ? new Set(onlyArg.split(',')) : null;
const want = (name: string) => !only || only.has(name);
const log = (m: string) => console.error(`[faults ${new Date().toISOString().slice(11, 19)}] ${m}`);

interface Row {
  scenario: string;
  load: string;
  outcome: string;
  verdict: 'ok' | 'FAIL' | 'gap';
}
const rows: Row[] = [];

// ---- scenarios

async function apiKill(c: Cluster, h: Record<string, string>) {
  const board = must(await call(c.url, 'POST', '/boards', { data: { name: 'Kill API' } }, h), 201, 'board');
  const acked = new Set<string>();
  const clients = 12;
  let stop = false;
  const victim = c.apis[1]!;
  let killedAt = 0;
  const t0 = performance.now();
  const load = loop(
    clients,
    () => stop,
    async (cl, i) => {
      const r = await tryCall(c.url, 'POST', `/boards/${board.documentId}/cards`, { data: { title: `k-${cl}-${i}` } }, h);
      if (r.status === 201) acked.add(r.body.documentId);
      return r;
    },
  );
  await sleep(4000);
  await killProc(victim);
  killedAt = performance.now() - t0;
  log(`api-kill: kill -9 ${victim.name} (pid ${victim.pid}) at ${(killedAt / 1000).toFixed(1)} s`);
  const down = await waitUntil('HAProxy marks it DOWN', 10_000, async () => {
    const s = await c.serverStates();
    return s[victim.name]?.startsWith('DOWN') ? performance.now() - t0 - killedAt : undefined;
  });
  await sleep(5000);
  stop = true;
  const results = await load;
  const failed = results.filter((r) => r.status !== 201);
  const afterKill = failed.filter((r) => r.at > killedAt + 2000);
  const stored = await allCards(c.url, h, board.documentId);
  const lost = [...acked].filter((id) => !stored.has(id));
  const unacked = stored.size - acked.size;
  // Bring it back; HAProxy sends to it again once its checks pass.
  await c.startApi(1);
  await waitUntil('HAProxy marks it UP again', 20_000, async () => (await c.serverStates())[victim.name] === 'UP');
  const states = await c.serverStates();
  const ok = lost.length === 0 && failed.length <= clients && afterKill.length === 0;
  const outcome =
    `${results.length} creates by ${clients} clients, ${acked.size} acknowledged (201), ${failed.length} failed ` +
    `(${JSON.stringify(countBy(failed, (r) => String(r.status)))}; all within ${Math.round(Math.max(0, ...failed.map((f) => f.at - killedAt)))} ms of the kill); ` +
    `HAProxy marked it DOWN ${Math.round(down)} ms after the kill; read back: ${acked.size - lost.length}/${acked.size} acknowledged found, ` +
    `${lost.length} lost, ${unacked} stored without an acknowledgement (the in-flight ones that committed); restarted: ${JSON.stringify(states)}`;
  log(`api-kill: ${outcome}`);
  rows.push({ scenario: 'kill -9 one API process (api2)', load: `${clients} clients creating cards, 9 s`, outcome, verdict: ok ? 'ok' : 'FAIL' });
}

type Inbound = (base: string) => Promise<{ text: string; ok: boolean; status: number }>;

async function sseScenario(c: Cluster, h: Record<string, string>, wa: WhatsAppPeer) {
  const inbound = await whatsAppInbound(c, h, wa);
  must(await call(c.url, 'GET', '/inboxes', undefined, h), 200, 'inboxes');
  const first = await inbound(c.url);
  if (!first.ok) throw new Error(`inbound webhook: ${first.status}`);
  await sseAcrossProcesses(c, h, inbound);
  await sseReconnectAfterKill(c, h, inbound);
}

/**
 * A WhatsApp channel, and what sends it an inbound message (a signed webhook) through a given API process: each makes
 * a message.created event.
 */
async function whatsAppInbound(c: Cluster, h: Record<string, string>, wa: WhatsAppPeer): Promise<Inbound> {
  const channel = must(
    await call(c.url, 'POST', '/chat-channels', {
      data: {
        name: 'WA SSE',
        type: 'whatsapp',
        settings: { phoneNumberId: '1001', businessAccountId: '2002', appId: '3003' },
        credentials: { accessToken: wa.accessToken, appSecret: 'wa-app-secret', verifyToken: 'wa-verify' },
      },
    }, h),
    201,
    'channel',
  );
  const from = `55119${String(randomBytes(4).readUInt32BE() % 1e8).padStart(8, '0')}`;
  let n = 0;
  const inbound = async (base: string) => {
    const text = `sse-${n++}`;
    const { body, headers } = wa.messagesWebhook('wa-app-secret', '1001', [{ from, text, id: `wamid.${text}.${randomBytes(4).toString('hex')}` }]);
    const r = await tryCall(base, 'POST', `/webhooks/whatsapp/${channel.documentId}`, body, headers);
    return { text, ok: r.status === 200, status: r.status };
  };
  return inbound;
}

/** The SSE scenario's first part, across processes: the stream on api1, the writes on api2. */
async function sseAcrossProcesses(c: Cluster, h: Record<string, string>, inbound: Inbound) {
  const api1 = `http://127.0.0.1:${c.apis[0]!.port}`;
  const api2 = `http://127.0.0.1:${c.apis[1]!.port}`;
  const texts = (s: Sse) => s.events.filter((e) => e.event === 'message.created').map((e) => e.data?.message?.content as string);
  const s1 = await openSse(`${api1}/api/conversations/events`, h);
  const sent1: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await inbound(api2);
    if (r.ok) sent1.push(r.text);
  }
  await waitUntil('the 20 events on api1', 10_000, async () => sent1.every((t) => texts(s1).includes(t))).catch(() => {});
  const got1 = sent1.filter((t) => texts(s1).includes(t)).length;
  s1.close();
  rows.push({
    scenario: 'SSE on api1, writes through api2',
    load: '20 inbound WhatsApp messages',
    outcome: `${got1}/${sent1.length} message.created events received on api1`,
    verdict: got1 === sent1.length ? 'ok' : 'FAIL',
  });
  log(`sse: cross-process ${got1}/${sent1.length}`);
}

/**
 * The SSE scenario's second part: the stream's process dies while writes go on (through api3); the client reconnects
 * through HAProxy with Last-Event-ID.
 */
async function sseReconnectAfterKill(c: Cluster, h: Record<string, string>, inbound: Inbound) {
  const api1 = `http://127.0.0.1:${c.apis[0]!.port}`;
  const victim = c.apis[0]!;
  let stream = await openSse(`${api1}/api/conversations/events`, h);
  const received: Sse['events'] = [];
  const sent2: string[] = [];
  const sentAt: number[] = [];
  let writing = true;
  const api3 = `http://127.0.0.1:${c.apis[2]!.port}`;
  const writer = (async () => {
    while (writing) {
      const r = await inbound(api3);
      if (r.ok) {
        sent2.push(r.text);
        sentAt.push(Date.now());
      }
      await sleep(50);
    }
  })();
  await sleep(1500);
  await killProc(victim);
  const killedAt = Date.now();
  await stream.closed;
  received.push(...stream.events);
  const lastId = [...stream.events].reverse().find((e) => e.id)?.id;
  // EventSource waits its retry delay (the service's hint is 2 s; a dead process sends none: browsers use ~3 s).
  await sleep(2000);
  let reconnectedAfter = 0;
  let reconnectedAt = 0;
  stream = await waitUntil('reconnected through HAProxy', 15_000, async () => {
    const s = await openSse(`${c.url}/api/conversations/events`, { ...h, ...(lastId ? { 'last-event-id': lastId } : {}) });
    reconnectedAfter = Date.now() - killedAt;
    reconnectedAt = Date.now();
    return s;
  });
  await sleep(3000);
  writing = false;
  await writer;
  await sleep(1500);
  received.push(...stream.events);
  stream.close();
  const seen = new Set(received.filter((e) => e.event === 'message.created').map((e) => e.data?.message?.content));
  const missed = sent2.filter((t) => !seen.has(t));
  const inGap = sentAt.filter((t) => t >= killedAt && t <= reconnectedAt).length;
  await c.startApi(0);
  const outcome =
    `${sent2.length} messages written through api3; api1 killed; reconnected through HAProxy with Last-Event-ID ${lastId ?? '(none)'} ` +
    `${reconnectedAfter} ms after the kill; received ${sent2.length - missed.length}/${sent2.length}, missed ${missed.length} (${inGap} of them written while it was disconnected)`;
  log(`sse: ${outcome}`);
  rows.push({
    scenario: 'SSE client\'s process killed, reconnect via HAProxy with Last-Event-ID',
    load: 'inbound messages every ~50 ms',
    outcome,
    verdict: missed.length === 0 ? 'ok' : 'gap',
  });
}

async function campaignScenario(c: Cluster, h: Record<string, string>, wa: WhatsAppPeer, orgSlug: string) {
  const N = 300;
  wa.setDelay(25);
  const campaign = await createCampaign(c, h, wa, orgSlug, N);
  const before = wa.messages.length;
  must(await call(c.url, 'POST', `/campaigns/${campaign.documentId}/trigger`, undefined, h), 200, 'trigger');
  await waitUntil('60 messages sent', 60_000, async () => wa.messages.length - before >= 60);
  const victim = await busiest(c.workers, 700);
  const idx = c.workers.indexOf(victim);
  await killProc(victim);
  const atKill = wa.messages.length - before;
  const killedAt = Date.now();
  log(`campaign: kill -9 ${victim.name} after ${atKill} messages`);
  const final = await waitUntil('the campaign settles', 150_000, async () => {
    const r = await call(c.url, 'GET', `/campaigns/${campaign.documentId}`, undefined, h);
    return ['completed', 'failed'].includes(r.body.campaignStatus) ? r.body : undefined;
  });
  const settledAfter = Date.now() - killedAt;
  const mine = wa.messages.slice(before);
  const perTo = countBy(mine, (m) => m.to);
  const twice = Object.values(perTo).filter((n) => n > 1).length;
  const recipients = await allRecipients(c, h, campaign.documentId);
  const byStatus = countBy(recipients, (r) => r.status);
  await c.startWorker(idx);
  const s = final.stats;
  const outcome =
    `${N} recipients; ${victim.name} killed after ${atKill} sends; settled ${final.campaignStatus} ${Math.round(settledAfter / 1000)} s later ` +
    `(sent ${s.sent}, failed ${s.failed}, recipients ${JSON.stringify(byStatus)}); provider saw ${mine.length} messages to ` +
    `${Object.keys(perTo).length} numbers, ${twice} number(s) twice`;
  log(`campaign: ${outcome}`);
  rows.push({
    scenario: 'kill -9 the busy worker mid-campaign (WhatsApp)',
    load: `${N} recipients at 40/s, peer 25 ms`,
    outcome,
    verdict: twice === 0 && s.sent + s.failed === N ? 'ok' : 'FAIL',
  });
  wa.setDelay(0);
}

/**
 * A WhatsApp campaign (template `fault`, at 40 messages a second) to a segment of `n` contacts, inserted straight into
 * the database.
 */
async function createCampaign(c: Cluster, h: Record<string, string>, wa: WhatsAppPeer, orgSlug: string, n: number) {
  const channel = must(
    await call(c.url, 'POST', '/chat-channels', {
      data: {
        name: 'WA campaign',
        type: 'whatsapp',
        settings: { phoneNumberId: '1001', businessAccountId: '2002', ratePerSecond: 40 },
        credentials: { accessToken: wa.accessToken, appSecret: 'a', verifyToken: 'v' },
      },
    }, h),
    201,
    'channel',
  );
  const db = new pg.Client({ connectionString: c.directUrl });
  await db.connect();
  const { rows: [org] } = await db.query('select id from organizations where slug = $1', [orgSlug]);
  await db.query(
    `insert into contacts (organization_id, document_id, name, phone, city)
     select $1, substr(md5('kill' || g::text), 1, 24), 'Person ' || g, '+5511' || lpad(g::text, 9, '0'), 'killcity'
     from generate_series(1, $2::int) g`,
    [org.id, n],
  );
  // Campaigns reach only contacts with a marketing consent by default (issue 33): these were inserted without one.
  await db.query('update organizations set marketing_requires_consent = false where id = $1', [org.id]);
  await db.end();
  const segment = must(
    await call(c.url, 'POST', '/segments', {
      data: { name: 'kill', filters: { logic: 'AND', conditions: [{ field: 'city', op: 'eq', value: 'killcity' }] } },
    }, h),
    201,
    'segment',
  );
  wa.templates.set('fault|pt_BR', {
    id: '77',
    name: 'fault',
    language: 'pt_BR',
    category: 'MARKETING',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Oi {{1}}' }],
  });
  const tpl = must(await call(c.url, 'POST', `/chat-channels/${channel.documentId}/templates/sync`, undefined, h), 200, 'template sync');
  return must(
    await call(c.url, 'POST', '/campaigns', {
      data: {
        name: 'kill',
        channel: channel.documentId,
        segment: segment.documentId,
        template: tpl.data[0].documentId,
        variables: { '1': '{{contact.name}}' },
      },
    }, h),
    201,
    'campaign',
  );
}

/** Every recipient of a campaign, through the list. */
async function allRecipients(c: Cluster, h: Record<string, string>, campaign: string) {
  const recipients: any[] = [];
  for (let page = 1; ; page++) {
    const r = must(await call(c.url, 'GET', `/campaigns/${campaign}/recipients?pagination[page]=${page}&pagination[pageSize]=100`, undefined, h), 200, 'recipients');
    recipients.push(...r.data);
    if (r.data.length < 100) return recipients;
  }
}

async function webhookScenario(c: Cluster, h: Record<string, string>) {
  // 300 ms an answer: on a quiet machine 160 deliveries at 40 ms were all done before the kill (06:45 run).
  const receiver = await startReceiver(300);
  const sub = must(
    await call(c.url, 'POST', '/webhook-subscriptions', {
      data: { url: receiver.url, events: ['card.created', 'card.phase_changed', 'card.updated'] },
    }, h),
    201,
    'subscription',
  );
  const board = must(
    await call(c.url, 'POST', '/boards', { data: { name: 'Hooks', phases: [{ name: 'New' }, { name: 'Talking' }, { name: 'Offer' }] } }, h),
    201,
    'board',
  );
  const full = must(await call(c.url, 'GET', `/boards/${board.documentId}`, undefined, h), 200, 'board get');
  const phases: string[] = (full.phases ?? []).map((p: any) => p.documentId);
  const cards: string[] = [];
  // 40 cards, each created, retitled, moved twice: 4 events per record, 160 in all, in a known order per record.
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      for (let i = w; i < 40; i += 8) {
        const card = must(await call(c.url, 'POST', `/boards/${board.documentId}/cards`, { data: { title: `h${i}` } }, h), 201, 'card');
        cards.push(card.documentId);
        must(await call(c.url, 'PUT', `/boards/${board.documentId}/cards/${card.documentId}`, { data: { title: `h${i}b` } }, h), 200, 'put');
        for (const ph of phases.slice(1, 3))
          must(await call(c.url, 'POST', `/boards/${board.documentId}/cards/${card.documentId}/move`, { phase: ph }, h), 200, 'move');
      }
    }),
  );
  const expected = 40 * (2 + Math.max(0, Math.min(2, phases.length - 1)));
  await waitUntil('some deliveries', 30_000, async () => receiver.deliveries.length >= 20);
  // The worker mid-delivery: the one holding a connection the receiver has not answered yet (else the busier).
  const holding = [...receiver.inFlight].map((port) => ownerOfPort(c.workers, port)).filter((p) => p !== undefined);
  const victim = holding[0] ?? (await busiest(c.workers, 500));
  const inFlight = holding.filter((p) => p === victim).length;
  const idx = c.workers.indexOf(victim);
  await killProc(victim);
  const atKill = receiver.deliveries.length;
  const killedAt = Date.now();
  log(`webhooks: kill -9 ${victim.name} after ${atKill} deliveries, ${inFlight} of its deliveries in flight`);
  await waitUntil(`all ${expected} events delivered`, 150_000, async () => new Set(receiver.deliveries.map((d) => d.id)).size >= expected).catch((e) => log(String(e)));
  const doneAfter = Date.now() - killedAt;
  await c.startWorker(idx);
  const ids = countBy(receiver.deliveries, (d) => d.id);
  const dup = Object.values(ids).filter((n) => n > 1).length;
  // Order per record: first deliveries of each event id, per card, in event time order.
  let outOfOrder = 0;
  const seen = new Set<string>();
  const last = new Map<string, string>();
  for (const d of receiver.deliveries) {
    if (seen.has(d.id)) continue;
    seen.add(d.id);
    const prev = last.get(d.subject);
    if (prev && prev > d.timestamp) outOfOrder++;
    last.set(d.subject, d.timestamp);
  }
  const unique = Object.keys(ids).length;
  await receiver.close();
  // What held an undelivered event (its delivery row, the delivery run's jobs), for the record.
  let held = '';
  if (unique < expected) {
    const db = new pg.Client({ connectionString: c.directUrl });
    await db.connect();
    const d = await db.query(
      `select status, attempts, next_attempt_at > now() as leased, count(*)::int as n from webhook_deliveries
       where status <> 'delivered' group by 1, 2, 3`,
    );
    const j = await db.query(
      `select state, count(*)::int as n from pgboss.job where name like '%webhooks-dispatch%' group by 1`,
    );
    await db.end();
    held = `; undelivered rows ${JSON.stringify(d.rows)}, delivery-run jobs ${JSON.stringify(j.rows)}`;
  }
  const outcome =
    `${expected} events (40 cards × ${expected / 40}); ${victim.name} killed after ${atKill} deliveries with ${inFlight} of its own in flight; ` +
    `${unique}/${expected} delivered ${Math.round(doneAfter / 1000)} s after the kill, ${dup} event(s) delivered twice (at least once: same webhook-id), ` +
    `${outOfOrder} out of order within a record${held}`;
  log(`webhooks: ${outcome}`);
  rows.push({
    scenario: 'kill -9 the busy worker mid-webhook-delivery',
    load: 'receiver answering in 300 ms',
    outcome,
    verdict: unique === expected && outOfOrder === 0 ? 'ok' : 'FAIL',
  });
  void sub;
}

async function pgbouncerScenario(c: Cluster, h: Record<string, string>) {
  const board = must(await call(c.url, 'POST', '/boards', { data: { name: 'Bouncer' } }, h), 201, 'board');
  const acked = new Set<string>();
  let stop = false;
  let restartAt = 0;
  let backAt = 0;
  const t0 = performance.now();
  const load = loop(8, () => stop, async (cl, i) => {
    if (i % 2) return tryCall(c.url, 'GET', `/boards/${board.documentId}/cards?pagination[pageSize]=25`, undefined, h);
    const r = await tryCall(c.url, 'POST', `/boards/${board.documentId}/cards`, { data: { title: `b-${cl}-${i}` } }, h);
    if (r.status === 201) acked.add(r.body.documentId);
    return r;
  });
  await sleep(3000);
  restartAt = performance.now() - t0;
  await c.restartPgBouncer(1000);
  backAt = performance.now() - t0;
  await sleep(6000);
  stop = true;
  const results = await load;
  const failed = results.filter((r) => r.status >= 400 || r.status === 0);
  const lastFail = Math.max(0, ...failed.map((f) => f.at));
  const afterBack = failed.filter((f) => f.at > backAt + 3000).length;
  const stored = await allCards(c.url, h, board.documentId);
  const lost = [...acked].filter((id) => !stored.has(id)).length;
  const outcome =
    `${results.length} requests (half creates) by 8 clients; PgBouncer down ${Math.round(backAt - restartAt)} ms; ` +
    `${failed.length} failed (${JSON.stringify(countBy(failed, (r) => String(r.status)))}), the last ${Math.round(lastFail - backAt)} ms after it was back; ` +
    `${afterBack} failures later than 3 s after; ${lost} acknowledged creates lost`;
  log(`pgbouncer: ${outcome}`);
  rows.push({
    scenario: 'restart PgBouncer',
    load: '8 clients, list + create, 10 s',
    outcome,
    verdict: afterBack === 0 && lost === 0 ? 'ok' : 'FAIL',
  });
}

async function replicaScenario(c: Cluster, h: Record<string, string>) {
  if (!c.replicaUrl || !c.stopReplica) {
    rows.push({ scenario: 'stop the replica', load: '–', outcome: 'not run: no replica (scripts/cluster/pg-pair.ts absent)', verdict: 'gap' });
    return;
  }
  const board = must(await call(c.url, 'POST', '/boards', { data: { name: 'Replica' } }, h), 201, 'board');
  for (let i = 0; i < 10; i++) must(await call(c.url, 'POST', `/boards/${board.documentId}/cards`, { data: { title: `r${i}`, value: 10 } }, h), 201, 'card');
  let stop = false;
  const t0 = performance.now();
  let stoppedAt = 0;
  const load = loop(4, () => stop, async () => tryCall(c.url, 'GET', `/boards/${board.documentId}/report`, undefined, h));
  await sleep(3000);
  stoppedAt = performance.now() - t0;
  await c.stopReplica();
  await sleep(8000);
  stop = true;
  const results = await load;
  const failed = results.filter((r) => r.status !== 200);
  const after = results.filter((r) => r.at > stoppedAt);
  const outcome =
    `${results.length} board reports by 4 clients, replica stopped at ${(stoppedAt / 1000).toFixed(1)} s; ${failed.length} failed ` +
    `(${JSON.stringify(countBy(failed, (r) => String(r.status)))}); after the stop ${after.length - failed.length}/${after.length} answered 200, p99 ${Math.round(pct(after.map((r) => r.ms), 0.99))} ms`;
  log(`replica: ${outcome}`);
  rows.push({ scenario: 'stop the replica', load: '4 clients reading the board report', outcome, verdict: failed.length === 0 ? 'ok' : 'FAIL' });
}

async function redisScenario(c: Cluster, h: Record<string, string>) {
  // The failed-authentication bucket (RATE_LIMIT_AUTH_FAILURES_MAX per IP and window, shared in Redis): bad bearers
  // until 429, with Redis up and with Redis down; valid requests meanwhile.
  const bad = { authorization: 'Bearer not-a-token' };
  const burst = async (n: number) => {
    const out: Res[] = [];
    for (let i = 0; i < n; i++) out.push(await tryCall(c.url, 'GET', '/boards', undefined, bad));
    return countBy(out, (r) => String(r.status));
  };
  const valid = async (n: number) => {
    const out: Res[] = [];
    for (let i = 0; i < n; i++) out.push(await tryCall(c.url, 'GET', '/boards', undefined, h));
    return { statuses: countBy(out, (r) => String(r.status)), p50: Math.round(pct(out.map((r) => r.ms), 0.5)), p99: Math.round(pct(out.map((r) => r.ms), 0.99)) };
  };
  const up = await burst(40);
  const validUp = await valid(30);
  let down: Record<string, number> = {};
  let validDown = validUp;
  await c.restartRedis(500, async () => {
    // Few: each may take seconds while Redis is down.
    down = await burst(10);
    validDown = await valid(10);
  });
  await sleep(1500);
  const back = await burst(20);
  const validBack = await valid(30);
  const outcome =
    `limit ${c.env.RATE_LIMIT_AUTH_FAILURES_MAX} failed auths/IP/window (Redis). Up: 40 bad bearers → ${JSON.stringify(up)}, 30 valid → ${JSON.stringify(validUp.statuses)} p99 ${validUp.p99} ms; ` +
    `Redis down: 10 bad → ${JSON.stringify(down)}, 10 valid → ${JSON.stringify(validDown.statuses)} p50 ${validDown.p50} ms p99 ${validDown.p99} ms; ` +
    `back: 20 bad → ${JSON.stringify(back)}, 30 valid → ${JSON.stringify(validBack.statuses)} p99 ${validBack.p99} ms`;
  log(`redis: ${outcome}`);
  const validOk = [validUp, validDown, validBack].every((v) => Object.keys(v.statuses).join() === '200');
  rows.push({ scenario: 'restart Redis (rate-limit store)', load: 'bad and valid bearers, one client', outcome, verdict: validOk ? 'ok' : 'FAIL' });
}

// ---- main

async function main() {
  const started = Date.now();
  const load0 = loadavg()[0]!.toFixed(1);
  const wa = await startWhatsAppPeer();
  const cluster = await startCluster({
    log,
    env: {
      CRM_WHATSAPP_API_URL: wa.url,
      CRM_OUTBOUND_ALLOWLIST: '127.0.0.1',
      CRM_PROVIDER_TIMEOUT_MS: '3000',
      CRM_JOBS_POLL_SECONDS: '0.5',
      // A dead worker's active job is retried after this (default 300 s): short, for a bounded run.
      CRM_JOBS_EXPIRE_SECONDS: '15',
      CRM_JOBS_MAINTENANCE_SECONDS: '2',
      PUBLIC_URL: 'http://crm.test',
      RATE_LIMIT_MAX: '100000',
      RATE_LIMIT_AUTH_FAILURES_MAX: '20',
    },
  });
  const pids = cluster.pids();
  let failed: unknown;
  try {
    const slug = `faults${randomBytes(3).toString('hex')}`;
    const h = await signUp(cluster.url, slug);
    const steps: [string, () => Promise<void>][] = [
      ['api-kill', () => apiKill(cluster, h)],
      ['sse', () => sseScenario(cluster, h, wa)],
      ['campaign', () => campaignScenario(cluster, h, wa, slug)],
      ['webhooks', () => webhookScenario(cluster, h)],
      ['pgbouncer', () => pgbouncerScenario(cluster, h)],
      ['redis', () => redisScenario(cluster, h)],
      ['replica', () => replicaScenario(cluster, h)],
      ['mcp', async () => void rows.push(...(await mcpScenario(cluster, h)))],
    ];
    for (const [name, run] of steps) {
      if (!want(name)) continue;
      log(`---- ${name}`);
      try {
        await run();
      } catch (err) {
        log(`${name}: ${(err as Error).stack}`);
        rows.push({ scenario: name, load: '–', outcome: `error: ${(err as Error).message.slice(0, 300)}`, verdict: 'FAIL' });
      }
    }
  } catch (err) {
    failed = err;
  } finally {
    const all = [...new Set([...pids, ...cluster.pids()])];
    // The processes' logs outlive the cluster's temporary directory (what a failed scenario left behind).
    const logs = join(tmpdir(), `crm-faults-logs-${process.pid}`);
    mkdirSync(logs, { recursive: true });
    for (const f of readdirSync(cluster.dir).filter((f) => f.endsWith('.log'))) cpSync(join(cluster.dir, f), join(logs, f));
    log(`logs kept in ${logs}`);
    await cluster.stop();
    await wa.close();
    const left = alive(all);
    console.log(
      `\n### Faults under load (${new Date().toISOString().slice(0, 16)}Z, ${Math.round((Date.now() - started) / 1000)} s, load average ${load0} → ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)\n`,
    );
    console.log('| Fault | Load | Measured | Verdict |\n|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.scenario} | ${r.load} | ${r.outcome.replace(/\|/g, '/')} | ${r.verdict} |`);
    console.log(`\nprocesses started: ${all.length}; still running after stop: ${left.length ? left.join(', ') : 'none'}`);
  }
  if (failed) throw failed;
}

main().then(
  () => process.exit(rows.some((r) => r.verdict === 'FAIL') ? 1 : 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
