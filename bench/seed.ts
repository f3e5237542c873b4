/**
 * npm run bench:seed [-- --cards 200000 --contacts 100000 --orgs 10 --boards 5 --segments 50 --seed 42 --fresh]
 *
 * A deterministic data set for the benchmarks (docs/performance.md). The structure (users, organizations,
 * memberships, boards with phases/fields/tags, segments) goes through the service's own functions, so it is
 * exactly what the service writes; the bulk rows (cards, contacts, card tags and assignees) go in with
 * multi-row `INSERT … SELECT FROM jsonb_to_recordset(…)` batches in tenant transactions (role crm_app, RLS on),
 * the same columns and normalised values the services write. It writes to the database the service uses
 * (CRM_DATA_DIR or DATABASE_URL) and records what the bench needs in bench/results/seed-meta-<backend>.json.
 */
import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { databaseOptions } from '../src/config.js';
import { compactCounts } from '../src/modules/cards/counts.js';
import { compactReport } from '../src/modules/cards/report-rollups.js';
import { findOrganizationBySlug } from '../src/modules/organizations/repo.js';
import { createSegment } from '../src/modules/segments/service.js';
import { issueToken } from '../src/modules/users/service.js';
import { modules } from '../src/modules.js';
import { sessionSigner } from '../src/platform/auth/tokens.js';
import { type Database, queryRows, type Tx } from '../src/platform/db/client.js';
import { migrateDatabase } from '../src/platform/db/migrate.js';
import type { AppDeps } from '../src/platform/deps.js';
import { instanceSecret } from '../src/platform/secrets/secrets.js';
import {
  backendName,
  benchConfig,
  int,
  metaPath,
  mulberry32,
  numberFlag,
  openBenchDatabase,
  parseFlags,
  pick,
  type Rng,
  type SeedMeta,
  seededDocumentId,
  weighted,
  writeMeta,
} from './lib.js';
import {
  type BenchUser,
  type BoardInfo,
  createBenchOrganization,
  createBoard,
  type Member,
  registerUsers,
} from './seed-structure.js';
import {
  ascii,
  CITIES,
  COMPANY,
  cnpjFor,
  cpfFor,
  DOMAINS,
  FIRST,
  iso,
  LAST,
  ORIGINS,
  PLANS,
  PRODUCT,
  phone,
  STREETS,
  SUFFIX,
  segmentDefinitions,
} from './seed-vocabulary.js';

const flags = parseFlags(process.argv.slice(2));
const opts = {
  cards: numberFlag(flags, 'cards', 200_000),
  contacts: numberFlag(flags, 'contacts', 100_000),
  orgs: Math.max(1, numberFlag(flags, 'orgs', 10)),
  boards: Math.max(1, numberFlag(flags, 'boards', 5)),
  segments: Math.max(1, numberFlag(flags, 'segments', 50)),
  seed: numberFlag(flags, 'seed', 42),
  batch: Math.max(100, numberFlag(flags, 'batch', 2000)),
};
/** The other organizations are small: about 1% of the largest, capped. */
const small = {
  cards: Math.min(2000, Math.max(50, Math.round(opts.cards / 100))),
  contacts: Math.min(1000, Math.max(20, Math.round(opts.contacts / 100))),
  segments: 3,
};
/** Each secondary board of the largest organization (the main board holds `--cards`). */
const secondaryBoardCards = Math.min(1000, Math.max(20, Math.round(opts.cards / 200)));

