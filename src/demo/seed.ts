import { randomBytes } from 'node:crypto';
import type { Plan } from '../config.js';
import { lockBoardSlug } from '../modules/boards/repo.js';
import { boardCreateInput } from '../modules/boards/schema.js';
import { createBoard, listBoards } from '../modules/boards/service.js';
import { cardCreateInput } from '../modules/cards/schema.js';
import { createCards } from '../modules/cards/service.js';
import { lazyChannelKit } from '../modules/channels/index.js';
import { contactCreate } from '../modules/contacts/schema.js';
import { createContact } from '../modules/contacts/service.js';
import { findMembershipByUser } from '../modules/organizations/repo.js';
import { membershipInput } from '../modules/organizations/schema.js';
import { addMember, listMemberships } from '../modules/organizations/service.js';
import { categoryInput } from '../modules/product-categories/schema.js';
import { createCategory } from '../modules/product-categories/service.js';
import { productInput } from '../modules/products/schema.js';
import { createProduct } from '../modules/products/service.js';
import { quoteInput } from '../modules/quotes/schema.js';
import { createQuote } from '../modules/quotes/service.js';
import { segmentInput } from '../modules/segments/schema.js';
import { createSegment } from '../modules/segments/service.js';
import { taskInput } from '../modules/tasks/schema.js';
import { createTask } from '../modules/tasks/service.js';
import { findUserByEmail, updateProfile } from '../modules/users/repo.js';
import { register } from '../modules/users/service.js';
import type { Tx } from '../platform/db/client.js';
import type { AppDeps } from '../platform/deps.js';
import { prng } from '../platform/random.js';
import { planFeatures, type Role, type TenantContext } from '../platform/tenancy/context.js';
import {
  DEMO_CATEGORIES,
  DEMO_MEMBERS,
  DEMO_PRODUCTS,
  type DemoContact,
  type DemoDeal,
  demoContacts,
  demoDeals,
} from './data.js';
import { spreadDemoHistory } from './history.js';
import { seedDemoMessaging } from './messaging.js';

/** The board the demo is about; its existence marks a seeded demo (the seed commits all or nothing). */
export const DEMO_BOARD_SLUG = 'funil-de-vendas';
const SEED = 20_240_601;
const DAY = 86_400_000;

interface DemoOrg {
  id: number;
  slug: string;
  plan: string;
  documentId: string;
}

/**
 * A TenantContext of the demo owner whose every service call joins one transaction: the whole seed commits
 * or none of it does (so "the board exists" means "the demo is complete"), and one commit instead of ~500
 * keeps it to seconds on the embedded database. The services still apply every rule of an API write.
 */
function sharedContext(
  tx: Tx,
  fields: Omit<TenantContext, 'transaction' | 'idempotency' | 'dryRun'>,
): TenantContext {
  return { ...fields, idempotency: null, dryRun: false, transaction: (fn) => fn(tx) };
}

/**
 * Demo members are users of this instance: their e-mails carry the organization's random documentId, so a
 * second seed finds them again and never adopts an unrelated user. They get an unknown random password
 * (they exist to be assignees; an operator can add a login with `crm token create --email …`).
 */
async function ensureMemberUsers(deps: AppDeps, org: DemoOrg) {
  const tag = org.documentId.slice(0, 8);
  const out: { email: string; role: Role; userId: number }[] = [];
  for (const m of DEMO_MEMBERS) {
    const local = `${m.first}.${m.last}`.toLowerCase();
    const email = `${local}.${tag}@example.com`;
    const name = `${m.first} ${m.last}`;
    const found = await findUserByEmail(deps.db.system, email);
    // A demo seeded before display names existed gets them; a name the person changed is kept.
    if (found && found.name === null) await updateProfile(deps.db.system, found.id, { name });
    const user =
      found ??
      (
        await register(deps, {
          username: `${local}-${tag}`,
          email,
          password: randomBytes(18).toString('base64url'),
          name,
        })
      ).user;
    out.push({ email, role: m.role, userId: user.id });
  }
  return out;
}

function day(offsetDays: number, hourUtc = 15): Date {
  const d = new Date(Date.now() + offsetDays * DAY);
  d.setUTCHours(hourUtc, 0, 0, 0);
  return d;
}
const isoDate = (d: Date) => d.toISOString().slice(0, 10);

/** Card `fields` for a deal in phase `k` of the funnel: the required answers of every phase it has passed. */
function dealFields(deal: DemoDeal, contact: DemoContact, k: number) {
  const f: Record<string, unknown> = {
    'nome-completo': contact.name,
    email: contact.email,
    telefone: contact.phone,
    documento: contact.cpf ?? contact.cnpj,
    origem: deal.origin,
    consentimento: true,
  };
  if (contact.contact_type === 'empresa') f.empresa = contact.name;
  if (k >= 1) {
    f.orcamento = deal.value;
    f.decisor = deal.value > 20_000;
    f['previsao-fechamento'] = isoDate(day(deal.dueInDays + 10));
    if (deal.needs.length) f.necessidades = deal.needs;
  }
  if (k >= 2 && k <= 4) {
    f['condicao-pagamento'] = deal.payment;
    f.desconto = deal.value > 50_000 ? 10 : 0;
  }
  if (k === 3) f['proxima-reuniao'] = day((Math.abs(deal.dueInDays) % 7) + 1).toISOString();
  if (k === 4) f['assinado-em'] = isoDate(day(-Math.abs(deal.dueInDays)));
  if (k === 5) f['motivo-perda'] = deal.lossReason;
  return f;
}

