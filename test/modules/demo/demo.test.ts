import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  CARDS_PER_PHASE,
  DEMO_CONTACT_COUNT,
  demoContacts,
  makeCnpj,
  makeCpf,
} from '../../../src/demo/data.js';
import { DEMO_BOARD_SLUG, seedDemoData } from '../../../src/demo/seed.js';
import { parseCnpj, parseCpf } from '../../../src/modules/contacts/documents.js';
import { findOrganizationBySlug } from '../../../src/modules/organizations/repo.js';
import { sessionSigner } from '../../../src/platform/auth/tokens.js';
import type { AppDeps } from '../../../src/platform/deps.js';
import { prng } from '../../../src/platform/random.js';
import { instanceSecret } from '../../../src/platform/secrets/secrets.js';
import { startJobs } from '../../../src/workers.js';
import { getApp, newTenant, type Tenant } from '../../helpers/app.js';

/**
 * The demo content, seeded into a fresh organization of the shared test database (the `demo` slug itself is
 * covered end to end by test/platform/cli.test.ts): what it contains, that a second seed adds nothing, and
 * that no other organization sees it.
 */
let deps: AppDeps;
let t: Tenant;
let boardId: string;

const total = async (path: string, query: Record<string, unknown> = {}) => {
  const res = await t.api.get(path, { 'pagination[pageSize]': '1', ...query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.meta.pagination.total as number;
};

async function counts() {
  return {
    cards: await total(`/boards/${boardId}/cards`, { stats: 'false' }),
    boards: await total('/boards'),
    contacts: await total('/contacts'),
    segments: await total('/segments'),
    tasks: await total('/tasks'),
    products: await total('/products'),
    quotes: await total('/quotes'),
    memberships: await total('/memberships'),
  };
}

beforeAll(async () => {
  const { db, config } = await getApp();
  const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt')));
  const { jobs, mailer, metrics } = await startJobs(config, db, false);
  deps = { config, db, signer, jobs, mailer, metrics };
  t = await newTenant();
  const org = (await findOrganizationBySlug(db.system, t.slug))!;
  const started = Date.now();
  const result = await seedDemoData(deps, org);
  console.log(`demo seed: ${Date.now() - started} ms`);
  expect(result.seeded).toBe(true);
  boardId = result.board.documentId;
}, 300_000);

afterAll(async () => {
  await deps?.jobs.stop();
});

describe('demo data generators', () => {
  test('CPF and CNPJ check digits pass the contacts validator', () => {
    const rand = prng(7);
    for (let i = 0; i < 2000; i++) {
      const cpf = makeCpf(rand);
      const cnpj = makeCnpj(rand);
      expect(parseCpf(cpf), cpf).toBe(cpf);
      expect(parseCnpj(cnpj), cnpj).toBe(cnpj);
    }
    // and the validator does refuse a wrong check digit (the test above can fail)
    const cpf = makeCpf(rand);
    expect(parseCpf(`${cpf.slice(0, 10)}${(Number(cpf[10]) + 1) % 10}`)).toBeNull();
  });

  test('the same seed gives the same contacts', () => {
    expect(demoContacts(prng(42))).toEqual(demoContacts(prng(42)));
    expect(demoContacts(prng(42))).not.toEqual(demoContacts(prng(43)));
  });
});

describe('the seeded demo', () => {
  test('a pt-BR sales funnel in BRL with SLAs, required fields, blocked transitions and tags', async () => {
    const res = await t.api.get(`/boards/${boardId}`);
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({ name: 'Funil de vendas', slug: DEMO_BOARD_SLUG, template: 'funil-de-vendas' });
    expect(b.boardSettings).toMatchObject({ currency: 'BRL', showValue: true });
    expect(b.phases.map((p: any) => p.name)).toEqual([
      'Novo lead',
      'Qualificação',
      'Proposta',
      'Negociação',
      'Ganho',
      'Perdido',
    ]);
    const bySlug = new Map(b.phases.map((p: any) => [p.slug, p]));
    expect(b.boardSettings.wonPhase).toBe((bySlug.get('ganho') as any).documentId);
    expect(b.phases.filter((p: any) => p.maxTimeInPhaseHours).length).toBeGreaterThanOrEqual(4);
    expect(b.phases.filter((p: any) => p.fields.some((f: any) => f.required)).length).toBeGreaterThanOrEqual(
      3,
    );
    expect(b.phases[0].allowedTransitions).toContainEqual({
      phase: { documentId: (bySlug.get('ganho') as any).documentId },
      allowed: false,
    });
    expect(b.tags.map((x: any) => x.slug)).toEqual(expect.arrayContaining(['quente', 'morno', 'frio']));
    expect(b.editors).toHaveLength(3);
  });

  test(`${CARDS_PER_PHASE} cards in every phase, with values, assignees, contacts, tags; some overdue`, async () => {
    const phases = (await t.api.get(`/boards/${boardId}/phases`)).body.data;
    for (const p of phases) {
      expect(
        await total(`/boards/${boardId}/cards`, {
          stats: 'false',
          'filters[currentPhase][slug][$eq]': p.slug,
        }),
        p.slug,
      ).toBe(CARDS_PER_PHASE);
    }
    const overdue = await total(`/boards/${boardId}/cards`, {
      stats: 'false',
      'filters[dueDate][$lt]': new Date().toISOString(),
    });
    expect(overdue).toBeGreaterThan(0);
    const page = await t.api.get(`/boards/${boardId}/cards`, {
      'pagination[pageSize]': '100',
      populate: 'assignees,contact,tags',
      stats: 'false',
    });
    for (const c of page.body.data) {
      expect(c.value).toBeGreaterThan(0);
      expect(c.assignees).toHaveLength(1);
      expect(c.contact?.documentId).toBeTruthy();
      expect(c.tags.length).toBeGreaterThan(0);
    }
  });

  test(`${DEMO_CONTACT_COUNT} contacts, people with a valid CPF and companies with a valid CNPJ`, async () => {
    const res = await t.api.get('/contacts', { 'pagination[pageSize]': '100' });
    expect(res.body.data).toHaveLength(DEMO_CONTACT_COUNT);
    const people = res.body.data.filter((c: any) => c.contact_type === 'pessoa');
    const companies = res.body.data.filter((c: any) => c.contact_type === 'empresa');
    expect(people.length).toBeGreaterThan(0);
    expect(companies.length).toBeGreaterThan(0);
    for (const c of people) expect(parseCpf(c.cpf), c.name).toBe(c.cpf);
    for (const c of companies) expect(parseCnpj(c.cnpj), c.name).toBe(c.cnpj);
    for (const c of res.body.data) expect(c.phone).toMatch(/^\+55\d{10,11}$/);
  });

  test('two segments that match contacts, tasks with a recurring one, products and a quote with items', async () => {
    const segments = (await t.api.get('/segments')).body.data;
    expect(segments).toHaveLength(2);
    for (const s of segments) {
      const count = await t.api.get(`/segments/${s.documentId}/count`);
      expect(count.body.count, s.name).toBeGreaterThan(0);
    }
    const tasks = (await t.api.get('/tasks', { 'pagination[pageSize]': '100' })).body.data;
    expect(tasks.length).toBeGreaterThanOrEqual(5);
    expect(tasks.filter((x: any) => x.recurrence === 'weekly')).toHaveLength(1);
    expect(tasks.filter((x: any) => x.card).length).toBeGreaterThan(0);
    expect(await total('/products')).toBe(5);
    const quotes = (await t.api.get('/quotes')).body.data;
    expect(quotes).toHaveLength(1);
    const quote = (await t.api.get(`/quotes/${quotes[0].documentId}`)).body;
    expect(quote.items).toHaveLength(3);
    expect(quote).toMatchObject({ currency: 'BRL', status: 'sent' });
    expect(quote.total).toBeGreaterThan(0);
    expect(quote.card?.documentId).toBeTruthy();
    expect(quote.contact?.documentId).toBeTruthy();
  });

  test('a history over the last 90 days: the report has a series of days, cards entered their phases over time', async () => {
    const res = await t.api.get(`/boards/${boardId}/report`);
    expect(res.status).toBe(200);
    const days: { date: string; count: number }[] = res.body.createdByDay;
    expect(days.length).toBeGreaterThanOrEqual(40);
    expect(days.reduce((n, d) => n + d.count, 0)).toBe(6 * CARDS_PER_PHASE);
    const oldest = Date.now() - 91 * 86_400_000;
    expect(
      days.every((d) => Date.parse(d.date) >= oldest - 86_400_000 && Date.parse(d.date) <= Date.now()),
    ).toBe(true);
    const page = await t.api.get(`/boards/${boardId}/cards`, { 'pagination[pageSize]': '100' });
    const cards: { createdAt: string; currentPhaseEnteredAt: string }[] = page.body.data;
    expect(cards.every((c) => Date.parse(c.currentPhaseEnteredAt) >= Date.parse(c.createdAt))).toBe(true);
    expect(new Set(cards.map((c) => c.currentPhaseEnteredAt.slice(0, 10))).size).toBeGreaterThan(10);
  });

  test('a campaign sent with engagement and a conversation with messages (issue 31 item 5)', async () => {
    const campaigns = (await t.api.get('/campaigns')).body.data as {
      documentId: string;
      campaignStatus: string;
    }[];
    expect(campaigns).toHaveLength(1);
    expect(campaigns[0].campaignStatus).toBe('completed');
    const stats = await t.api.get(`/campaigns/${campaigns[0].documentId}/stats`);
    expect(stats.status).toBe(200);
    const s = stats.body.stats;
    expect(s.sent).toBeGreaterThan(0);
    expect(s.readRate).toBeGreaterThan(0.2);
    expect(s.readRate).toBeLessThan(0.9);
    const recipients = (
      await t.api.get(`/campaigns/${campaigns[0].documentId}/recipients`, { 'pagination[pageSize]': '100' })
    ).body.data as { status: string; skipReason: string | null }[];
    expect(recipients.some((r) => r.status === 'skipped' && r.skipReason === 'no_consent')).toBe(true);
    expect(recipients.filter((r) => r.status === 'sent')).toHaveLength(s.sent);

    const conversations = (await t.api.get('/conversations')).body.data as { id: number; contact: unknown }[];
    expect(conversations).toHaveLength(1);
    expect(conversations[0].contact).toBeTruthy();
    const messages = (await t.api.get(`/conversations/${conversations[0].id}/messages`)).body.data as {
      direction: string;
    }[];
    expect(messages.map((m) => m.direction).sort()).toEqual(['incoming', 'incoming', 'outgoing']);
  });

  test("the demo's members have display names (issue 31 item 4)", async () => {
    const members = (await t.api.get('/memberships')).body.data;
    const names = members.map((m: { user: { name: string | null } }) => m.user.name);
    expect(names).toEqual(expect.arrayContaining(['Ana Souza', 'Bruno Lima', 'Carla Mendes']));
  });

  test('seeding again adds nothing and names the same board', async () => {
    const before = await counts();
    expect(before).toMatchObject({
      cards: 6 * CARDS_PER_PHASE,
      contacts: DEMO_CONTACT_COUNT,
      memberships: 4,
    });
    const org = (await findOrganizationBySlug(deps.db.system, t.slug))!;
    const again = await seedDemoData(deps, org);
    expect(again).toEqual({ seeded: false, board: { documentId: boardId, name: 'Funil de vendas' } });
    expect(await counts()).toEqual(before);
  });

  test('another organization sees none of it', async () => {
    const other = await newTenant();
    expect((await other.api.get(`/boards/${boardId}`)).status).toBe(404);
    expect((await other.api.get(`/boards/${boardId}/cards`)).status).toBe(404);
    expect((await other.api.get('/contacts')).body.data).toEqual([]);
    expect((await other.api.get('/segments')).body.data).toEqual([]);
    expect((await other.api.get('/quotes')).body.data).toEqual([]);
  });
});
