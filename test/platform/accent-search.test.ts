import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getApp, newTenant, type Tenant } from '../helpers/app.js';
import { type MessagingEnv, startMessaging } from '../helpers/messaging.js';
import { conversationOf, inbound, inboxSetup, waNumber } from '../modules/inbox/helpers.js';

/**
 * Accent- and case-blind search everywhere a person types (issue 35; src/platform/db/search-fold.ts): the
 * insensitive text operators (`$containsi`, `$notContainsi`, `$startsWithi`, `$endsWithi`) on card titles and
 * contact names, e-mails and cities, the contacts' `q`, the inbox's `q` and its contact picker. "vitoria" finds
 * "Vitória", "acao" finds "Ação", "VITORIA" too; `$contains` stays exact; another organization's "Vitória" never
 * appears. The totals come from the narrow search copies (a sole title/name `$containsi`) or from the rows
 * (any other filter): both are checked.
 */
beforeAll(async () => {
  await getApp();
});

const titles = (res: { body: { data: { title: string }[] } }) => res.body.data.map((c) => c.title).sort();
const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((c) => c.name).sort();

async function boardWith(t: Tenant, cardTitles: string[]) {
  const board = await t.api.post('/boards', {
    data: {
      name: `Busca ${Math.random().toString(36).slice(2, 8)}`,
      phases: [
        { name: 'Aberto', slug: 'aberto' },
        { name: 'Feito', slug: 'feito' },
      ],
    },
  });
  expect(board.status, JSON.stringify(board.body)).toBe(201);
  for (const title of cardTitles) {
    const res = await t.api.post(`/boards/${board.body.documentId}/cards`, { data: { title } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  return {
    id: board.body.documentId as string,
    phase: board.body.phases.find((p: { slug: string }) => p.slug === 'aberto').documentId as string,
  };
}

describe('accent-blind search: card titles', () => {
  let t: Tenant;
  let board: { id: string; phase: string };
  const all = [
    'Vitória Régia',
    'Vitoria sem acento',
    'Ação de cobrança',
    'Outro card',
    '50% de desconto',
    '50 de desconto',
  ];
  /** The page's titles and the total, from the search copy (sole `$containsi`) and from the cards (plus a no-op). */
  const search = async (filters: Record<string, unknown>) => {
    const path = `/boards/${board.id}/cards`;
    const fast = await t.api.get(path, filters);
    const generic = await t.api.get(path, { ...filters, 'filters[title][$notNull]': true });
    expect(fast.status, JSON.stringify(fast.body)).toBe(200);
    expect(generic.status).toBe(200);
    expect(fast.body.meta.pagination.total).toBe(fast.body.data.length);
    expect(generic.body.meta.pagination.total).toBe(generic.body.data.length);
    expect(titles(generic)).toEqual(titles(fast));
    return titles(fast);
  };

  beforeAll(async () => {
    t = await newTenant();
    board = await boardWith(t, all);
    // Another organization's accented titles, on its own board: never counted here.
    const other = await newTenant();
    await boardWith(other, ['Vitória do outro', 'Ação do outro']);
  });

  test('$containsi ignores accents and case, on the text and on the pattern', async () => {
    const vitorias = ['Vitoria sem acento', 'Vitória Régia'];
    for (const q of ['vitoria', 'VITORIA', 'Vitória', 'VITÓRIA', 'vitória'])
      expect(await search({ 'filters[title][$containsi]': q }), q).toEqual(vitorias);
    for (const q of ['acao', 'AÇÃO', 'ação', 'Acao de COBRANCA'])
      expect(await search({ 'filters[title][$containsi]': q }), q).toEqual(['Ação de cobrança']);
    expect(await search({ 'filters[title][$containsi]': 'regia' })).toEqual(['Vitória Régia']);
    expect(await search({ 'filters[title][$containsi]': 'nada disso' })).toEqual([]);
  });

  test('in one phase (the Kanban column): the same matches', async () => {
    expect(
      await search({
        'filters[title][$containsi]': 'vitoria',
        'filters[currentPhase][documentId][$eq]': board.phase,
      }),
    ).toEqual(['Vitoria sem acento', 'Vitória Régia']);
  });

  test('the other insensitive operators are accent-blind too', async () => {
    expect(await search({ 'filters[title][$startsWithi]': 'ACAO' })).toEqual(['Ação de cobrança']);
    expect(await search({ 'filters[title][$endsWithi]': 'COBRANCA' })).toEqual(['Ação de cobrança']);
    expect(await search({ 'filters[title][$notContainsi]': 'vitoria' })).toEqual(
      all.filter((x) => !x.startsWith('Vit')).sort(),
    );
  });

  test('$contains stays exact: case and accents count', async () => {
    expect(await search({ 'filters[title][$contains]': 'Vitória' })).toEqual(['Vitória Régia']);
    expect(await search({ 'filters[title][$contains]': 'Vitoria' })).toEqual(['Vitoria sem acento']);
    expect(await search({ 'filters[title][$contains]': 'vitoria' })).toEqual([]);
    expect(await search({ 'filters[title][$contains]': 'Acao' })).toEqual([]);
  });

  test("LIKE's own characters in the pattern are literal", async () => {
    expect(await search({ 'filters[title][$containsi]': '50%' })).toEqual(['50% de desconto']);
    expect(await search({ 'filters[title][$containsi]': '_' })).toEqual([]);
    // Folding makes `%` of the full-width `％`: escaped after folding, it is still a literal percent sign.
    expect(await search({ 'filters[title][$containsi]': '％' })).toEqual(['50% de desconto']);
  });

  test('the search follows renames and deletes', async () => {
    const extra = await boardWith(t, ['Conceição']);
    const path = `/boards/${extra.id}/cards`;
    const [card] = (await t.api.get(path)).body.data;
    expect(
      (await t.api.get(path, { 'filters[title][$containsi]': 'conceicao' })).body.meta.pagination.total,
    ).toBe(1);
    expect((await t.api.put(`${path}/${card.documentId}`, { data: { title: 'Promoção' } })).status).toBe(200);
    expect(
      (await t.api.get(path, { 'filters[title][$containsi]': 'conceicao' })).body.meta.pagination.total,
    ).toBe(0);
    expect(
      (await t.api.get(path, { 'filters[title][$containsi]': 'PROMOCAO' })).body.meta.pagination.total,
    ).toBe(1);
    expect((await t.api.delete(`${path}/${card.documentId}`)).status).toBe(200);
    expect(
      (await t.api.get(path, { 'filters[title][$containsi]': 'promocao' })).body.meta.pagination.total,
    ).toBe(0);
  });
});

describe('accent-blind search: contacts', () => {
  let t: Tenant;
  let other: Tenant;
  const search = async (tenant: Tenant, query: Record<string, unknown>) => {
    const res = await tenant.api.get('/contacts', query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta.pagination.total).toBe(res.body.data.length);
    return names(res);
  };

  beforeAll(async () => {
    t = await newTenant();
    other = await newTenant();
    for (const data of [
      { name: 'João Conceição', email: 'joao.conceicao@exemplo.com.br', city: 'São Paulo' },
      { name: 'Ana Vitória', email: 'ana@exemplo.com.br', city: 'Florianópolis' },
      { name: 'ANA VITORIA', email: 'ana2@exemplo.com.br' },
      { name: 'Bruno Souza', email: 'bruno@exemplo.com.br', city: 'Sao Paulo' },
    ])
      expect((await t.api.post('/contacts', { data })).status).toBe(201);
    expect(
      (await other.api.post('/contacts', { data: { name: 'Vitória do Outro', city: 'São Paulo' } })).status,
    ).toBe(201);
  });

  test('name $containsi (total from the name search copy, and from the contacts)', async () => {
    for (const q of ['vitoria', 'VITORIA', 'Vitória']) {
      expect(await search(t, { 'filters[name][$containsi]': q }), q).toEqual(['ANA VITORIA', 'Ana Vitória']);
      expect(await search(t, { 'filters[name][$containsi]': q, 'filters[name][$notNull]': true }), q).toEqual(
        ['ANA VITORIA', 'Ana Vitória'],
      );
    }
    expect(await search(t, { 'filters[name][$containsi]': 'joao conceicao' })).toEqual(['João Conceição']);
    expect(await search(other, { 'filters[name][$containsi]': 'vitoria' })).toEqual(['Vitória do Outro']);
  });

  test('e-mail and city $containsi; $contains exact', async () => {
    expect(await search(t, { 'filters[email][$containsi]': 'JOÃO.CONCEIÇÃO@' })).toEqual(['João Conceição']);
    expect(await search(t, { 'filters[city][$containsi]': 'sao paulo' })).toEqual([
      'Bruno Souza',
      'João Conceição',
    ]);
    expect(await search(t, { 'filters[city][$containsi]': 'florianopolis' })).toEqual(['Ana Vitória']);
    expect(await search(t, { 'filters[name][$contains]': 'Vitória' })).toEqual(['Ana Vitória']);
    expect(await search(t, { 'filters[name][$contains]': 'vitoria' })).toEqual([]);
    expect(await search(t, { 'filters[city][$contains]': 'Sao' })).toEqual(['Bruno Souza']);
  });

  test('q: every word, accent- and case-blind, short words included', async () => {
    expect(await search(t, { q: 'joao' })).toEqual(['João Conceição']);
    expect(await search(t, { q: 'CONCEICAO joão' })).toEqual(['João Conceição']);
    expect(await search(t, { q: 'vitória ana' })).toEqual(['ANA VITORIA', 'Ana Vitória']);
    expect(await search(t, { q: 'JOÃO ça' })).toEqual(['João Conceição']);
    expect(await search(t, { q: 'exemplo.com.br joao' })).toEqual(['João Conceição']);
    expect(await search(other, { q: 'vitoria' })).toEqual(['Vitória do Outro']);
  });
});

describe('accent-blind search: the inbox', () => {
  let env: MessagingEnv;
  beforeAll(async () => {
    env = await startMessaging();
  });
  afterAll(async () => env?.close());

  test("conversations' q and the chat contacts' q ignore accents and case; another tenant's never appear", async () => {
    const t = await newTenant(env.app);
    const other = await newTenant(env.app);
    const { channel } = await inboxSetup(env, t, { board: false });
    const { channel: otherChannel } = await inboxSetup(env, other, { board: false });
    const [a, b] = [waNumber(), waNumber()];
    await inbound(env, channel, [
      { from: a, name: 'João Conceição', text: 'oi' },
      { from: b, name: 'Bia', text: 'Preciso de uma PROMOÇÃO' },
    ]);
    await inbound(env, otherChannel, [{ from: waNumber(), name: 'João do Outro', text: 'promoção' }]);
    const ca = await conversationOf(t.api, a);
    const cb = await conversationOf(t.api, b);
    expect(ca).toBeDefined();
    expect(cb).toBeDefined();
    const ids = async (q: string) => {
      const res = await t.api.get('/conversations', { q });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.map((c: { waId: string }) => c.waId).sort();
    };
    expect(await ids('joao')).toEqual([a]);
    expect(await ids('CONCEICAO')).toEqual([a]);
    expect(await ids('promocao')).toEqual([b]);
    expect(await ids('Promoção')).toEqual([b]);
    const found = await t.api.get('/chat-contacts', { q: 'joao conceicao' });
    expect(found.status).toBe(200);
    expect(found.body.data.map((c: { name: string }) => c.name)).toEqual(['João Conceição']);
  });
});
