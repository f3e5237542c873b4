/**
 * Makes the upgrade fixture of a release (test/fixtures/upgrade/<version>/): starts THAT release's code as a real
 * process (`node bin/crm.js serve` in a checkout of its tag), fills two organizations over HTTP with data in every
 * area, stores the API reads it answered (reads-<backend>.json), stops it, and packs its database: the embedded
 * data directory (pglite-data.tar.xz) and a PostgreSQL dump (postgres.sql.gz, plus postgres-files.tar.gz: the
 * uploads, which live beside the database on both backends).
 *
 *   git worktree add /tmp/crm-0.1.0 v0.1.0 && ln -s "$PWD/node_modules" /tmp/crm-0.1.0/node_modules
 *   npx tsx scripts/upgrade-fixture/make.ts --release /tmp/crm-0.1.0 [--postgres postgres://postgres@127.0.0.1:5432]
 *
 * The content is fixed and clock-independent where the API lets it be (due dates in 2099, inbound messages
 * timestamped 2026-01-05); ids and creation times come from the run, which is why the reads are stored.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startWhatsAppPeer, type WhatsAppPeer } from '../../test/helpers/peers/whatsapp.js';
import { READ_PLAN, type StoredRead } from './reads.js';

const { values } = parseArgs({
  options: {
    release: { type: 'string' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    out: { type: 'string' },
    backend: { type: 'string', default: 'both' },
  },
});
if (!values.release) throw new Error('--release <checkout of the release tag> is required');
const releaseDir = resolve(values.release);
const version = JSON.parse(readFileSync(join(releaseDir, 'package.json'), 'utf8')).version as string;
const outDir = resolve(values.out ?? join(import.meta.dirname, '../../test/fixtures/upgrade', version));
mkdirSync(outDir, { recursive: true });

const APP_SECRET = 'wa-app-secret';
const PHONE_NUMBER_ID = '1001';

interface Res {
  status: number;
  body: any;
  bytes?: Buffer;
  contentType?: string;
}

class Client {
  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
  ) {}
  with(headers: Record<string, string>) {
    return new Client(this.base, { ...this.headers, ...headers });
  }
  async request(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Res> {
    const isRaw = Buffer.isBuffer(body) || typeof body === 'string';
    const res = await fetch(`${this.base}/api${path}`, {
      method,
      headers: {
        ...this.headers,
        ...(body !== undefined && !isRaw ? { 'content-type': 'application/json' } : {}),
        ...extra,
      },
      body: body === undefined ? undefined : isRaw ? (body as string) : JSON.stringify(body),
    });
    const contentType = res.headers.get('content-type') ?? '';
    const bytes = Buffer.from(await res.arrayBuffer());
    const parsed = contentType.includes('json') && bytes.length ? JSON.parse(bytes.toString('utf8')) : undefined;
    return { status: res.status, body: parsed, bytes, contentType };
  }
  async ok(method: string, path: string, body?: unknown, expected = [200, 201, 202]): Promise<any> {
    const res = await this.request(method, path, body);
    if (!expected.includes(res.status))
      throw new Error(`${method} ${path} → ${res.status}: ${res.bytes?.toString('utf8').slice(0, 500)}`);
    return res.body;
  }
  get = (path: string) => this.ok('GET', path);
  post = (path: string, body?: unknown) => this.ok('POST', path, body);
  put = (path: string, body?: unknown) => this.ok('PUT', path, body);
}

function multipart(field: string, filename: string, type: string, content: Buffer) {
  const boundary = '----crmUpgradeFixture';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The file uploaded to a card of each organization: fixed bytes, kept beside the fixture for the test. */
export const UPLOADED_FILE = Buffer.from(
  '%PDF-1.4\n% upgrade fixture: this file was uploaded to 0.1.0 and must download with the same bytes\n%%EOF\n',
);

/**
 * 0.1.0's field types, written out rather than imported from src/modules/boards/table.ts: this script describes
 * what that release accepted, and must not change when today's list does.
 */
const FIELD_TYPES = [
  'text',
  'textarea',
  'richtext',
  'email',
  'number',
  'date',
  'datetime',
  'select',
  'multiselect',
  'radio',
  'switch',
  'file',
  'url',
  'phone',
  'card_link',
  'hidden',
  'statement',
  'time',
  'currency',
  'document',
  'checkbox',
] as const;

interface OrgInfo {
  slug: string;
  ownerEmail: string;
  token: string;
  ids: Record<string, any>;
}