export interface SeedResult {
  seeded: boolean;
  board: { documentId: string; name: string };
}

/** A card of the demo funnel with its contact (tasks and the quote refer to both). */
interface DemoCard {
  documentId: string;
  contact: string;
  title: string;
}

/**
 * Fills the demo organization (a pt-BR sales funnel with cards, contacts, segments, tasks, products and a
 * quote) unless it is already there. Everything goes through the services with inputs parsed by the API's
 * own schemas, so tax ids, phones, required fields and plan features are checked as for any client.
 */
export async function seedDemoData(deps: AppDeps, org: DemoOrg): Promise<SeedResult> {
  const users = await ensureMemberUsers(deps, org);
  // The secret box seals the demo channels' credentials; read before the transaction (PGlite: one connection).
  const kit = await lazyChannelKit(deps.config, deps.db)();
  return deps.db.tenantTransaction(org.id, async (tx) => {
    // Serialises two seeds of the same demo (`crm seed-demo` beside a starting `crm serve` on PostgreSQL).
    await lockBoardSlug(tx, org.id, DEMO_BOARD_SLUG);
    const ctx = await firstOwnerContext(tx, org);
    const existing = await listBoards(ctx, { filters: { slug: { $eq: DEMO_BOARD_SLUG } } });
    if (existing.data.length) {
      const b = existing.data[0];
      return { seeded: false, board: { documentId: b.documentId, name: b.name } };
    }

    const members = await ensureMemberships(ctx, tx, users);
    const rand = prng(SEED);
    const people = demoContacts(rand);
    const contactIds: string[] = [];
    for (const [i, c] of people.entries()) {
      const input = contactCreate.parse({ ...c, owner: members[i % members.length] });
      contactIds.push((await createContact(ctx, input)).documentId);
    }
    const saoPaulo = await createSegments(ctx);
    const board = await createBoard(
      ctx,
      boardCreateInput.parse({
        name: 'Funil de vendas',
        slug: DEMO_BOARD_SLUG,
        template: 'funil-de-vendas',
        editors: members.slice(1),
      }),
    );
    const cardsByPhase: DemoCard[][] = [];
    for (const [k, phase] of board.phases.entries()) {
      const open = k < 4;
      const deals = demoDeals(rand, people, members.length);
      const created = await createCards(
        ctx,
        board.documentId,
        deals.map((deal) =>
          cardCreateInput.parse({
            title: deal.title,
            value: deal.value,
            currentPhase: phase.slug,
            dueDate: open ? day(deal.dueInDays).toISOString() : null,
            assignees: [members[deal.assigneeIndex]],
            contact: contactIds[deal.contactIndex],
            tags: deal.tags,
            fields: dealFields(deal, people[deal.contactIndex], k),
          }),
        ),
      );
      const cards = created.map((c, i) => ({ ...c, contact: contactIds[deals[i].contactIndex] }));
      cardsByPhase.push(cards);
    }
    await spreadDemoHistory(tx, org.id, board.documentId);
    const products = await createCatalog(ctx);
    await createTasks(deps, ctx, members, cardsByPhase);
    // Quotes are a plan feature: a demo on a plan without it (an operator's choice) gets the rest.
    if (planFeatures[ctx.plan].includes('quotes')) await createQuoteFor(ctx, cardsByPhase[2][0], products);
    await seedDemoMessaging(
      ctx,
      tx,
      kit,
      contactIds.map((documentId, i) => ({ documentId, phone: people[i].phone })),
      saoPaulo,
    );
    return { seeded: true, board: { documentId: board.documentId, name: board.name } };
  });
}

/** The seed acts as the demo's first owner (its writes, timeline entries and quote are theirs). */
async function firstOwnerContext(tx: Tx, org: DemoOrg): Promise<TenantContext> {
  const fields = {
    orgId: org.id,
    orgSlug: org.slug,
    plan: org.plan as Plan,
    userId: 0,
    membershipId: 0,
    membershipDocumentId: '',
    role: 'owner' as const,
    scopes: null,
  };
  const [first] = (
    await listMemberships(sharedContext(tx, fields), {
      filters: { role: { $eq: 'owner' } },
      sort: 'createdAt:asc',
      pagination: { page: 1, pageSize: 1 },
    })
  ).data;
  const ownerUser = first && (await findUserByEmail(tx, first.user.email));
  const owner = ownerUser && (await findMembershipByUser(tx, org.id, ownerUser.id));
  if (!owner) throw new Error('the demo organization has no owner');
  return sharedContext(tx, {
    ...fields,
    userId: ownerUser.id,
    membershipId: owner.id,
    membershipDocumentId: owner.documentId,
  });
}

