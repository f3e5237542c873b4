/**
 * Campaign throughput: a campaign to N contacts (default 20,000) through the local SMTP server and through the
 * local WhatsApp Cloud API peer, on the embedded database (or DATABASE_URL), workers in process.
 * Reports messages per second and the card-list p99 (GET /boards/{id}/cards) without and while a campaign sends.
 *
 *   npx tsx bench/campaign.ts [N]
 */
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.js';
import { type Database, queryRows } from '../src/platform/db/client.js';
import { startWhatsAppPeer, type WhatsAppPeer } from '../test/helpers/peers/whatsapp.js';
import { startSmtp } from '../test/helpers/smtp.js';
import { type BenchRequest, percentile, startBenchApp } from './lib.js';

const N = Number(process.argv[2] ?? 20_000);
const p = percentile;

/** What a campaign run needs: the service's requests, the WhatsApp peer, the audience, the readers' board. */
interface CampaignBench {
  req: BenchRequest;
  h: Record<string, string>;
  wa: WhatsAppPeer;
  boardId: string;
  segmentId: string;
}

/** The audience (N contacts) and a board of 200 cards for the readers: the board's and the segment's ids. */
async function seedAudience(db: Database, req: BenchRequest, h: Record<string, string>) {
  const [{ id: orgId }] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = 'bench'`,
  );
  // Contacts by SQL (the bench measures sending, not contact creation): e-mail and phone for both channels.
  await db.system.execute(sql`insert into contacts (organization_id, document_id, name, email, phone, city)
    select ${orgId}, substr(md5(g::text), 1, 24), 'Person ' || g, 'p' || g || '@bench.test', '+5511' || lpad(g::text, 9, '0'), 'bench'
    from generate_series(1, ${N}) g`);
  const board = await req('POST', '/boards', { data: { name: 'Pipeline' } }, h);
  for (let i = 0; i < 200; i++)
    await req('POST', `/boards/${board.body.documentId}/cards`, { data: { title: `Deal ${i}` } }, h);
  const segment = await req(
    'POST',
    '/segments',
    {
      data: {
        name: 'All',
        filters: { logic: 'AND', conditions: [{ field: 'city', op: 'eq', value: 'bench' }] },
      },
    },
    h,
  );
  return { boardId: board.body.documentId as string, segmentId: segment.body.documentId as string };
}

/** `count` card lists (the board's first page), one after another: each one's ms. */
async function cardList({ req, h, boardId }: CampaignBench, count: number) {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await req('GET', `/boards/${boardId}/cards?pagination[pageSize]=25`, undefined, h);
    times.push(performance.now() - t0);
  }
  return times;
}

function createChannel({ req, h, wa }: CampaignBench, kind: 'email' | 'whatsapp') {
  return kind === 'email'
    ? req(
        'POST',
        '/chat-channels',
        {
          data: {
            name: 'Mail',
            type: 'email',
            settings: { fromName: 'B', fromAddress: 'b@bench.test', ratePerSecond: 1000 },
          },
        },
        h,
      )
    : req(
        'POST',
        '/chat-channels',
        {
          data: {
            name: 'WA',
            type: 'whatsapp',
            settings: { phoneNumberId: '1', businessAccountId: '2', ratePerSecond: 1000 },
            credentials: { accessToken: wa.accessToken, appSecret: 'a', verifyToken: 'v' },
          },
        },
        h,
      );
}

/** The campaign's template: an e-mail template, or the peer's approved WhatsApp template, synced. */
async function createTemplate(
  { req, h, wa }: CampaignBench,
  kind: 'email' | 'whatsapp',
  channelId: string,
): Promise<string> {
  if (kind === 'email') {
    return (
      await req(
        'POST',
        '/email-templates',
        {
          data: {
            name: 'T',
            subject: 'Hi {{contact.name}}',
            html: '<p>Hi {{contact.name}} <a href="https://x.test/a">x</a></p>',
          },
        },
        h,
      )
    ).body.documentId;
  }
  wa.templates.set('bench|pt_BR', {
    id: '1',
    name: 'bench',
    language: 'pt_BR',
    category: 'MARKETING',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Oi {{1}}' }],
  });
  return (await req('POST', `/chat-channels/${channelId}/templates/sync`, undefined, h)).body.data[0]
    .documentId;
}

async function runCampaign(bench: CampaignBench, kind: 'email' | 'whatsapp') {
  const { req, h } = bench;
  const channel = await createChannel(bench, kind);
  const template = await createTemplate(bench, kind, channel.body.documentId);
  const c = await req(
    'POST',
    '/campaigns',
    {
      data: {
        name: kind,
        channel: channel.body.documentId,
        segment: bench.segmentId,
        template,
        variables: { '1': '{{contact.name}}' },
      },
    },
    h,
  );
  const t0 = performance.now();
  await req('POST', `/campaigns/${c.body.documentId}/trigger`, undefined, h);
  const audienceMs = performance.now() - t0;
  const during: number[] = [];
  let status = 'processing';
  // A steady reader (about 20 card lists a second), as people browsing the board while the campaign sends.
  while (status === 'processing') {
    during.push(...(await cardList(bench, 5)));
    await new Promise((r) => setTimeout(r, 200));
    status = (await req('GET', `/campaigns/${c.body.documentId}`, undefined, h)).body.campaignStatus;
  }
  const seconds = (performance.now() - t0) / 1000;
  const stats = (await req('GET', `/campaigns/${c.body.documentId}`, undefined, h)).body.stats;
  return {
    kind,
    status,
    sent: stats.sent,
    failed: stats.failed,
    seconds: +seconds.toFixed(1),
    perSecond: Math.round(stats.sent / seconds),
    audienceMs: Math.round(audienceMs),
    cardListP99During: +p(during, 0.99).toFixed(1),
    samplesDuring: during.length,
  };
}

async function main() {
  const [smtp, wa] = await Promise.all([startSmtp(), startWhatsAppPeer()]);
  const dataDir = `/tmp/crm-bench-campaign-${process.pid}`;
  const config = loadConfig(
    { ...process.env, CRM_LOG_LEVEL: 'silent', CRM_DATA_DIR: dataDir },
    {
      SMTP_URL: smtp.url,
      CRM_WHATSAPP_API_URL: wa.url,
      CRM_OUTBOUND_ALLOWLIST: '127.0.0.1',
      CRM_JOBS_POLL_SECONDS: 0.5,
      RATE_LIMIT_ENABLED: false,
      PUBLIC_URL: 'http://crm.test',
    },
  );
  const { db, req, h, close } = await startBenchApp(config, 'bench');
  const bench = { req, h, wa, ...(await seedAudience(db, req, h)) };
  const idle = await cardList(bench, 300);
  const results = [await runCampaign(bench, 'email'), await runCampaign(bench, 'whatsapp')];
  console.log(
    JSON.stringify(
      { contacts: N, database: db.kind, cardListP99Idle: +p(idle, 0.99).toFixed(1), results },
      null,
      2,
    ),
  );
  await close();
  await Promise.all([smtp.close(), wa.close()]);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