/** What the steps of one organization's fill share. */
interface Fill {
  /** No credentials: the public upload and the inbound webhooks. */
  anon: Client;
  /** The owner, in the organization. */
  api: Client;
  wa: WhatsAppPeer;
  n: 1 | 2;
  prefix: string;
  ids: Record<string, any>;
}

const registerUser = async (anon: Client, prefix: string, who: string) =>
  anon.post('/auth/local/register', {
    username: `${prefix}-${who}`,
    email: `${who}@${prefix}.example`,
    password: 'correct-horse-battery',
  });

/**
 * One organization with data in every area; `n` varies the content between the two. The steps run in this order
 * (the fixtures were made with it): a step's records are what later steps refer to.
 */
async function fillOrganization(anon: Client, wa: WhatsAppPeer, n: 1 | 2): Promise<OrgInfo> {
  const prefix = n === 1 ? 'acme' : 'beta';
  const owner = await registerUser(anon, prefix, 'owner');
  const userApi = anon.with({ authorization: `Bearer ${owner.jwt}` });
  const slug = `${prefix}-upgrade`;
  await userApi.post('/organizations', { data: { name: n === 1 ? 'Acme Ltda' : 'Beta Corp', slug } });
  const fill: Fill = { anon, api: userApi.with({ 'x-tenant-id': slug }), wa, n, prefix, ids: {} };

  const ownerMembership = await addMemberAndTeam(fill);
  const boardId = await addBoard(fill);
  const contacts = await addContacts(fill);
  const card = await addCards(fill, boardId, contacts, ownerMembership);
  await addProductsAndQuote(fill, card, contacts.ana);
  await addTasks(fill, card.documentId, ownerMembership);
  const segment = await addSegmentFiltersAndQueue(fill, boardId, ownerMembership);
  await addWhatsAppChannel(fill);
  await addEmailCampaign(fill, segment);
  await addWebhookSubscriptions(fill);

  // The API token the stored reads use (and the upgrade test after them): it never expires in practice.
  const token = await userApi.post('/users/generate-token', { expiration: '36500d', name: 'upgrade fixture' });
  return { slug, ownerEmail: `owner@${prefix}.example`, token: token.token, ids: fill.ids };
}

/**
 * A second member (invited by e-mail to the outbox, accepted with the link's token) and a team. Answers the owner's
 * membership.
 */
async function addMemberAndTeam({ anon, api, prefix, ids }: Fill): Promise<string> {
  const member = await registerUser(anon, prefix, 'member');
  await api.post('/memberships', { data: { email: `member@${prefix}.example`, role: 'member' } });
  ids.member = member.user.id; // invited, the invitation left pending
  const memberships = (await api.get('/memberships')).data as any[];
  const ownerMembership = memberships[0].documentId;
  const team = await api.post('/teams', { data: { name: 'Sales team' } });
  ids.team = team.documentId;
  return ownerMembership;
}

/** A board with a field of every type, tags, a won and a lost phase, products enabled. */
async function addBoard({ api, n, ids }: Fill): Promise<string> {
  const options = ['a', { value: 'b', label: 'Bee' }];
  const board = await api.post('/boards', {
    data: {
      name: n === 1 ? 'Sales pipeline' : 'Partnerships',
      phases: [
        {
          name: 'Lead',
          slug: 'lead',
          fields: FIELD_TYPES.map((type) => ({
            label: `F ${type}`,
            slug: `f_${type}`,
            type,
            ...(['select', 'multiselect', 'radio'].includes(type) ? { options } : {}),
          })),
        },
        { name: 'Qualified', slug: 'qualified', fields: [{ label: 'Budget', slug: 'budget', type: 'currency' }] },
        { name: 'Won', slug: 'won' },
        { name: 'Lost', slug: 'lost' },
      ],
      tags: [
        { name: 'Hot', slug: 'hot', color: '#ff0000' },
        { name: 'Cold', slug: 'cold', color: '#0000ff' },
      ],
      boardSettings: {
        wonPhase: 'won',
        lostPhase: 'lost',
        showValue: true,
        currency: 'BRL',
        enableProducts: true,
      },
    },
  });
  const boardId = board.documentId as string;
  ids.board = boardId;
  return boardId;
}