/** The memberships' documentIds, the seed's owner first; the demo members join unless they already are members. */
async function ensureMemberships(
  ctx: TenantContext,
  tx: Tx,
  users: Awaited<ReturnType<typeof ensureMemberUsers>>,
): Promise<string[]> {
  const members = [ctx.membershipDocumentId];
  for (const u of users) {
    const m = await findMembershipByUser(tx, ctx.orgId, u.userId);
    members.push(
      m?.documentId ??
        (await addMember(ctx, membershipInput.parse({ email: u.email, role: u.role }))).documentId,
    );
  }
  return members;
}

/** The two demo segments; answers the São Paulo one's documentId (the demo campaign's audience). */
async function createSegments(ctx: TenantContext): Promise<string> {
  const saoPaulo = await createSegment(
    ctx,
    segmentInput.parse({
      name: 'Clientes em São Paulo',
      description: 'Contatos com endereço no estado de SP',
      filters: { logic: 'AND', conditions: [{ field: 'state', op: 'eq', value: 'SP' }] },
    }),
  );
  await createSegment(
    ctx,
    segmentInput.parse({
      name: 'Empresas (PJ)',
      description: 'Contatos do tipo empresa, com CNPJ',
      filters: {
        logic: 'AND',
        conditions: [
          { field: 'contact_type', op: 'eq', value: 'empresa' },
          { field: 'cnpj', op: 'notEmpty' },
        ],
      },
    }),
  );
  return saoPaulo.documentId;
}

/** The product categories and products; answers the products' documentIds by SKU. */
async function createCatalog(ctx: TenantContext): Promise<Map<string, string>> {
  const categories = new Map<string, string>();
  for (const name of DEMO_CATEGORIES)
    categories.set(name, (await createCategory(ctx, categoryInput.parse({ name }))).documentId);
  const products = new Map<string, string>();
  for (const p of DEMO_PRODUCTS) {
    const row = await createProduct(
      ctx,
      productInput.parse({
        name: p.name,
        sku: p.sku,
        price: p.price,
        unit: p.unit,
        category: categories.get(p.category),
      }),
    );
    products.set(p.sku, row.documentId);
  }
  return products;
}

/** Tasks on the open deals (some late, one in progress, one done) and the team's weekly funnel review. */
async function createTasks(deps: AppDeps, ctx: TenantContext, members: string[], cardsByPhase: DemoCard[][]) {
  const [qualifying, proposing, negotiating] = [cardsByPhase[1], cardsByPhase[2], cardsByPhase[3]];
  const tasks = [
    { name: 'Ligar para apresentar a proposta', card: proposing[0], due: 1, type: 'follow-up' },
    { name: 'Enviar proposta revisada', card: proposing[1], due: -2, type: 'action', priority: 'high' },
    { name: 'Agendar reunião com o decisor', card: negotiating[0], due: 3, type: 'action' },
    { name: 'Confirmar orçamento', card: qualifying[0], due: -1, type: 'follow-up', status: 'in-progress' },
    { name: 'Registrar ata da reunião', card: negotiating[1], due: -5, type: 'other', status: 'completed' },
  ] as const;
  for (const [i, t] of tasks.entries()) {
    await createTask(
      deps,
      ctx,
      taskInput.parse({
        name: t.name,
        type: t.type,
        card: t.card.documentId,
        dueDate: day(t.due, 13).toISOString(),
        assignees: [members[i % members.length]],
        ...('priority' in t ? { priority: t.priority } : {}),
        ...('status' in t ? { taskStatus: t.status } : {}),
      }),
    );
  }
  await createTask(
    deps,
    ctx,
    taskInput.parse({
      name: 'Revisão semanal do funil',
      description: '<p>Revisar os negócios parados e os atrasados com a equipe.</p>',
      type: 'reminder',
      dueDate: day(((8 - new Date().getUTCDay()) % 7) + 1, 12).toISOString(), // next Monday 12:00 UTC
      assignees: members,
      recurrence: 'weekly',
      recurrenceInterval: 1,
    }),
  );
}

/** A sent quote for a deal in the proposal phase, with items of the catalog. */
async function createQuoteFor(ctx: TenantContext, card: DemoCard, products: Map<string, string>) {
  await createQuote(
    ctx,
    quoteInput.parse({
      title: `Proposta comercial — ${card.title}`,
      status: 'sent',
      validUntil: isoDate(day(15)),
      notes: 'Valores em reais. Pagamento em até 30 dias após a assinatura.',
      card: card.documentId,
      contact: card.contact,
      items: [
        { product: products.get('CRM-PRO'), quantity: 1 },
        { product: products.get('CRM-USER'), quantity: 10, discount: 10 },
        { product: products.get('IMPL-H'), quantity: 20 },
      ],
    }),
  );
}