const DAY = 86_400_000;
const now = Date.now();
const todayStart = Math.floor(now / DAY) * DAY;
const t0 = performance.now();
const log = (msg: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

// ---- bulk rows

async function insertJsonRows(tx: Tx, insert: string, columns: string, rows: unknown[]) {
  return queryRows<{ id: number; document_id: string }>(
    tx,
    sql`${sql.raw(insert)} select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(${sql.raw(columns)})
      ${sql.raw(insert.startsWith('insert into cards') || insert.startsWith('insert into contacts') ? 'returning id, document_id' : '')}`,
  );
}

const CONTACT_INSERT = `insert into contacts (organization_id, document_id, name, email, phone, contact_type, cpf, cnpj,
  address, city, state, country, postal_code, birthdate, first_buy_date, owner_id, owned_at, custom_fields,
  created_at, updated_at)`;
const CONTACT_COLUMNS = `organization_id bigint, document_id text, name text, email text, phone text,
  contact_type text, cpf text, cnpj text, address text, city text, state text, country text, postal_code text,
  birthdate date, first_buy_date date, owner_id bigint, owned_at timestamptz, custom_fields jsonb,
  created_at timestamptz, updated_at timestamptz`;

async function seedContacts(
  db: Database,
  orgId: number,
  count: number,
  members: Member[],
  rng: Rng,
  salt: number,
) {
  for (let start = 0; start < count; start += opts.batch) {
    const rows: Record<string, unknown>[] = [];
    for (let i = start; i < Math.min(count, start + opts.batch); i++) {
      const empresa = rng() < 0.2;
      const [city, state] = pick(rng, CITIES);
      const first = pick(rng, FIRST);
      const last = pick(rng, LAST);
      const name = empresa
        ? `${pick(rng, COMPANY)} ${pick(rng, SUFFIX)}`
        : `${first} ${pick(rng, LAST)} ${last}`;
      const created = now - int(rng, 0, 730) * DAY - int(rng, 0, DAY);
      const owner = rng() < 0.7 ? pick(rng, members) : null;
      rows.push({
        organization_id: orgId,
        document_id: seededDocumentId(rng),
        name,
        email:
          rng() < 0.9 ? `${ascii(empresa ? name : `${first}.${last}`)}.${i}@${pick(rng, DOMAINS)}` : null,
        phone: rng() < 0.85 ? phone(rng) : null,
        contact_type: empresa ? 'empresa' : 'pessoa',
        cpf: empresa ? null : rng() < 0.8 ? cpfFor(i, salt) : null,
        cnpj: empresa ? cnpjFor(i, salt) : null,
        address: `${pick(rng, STREETS)}, ${int(rng, 1, 3000)}`,
        city,
        state,
        country: 'Brasil',
        postal_code: String(int(rng, 1_000_000, 99_999_999)).padStart(8, '0'),
        birthdate: empresa || rng() < 0.4 ? null : iso(now - int(rng, 18 * 365, 80 * 365) * DAY).slice(0, 10),
        first_buy_date: rng() < 0.3 ? iso(created + int(rng, 0, 200) * DAY).slice(0, 10) : null,
        owner_id: owner?.id ?? null,
        owned_at: owner ? iso(created) : null,
        custom_fields: { plano: pick(rng, PLANS), score: int(rng, 0, 100), canal: pick(rng, ORIGINS) },
        created_at: iso(created),
        updated_at: iso(created + int(rng, 0, 30) * DAY),
      });
    }
    await db.tenantTransaction(orgId, (tx) => insertJsonRows(tx, CONTACT_INSERT, CONTACT_COLUMNS, rows));
  }
}

const CARD_INSERT = `insert into cards (organization_id, document_id, board_id, title, description, value, due_date,
  due_date_source, current_phase_id, current_phase_entered_at, contact_id, creation_source, tracking, fields,
  created_at, updated_at)`;
const CARD_COLUMNS = `organization_id bigint, document_id text, board_id bigint, title text, description text,
  value numeric, due_date timestamptz, due_date_source text, current_phase_id bigint,
  current_phase_entered_at timestamptz, contact_id bigint, creation_source text, tracking jsonb, fields jsonb,
  created_at timestamptz, updated_at timestamptz`;
const SOURCES = [
  ['manual', 40],
  ['form', 25],
  ['api', 15],
  ['import', 10],
  ['lead_ads', 5],
  ['automation', 5],
] as const;

function fieldValue(rng: Rng, f: BoardInfo['fields'][number], company: string): unknown {
  switch (f.type) {
    case 'text':
      return company;
    case 'email':
      return `contato@${ascii(company).replace(/\./g, '')}.com.br`;
    case 'select':
      return pick(rng, f.options ?? []);
    case 'phone':
      return phone(rng);
    case 'number':
      return int(rng, 1, 5000);
    case 'multiselect':
      return (f.options ?? []).filter(() => rng() < 0.35);
    case 'switch':
      return rng() < 0.3;
    case 'currency':
      return int(rng, 1000, 500_000);
    case 'date':
      return iso(todayStart + int(rng, -120, 30) * DAY).slice(0, 10);
    case 'datetime':
      return iso(todayStart + int(rng, -30, 120) * DAY + int(rng, 8, 18) * 3_600_000);
    default:
      return null;
  }
}

async function seedCards(
  db: Database,
  orgId: number,
  board: BoardInfo,
  count: number,
  members: Member[],
  contactIds: number[],
  rng: Rng,
) {
  const span = 365 * DAY;
  const phaseWeights = board.phases.map((p) => [p, p.weight] as const);
  let inserted = 0;
  for (let start = 0; start < count; start += opts.batch) {
    const rows: Record<string, unknown>[] = [];
    const links: { tags: number[]; assignees: number[] }[] = [];
    for (let i = start; i < Math.min(count, start + opts.batch); i++) {
      const company = `${pick(rng, COMPANY)} ${pick(rng, SUFFIX)}`;
      // Created over the last year in id order, as a live board accumulates them.
      const created = now - span + Math.floor((i / count) * span) + int(rng, 0, 3_600_000);
      const phase = weighted(rng, phaseWeights);
      const entered = created + Math.floor(rng() * (now - created));
      const due = rng() < 0.8 ? todayStart + int(rng, -60, 90) * DAY + int(rng, 9, 18) * 3_600_000 : null;
      const fields: Record<string, unknown> = {};
      for (const f of board.fields) {
        if (f.phase > phase.order && !(phase.order >= 4)) continue;
        if (rng() < (f.phase === 0 ? 0.95 : 0.7)) fields[f.documentId] = fieldValue(rng, f, company);
      }
      const source = weighted(rng, SOURCES);
      rows.push({
        organization_id: orgId,
        document_id: seededDocumentId(rng),
        board_id: board.id,
        title: `${company} - ${pick(rng, PRODUCT)}`,
        description: rng() < 0.3 ? `<p>Oportunidade de ${pick(rng, PRODUCT)} para ${company}.</p>` : null,
        value: Math.round(rng() * 5_000_000) / 100,
        due_date: due === null ? null : iso(due),
        due_date_source: due === null ? null : 'manual',
        current_phase_id: phase.id,
        current_phase_entered_at: iso(entered),
        contact_id: contactIds.length > 0 && rng() < 0.4 ? pick(rng, contactIds) : null,
        creation_source: source,
        tracking: source === 'form' ? { utm_source: pick(rng, ['google', 'facebook', 'newsletter']) } : {},
        fields,
        created_at: iso(created),
        updated_at: iso(entered),
      });
      const tagCount = weighted(rng, [
        [0, 40],
        [1, 35],
        [2, 18],
        [3, 7],
      ] as const);
      const assigneeCount = weighted(rng, [
        [0, 25],
        [1, 55],
        [2, 15],
        [3, 5],
      ] as const);
      const pickDistinct = (ids: number[], n: number) => {
        const out = new Set<number>();
        while (out.size < Math.min(n, ids.length)) out.add(pick(rng, ids));
        return [...out];
      };
      links.push({
        tags: pickDistinct(
          board.tags.map((t) => t.id),
          tagCount,
        ),
        assignees: pickDistinct(
          members.filter((m) => m.role !== 'viewer').map((m) => m.id),
          assigneeCount,
        ),
      });
    }
    await db.tenantTransaction(orgId, async (tx) => {
      const ids = new Map(
        (await insertJsonRows(tx, CARD_INSERT, CARD_COLUMNS, rows)).map((r) => [r.document_id, r.id]),
      );
      const tagRows: unknown[] = [];
      const assigneeRows: unknown[] = [];
      rows.forEach((r, k) => {
        const cardId = ids.get(r.document_id as string);
        for (const tagId of links[k].tags)
          tagRows.push({ organization_id: orgId, card_id: cardId, tag_id: tagId });
        for (const m of links[k].assignees)
          assigneeRows.push({ organization_id: orgId, card_id: cardId, membership_id: m });
      });
      if (tagRows.length)
        await insertJsonRows(
          tx,
          'insert into card_tags (organization_id, card_id, tag_id)',
          'organization_id bigint, card_id bigint, tag_id bigint',
          tagRows,
        );
      if (assigneeRows.length)
        await insertJsonRows(
          tx,
          'insert into card_assignees (organization_id, card_id, membership_id)',
          'organization_id bigint, card_id bigint, membership_id bigint',
          assigneeRows,
        );
    });
    inserted += rows.length;
    if (count >= 20_000 && (inserted % 20_000 < opts.batch || inserted === count))
      log(`  org ${orgId} board ${board.id}: ${inserted}/${count} cards`);
  }
}

// ---- main

async function freshDatabase() {
  const config = benchConfig();
  if (!config.DATABASE_URL) {
    const dir = databaseOptions(config).dataDir;
    log(`--fresh: removing ${dir}`);
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  const db = await openBenchDatabase(1);
  log('--fresh: dropping the schemas of the PostgreSQL database');
  for (const s of ['public', 'drizzle', 'pgboss'])
    await db.system.execute(sql.raw(`drop schema if exists ${s} cascade`));
  await db.system.execute(sql`create schema public`);
  await db.close();
}

/** What the seed has written so far (a type, not an interface: SeedMeta keeps it as a record). */
type Counts = { organizations: number; boards: number; cards: number; contacts: number; segments: number };

/** What the bench needs to know of the largest organization, its main board and its first segment. */
async function benchMeta(
  db: Database,
  org: { id: number; slug: string },
  mainBoard: BoardInfo,
  counts: Counts,
  benchSegment: { documentId: string; name: string },
): Promise<SeedMeta> {
  const sample = await db.tenantTransaction(org.id, (tx) =>
    queryRows<{ document_id: string }>(
      tx,
      // Cards that may leave every open phase: the entry phase requires `empresa` (5% lack it), and a
      // move of one of those is a correct 422, not a measurement.
      sql`select document_id from cards where organization_id = ${org.id} and board_id = ${mainBoard.id}
        and fields ->> ${mainBoard.fields.find((f) => f.slug === 'empresa')!.documentId} is not null
        order by id limit 2000`,
    ),
  );
  return {
    backend: backendName(),
    seededAt: new Date().toISOString(),
    options: { ...opts },
    counts,
    token: '',
    org: { slug: org.slug, id: org.id },
    board: {
      documentId: mainBoard.documentId,
      id: mainBoard.id,
      phases: mainBoard.phases.map(({ id, documentId, slug, order }) => ({
        id,
        documentId,
        slug,
        order,
      })),
      fields: mainBoard.fields.map(({ documentId, slug, type }) => ({ documentId, slug, type })),
      tags: mainBoard.tags.map(({ documentId, slug }) => ({ documentId, slug })),
    },
    moveCards: sample.map((r) => r.document_id),
    segment: benchSegment,
    contactQuery: 'ana souza',
    titleQuery: 'globex',
    fieldFilter: { slug: 'origem', value: 'indicacao' },
  };
}

/**
 * Organization bench-`o` and everything in it (members, contacts, boards and their cards, segments), added to
 * `counts`; for the largest (o = 0), the bench's record of it.
 */
async function seedOrganization(
  deps: AppDeps,
  users: BenchUser[],
  o: number,
  rng: Rng,
  counts: Counts,
): Promise<SeedMeta | undefined> {
  const { db } = deps;
  const largest = o === 0;
  const { org, ctx, members, ownerMember } = await createBenchOrganization(deps, users, o);

  const contactCount = largest ? opts.contacts : small.contacts;
  await seedContacts(db, org.id, contactCount, members, rng, 7919 * (o + 1));
  const contactIds = (
    await db.tenantTransaction(org.id, (tx) =>
      queryRows<{ id: number }>(
        tx,
        sql`select id from contacts where organization_id = ${org.id} order by id`,
      ),
    )
  ).map((r) => r.id);
  log(`org bench-${o}: ${members.length} members, ${contactCount} contacts`);

  const boardCount = largest ? opts.boards : 1;
  let mainBoard: BoardInfo | undefined;
  for (let b = 0; b < boardCount; b++) {
    const board = await createBoard(ctx, b, ownerMember, members);
    const cardCount = largest ? (b === 0 ? opts.cards : secondaryBoardCards) : small.cards;
    await seedCards(db, org.id, board, cardCount, members, contactIds, rng);
    counts.cards += cardCount;
    if (b === 0) mainBoard = board;
  }
  counts.boards += boardCount;
  counts.contacts += contactCount;

  const segmentCount = largest ? opts.segments : small.segments;
  let benchSegment: { documentId: string; name: string } | undefined;
  for (const def of segmentDefinitions(rng, segmentCount, ownerMember)) {
    const s = await createSegment(ctx, def);
    benchSegment ??= { documentId: s.documentId, name: s.name };
  }
  counts.segments += segmentCount;
  counts.organizations++;
  log(`org bench-${o}: ${boardCount} boards, ${segmentCount} segments`);

  return largest && mainBoard ? benchMeta(db, org, mainBoard, counts, benchSegment!) : undefined;
}

/**
 * The boards have existed for longer than their cards: the report's default range starts at the board's
 * creation, so it covers every seeded card (created over the last 365 days).
 */
async function backdateBoards(db: Database) {
  await db.system.execute(
    sql`update boards set created_at = now() - interval '400 days' where organization_id in
      (select id from organizations where slug like 'bench-%')`,
  );
}

/** Folds the card-count and report deltas the bulk inserts wrote (a reader would on its first list / report). */
async function foldDeltas(db: Database) {
  const seededBoards = await queryRows<{ org: number; board: number }>(
    db.system,
    sql`select organization_id::int as org, id::int as board from boards where organization_id in
      (select id from organizations where slug like 'bench-%')`,
  );
  for (const b of seededBoards)
    for (let pending = 1; pending > 0; ) {
      pending = await db.tenantTransaction(b.org, async (tx) => {
        await compactCounts(tx, b.org, b.board);
        await compactReport(tx, b.org, b.board);
        const [r] = await queryRows<{ n: number }>(
          tx,
          sql`select (select count(*) from card_count_deltas where organization_id = ${b.org} and board_id = ${b.board})
              + (select count(*) from card_report_deltas where organization_id = ${b.org} and board_id = ${b.board})
              as n`,
        );
        return r.n;
      });
    }
}

async function main() {
  if (flags.fresh) await freshDatabase();
  const db = await openBenchDatabase();
  try {
    await migrateDatabase(db, modules);
    if (await findOrganizationBySlug(db.system, 'bench-0')) {
      throw new Error(
        'This database already holds the bench data set (organization bench-0): run with --fresh to start over ' +
          '(it wipes the PGlite data dir / the PostgreSQL database named by DATABASE_URL).',
      );
    }
    const config = benchConfig();
    const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt')));
    const deps = { config, db, signer } as AppDeps;
    const rng = mulberry32(opts.seed);
    log(`seeding ${backendName()}: ${JSON.stringify(opts)}`);

    const users = await registerUsers(deps);
    log('20 users');

    let meta: SeedMeta | undefined;
    const counts: Counts = { organizations: 0, boards: 0, cards: 0, contacts: 0, segments: 0 };
    for (let o = 0; o < opts.orgs; o++) {
      const orgMeta = await seedOrganization(deps, users, o, rng, counts);
      if (orgMeta) meta = orgMeta;
    }
    await backdateBoards(db);
    await foldDeltas(db);
    log('analyze');
    await db.system.execute(sql`vacuum analyze`);
    const { token } = await issueToken(deps, users[0].id, { expiration: '365d', name: 'bench token' });
    meta!.token = token;
    writeMeta(meta!);
    log(`done: ${JSON.stringify(counts)}; meta in ${metaPath()}`);
  } finally {
    await db.close();
  }
}

await main();