/** Contacts (one per card, some for the segment). Answers the documentIds of the two the cards get. */
async function addContacts({ api, prefix, ids }: Fill): Promise<{ ana: string; bruno: string }> {
  const contact = (data: Record<string, unknown>) => api.post('/contacts', { data });
  const ana = await contact({
    name: 'Ana Souza',
    email: `ana@${prefix}.example`,
    phone: '+5511987650001',
    city: 'Campinas',
    state: 'SP',
    country: 'BR',
  });
  const bruno = await contact({ name: 'Bruno Lima', email: `bruno@${prefix}.example`, city: 'Campinas' });
  await contact({ name: 'Carla Dias', phone: '+5511987650003', city: 'Santos', contact_type: 'pessoa' });
  ids.contact = ana.documentId;
  return { ana: ana.documentId, bruno: bruno.documentId };
}

/**
 * The uploaded file, then cards: every field type filled, tags, a contact, comments, a move, an edit. Answers the
 * card with every field (its documentId and path).
 */
async function addCards(
  { anon, api, ids }: Fill,
  boardId: string,
  contacts: { ana: string; bruno: string },
  ownerMembership: string,
): Promise<{ documentId: string; path: string }> {
  const up = multipart('file', 'proposal.pdf', 'application/pdf', UPLOADED_FILE);
  const uploadRes = await anon.request('POST', `/boards/${boardId}/public-upload`, up.payload, up.headers);
  if (uploadRes.status !== 201 && uploadRes.status !== 200)
    throw new Error(`upload: ${uploadRes.status} ${uploadRes.bytes}`);
  const uploaded = uploadRes.body;
  ids.file = uploaded.documentId;
  const linked = await api.post(`/boards/${boardId}/cards`, {
    data: { title: 'Linked card', value: 100, contact: contacts.bruno },
  });
  const full = await api.post(`/boards/${boardId}/cards`, {
    data: {
      title: 'Every field',
      value: 2500.5,
      fields: everyFieldValues(uploaded.documentId, linked.documentId),
      tags: ['hot'],
      contact: contacts.ana,
      assignees: [ownerMembership],
    },
  });
  ids.card = full.documentId;
  const path = `/boards/${boardId}/cards/${full.documentId}`;
  await api.post(`${path}/comments`, { data: { content: 'First call went well' } });
  await api.post(`${path}/comments`, { data: { content: 'Sent the proposal' } });
  await api.put(path, { data: { title: 'Every field (edited)', tags: ['hot', 'cold'] } });
  await api.post(`${path}/move`, { phase: 'qualified' });
  const lost = await api.post(`/boards/${boardId}/cards`, { data: { title: 'Lost deal', tags: ['cold'] } });
  await api.post(`/boards/${boardId}/cards/${lost.documentId}/move`, { phase: 'lost' });
  return { documentId: full.documentId, path };
}

/** A value for each field of the board's first phase (FIELD_TYPES), the file and the linked card among them. */
function everyFieldValues(fileId: string, linkedCardId: string): Record<string, unknown> {
  return {
    f_text: 'hello',
    f_textarea: 'line one\nline two',
    f_richtext: '<p><b>bold</b> text</p>',
    f_email: 'ana@example.com',
    f_number: 12.5,
    f_date: '2025-02-28',
    f_datetime: '2025-01-31T17:00:00.000Z',
    f_select: 'b',
    f_multiselect: ['a', 'b'],
    f_radio: 'a',
    f_switch: true,
    f_file: [fileId],
    f_url: 'https://example.com/x',
    f_phone: '+551187654321',
    f_card_link: linkedCardId,
    f_hidden: 'campaign-7',
    f_time: '08:15',
    f_currency: 19.99,
    f_document: '52998224725',
    f_checkbox: true,
  };
}

/** Products, a category, a card product line and a quote. */
async function addProductsAndQuote(
  { api, prefix, ids }: Fill,
  card: { documentId: string; path: string },
  ana: string,
) {
  const category = await api.post('/product-categories', { data: { name: 'Software' } });
  const licence = await api.post('/products', {
    data: {
      name: 'CRM licence',
      sku: `${prefix.toUpperCase()}-LIC`,
      price: 49.9,
      minPrice: 39.5,
      description: 'Per seat, per month',
      unit: 'seat',
      category: category.documentId,
    },
  });
  await api.post('/products', { data: { name: 'Onboarding', sku: `${prefix.toUpperCase()}-ONB`, price: 800 } });
  await api.post(`${card.path}/products`, { data: { product: licence.documentId, quantity: 3 } });
  const quote = await api.post('/quotes', {
    data: {
      title: 'Licences for Ana',
      contact: ana,
      card: card.documentId,
      items: [{ product: licence.documentId, quantity: 10 }],
    },
  });
  ids.quote = quote.documentId;
}

/** Tasks: one on the card, one recurring (completed once: its next occurrence exists), one plain. */
async function addTasks({ api }: Fill, cardId: string, ownerMembership: string) {
  await api.post('/tasks', {
    data: { name: 'Call Ana back', card: cardId, dueDate: '2099-03-10T13:00:00Z', priority: 'high' },
  });
  const weekly = await api.post('/tasks', {
    data: { name: 'Weekly review', dueDate: '2099-01-05T12:00:00Z', recurrence: 'weekly', type: 'follow-up' },
  });
  await api.put(`/tasks/${weekly.documentId}/status`, { data: { taskStatus: 'completed' } });
  await api.post('/tasks', { data: { name: 'Update the price list', assignees: [ownerMembership] } });
}

/** A segment, saved filters, a distribution queue. Answers the segment's documentId. */
async function addSegmentFiltersAndQueue({ api, ids }: Fill, boardId: string, ownerMembership: string) {
  const segment = await api.post('/segments', {
    data: {
      name: 'Campinas',
      filters: { logic: 'AND', conditions: [{ field: 'city', op: 'eq', value: 'Campinas' }] },
    },
  });
  ids.segment = segment.documentId;
  await api.post('/saved-filters', {
    data: {
      name: 'Selected b',
      resource: 'cards',
      board: boardId,
      query: { filters: { fields: { f_select: { $eq: 'b' } } }, sort: 'value:desc' },
      visibility: 'organization',
    },
  });
  await api.post('/saved-filters', {
    data: { name: 'From Campinas', resource: 'contacts', query: { filters: { city: { $eq: 'Campinas' } } } },
  });
  await api.post('/distribution-queues', {
    data: {
      name: 'Round robin',
      board: boardId,
      strategy: 'round_robin',
      members: [{ membership: ownerMembership }],
    },
  });
  return segment.documentId as string;
}

/** The WhatsApp channel, with a synced message template and an inbound conversation. */
async function addWhatsAppChannel({ anon, api, wa, n, prefix, ids }: Fill) {
  const waChannel = await api.post('/chat-channels', {
    data: {
      name: 'WhatsApp',
      type: 'whatsapp',
      settings: { phoneNumberId: PHONE_NUMBER_ID, businessAccountId: '2002', appId: '3003' },
      credentials: { accessToken: wa.accessToken, appSecret: APP_SECRET, verifyToken: 'wa-verify' },
    },
  });
  ids.waChannel = waChannel.documentId;
  const chats = await api.post('/boards', { data: { name: 'Chats' } });
  await api.put(`/boards/${chats.documentId}/chat-channels`, { data: { channels: [waChannel.documentId] } });
  wa.templates.set(`promo_${prefix}|pt_BR`, {
    id: `77${n}`,
    name: `promo_${prefix}`,
    language: 'pt_BR',
    category: 'MARKETING',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Oi {{1}}' }],
  });
  await api.post(`/chat-channels/${waChannel.documentId}/templates/sync`);
  const waId = n === 1 ? '5511987650010' : '5511987650020';
  const inbound = wa.messagesWebhook(APP_SECRET, PHONE_NUMBER_ID, [
    { from: waId, id: `wamid.in-${prefix}-1`, name: 'Diego Alves', timestamp: 1767612000, text: 'Oi, quero um orçamento' },
    { from: waId, id: `wamid.in-${prefix}-2`, name: 'Diego Alves', timestamp: 1767612060, text: 'Para 10 licenças' },
  ]);
  const hook = await anon.request('POST', `/webhooks/whatsapp/${waChannel.documentId}`, inbound.body, inbound.headers);
  if (hook.status !== 200) throw new Error(`inbound webhook: ${hook.status} ${hook.bytes}`);
}

/** The e-mail channel, an e-mail template and a campaign to the segment, scheduled (never sent by the fill). */
async function addEmailCampaign({ api, prefix }: Fill, segment: string) {
  const mail = await api.post('/chat-channels', {
    data: {
      name: 'Newsletter',
      type: 'email',
      settings: { fromName: 'Acme News', fromAddress: `news@${prefix}.example` },
    },
  });
  const template = await api.post('/email-templates', {
    data: {
      name: 'News',
      subject: 'Hello {{contact.name}}',
      html: '<html><body><p>Hi {{contact.name}}</p><a href="{{unsubscribeUrl}}">Unsubscribe</a></body></html>',
    },
  });
  await api.post('/campaigns', {
    data: {
      name: 'Spring news',
      channel: mail.documentId,
      segment,
      template: template.documentId,
      scheduledAt: '2099-04-01T12:00:00Z',
    },
  });
}

/** Webhook subscriptions last: no event of the fill is delivered to them (the fixture holds no attempts). */
async function addWebhookSubscriptions({ api }: Fill) {
  await api.post('/webhook-subscriptions', {
    data: { url: 'https://hooks.example.com/crm', events: ['card.created', 'card.phase_changed'] },
  });
  await api.post('/webhook-subscriptions', { data: { url: 'https://hooks.example.com/all', events: ['*'] } });
}

/** Runs the read plan with the token: lists, then the reads of each listed record. */
async function storeReads(base: string, org: OrgInfo): Promise<StoredRead[]> {
  const api = new Client(base, { authorization: `Bearer ${org.token}`, 'x-tenant-id': org.slug });
  const reads: StoredRead[] = [];
  const paths = await READ_PLAN(async (path) => (await api.request('GET', path)).body);
  for (const path of paths) {
    const res = await api.request('GET', path);
    const binary = !res.contentType?.includes('json');
    reads.push({
      path,
      status: res.status,
      ...(binary
        ? { sha256: createHash('sha256').update(res.bytes ?? Buffer.alloc(0)).digest('hex') }
        : { body: res.body }),
    });
  }
  return reads;
}

function startRelease(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['bin/crm.js', 'serve'], {
    cwd: releaseDir,
    env: { ...process.env, CRM_FROM_SOURCE: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr?.on('data', (d) => process.stderr.write(`[${version}] ${d}`));
  return new Promise((resolveStart, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolveStart({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`${version} exited (${code}): ${out}`)));
  });
}

async function stop(child: ChildProcess) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function make(backend: 'pglite' | 'postgres', wa: WhatsAppPeer) {
  const dataDir = mkdtempSync(join(tmpdir(), `crm-fixture-${backend}-`));
  try {
    await makeIn(dataDir, backend, wa);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function makeIn(dataDir: string, backend: 'pglite' | 'postgres', wa: WhatsAppPeer) {
  const dbName = 'crm_upgrade_fixture';
  const adminUrl = `${values.postgres}/postgres`;
  if (backend === 'postgres') {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.query(`create database ${dbName}`);
    await admin.end();
  }
  const { child, url } = await startRelease({
    CRM_DATA_DIR: dataDir,
    ...(backend === 'postgres' ? { DATABASE_URL: `${values.postgres}/${dbName}` } : {}),
    PORT: '0',
    CRM_LOG_LEVEL: 'warn',
    CRM_LOG_FORMAT: 'json',
    RATE_LIMIT_ENABLED: 'false',
    CRM_WHATSAPP_API_URL: wa.url,
    CRM_OUTBOUND_ALLOWLIST: '127.0.0.1',
  });
  const base = url;
  try {
    const anon = new Client(base);
    const orgs = [await fillOrganization(anon, wa, 1), await fillOrganization(anon, wa, 2)];
    const stored = [];
    for (const org of orgs) stored.push({ organization: org.slug, token: org.token, reads: await storeReads(base, org) });
    writeFileSync(
      join(outDir, `reads-${backend}.json`),
      `${JSON.stringify({ release: version, backend, organizations: stored }, null, 1)}\n`,
    );
  } finally {
    await stop(child);
  }
  if (backend === 'pglite') {
    rmSync(join(dataDir, '.crm.lock'), { force: true });
    execFileSync('tar', ['-cJf', join(outDir, 'pglite-data.tar.xz'), '-C', dataDir, '--exclude=./outbox', '.']);
  } else {
    const dump = execFileSync('pg_dump', ['--no-owner', `${values.postgres}/${dbName}`], {
      maxBuffer: 512 * 1024 * 1024,
    });
    writeFileSync(join(outDir, 'postgres.sql.gz'), execFileSync('gzip', ['-9n'], { input: dump, maxBuffer: 512e6 }));
    execFileSync('tar', ['-czf', join(outDir, 'postgres-files.tar.gz'), '-C', dataDir, 'uploads']);
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
  console.log(`${backend}: fixture of ${version} written to ${outDir}`);
}

const wa = await startWhatsAppPeer();
try {
  writeFileSync(join(outDir, 'uploaded-file.bin'), UPLOADED_FILE);
  if (values.backend !== 'postgres') await make('pglite', wa);
  if (values.backend !== 'pglite') await make('postgres', wa);
  // The fixture folder is under test/, which the lint checks: leave the JSON as the formatter writes it.
  execFileSync(join(import.meta.dirname, '../../node_modules/.bin/biome'), ['format', '--write', outDir], {
    stdio: 'inherit',
  });
} finally {
  await wa.close();
}
