/**
 * Strapi's database filled with the rows our bench measures: the largest organization's main board (its phases
 * and its 200,000 cards) and its 100,000 contacts, copied out of crm_bench and into Strapi's own tables (as
 * Strapi created them: no index added) with `COPY … TO STDOUT | COPY … FROM STDIN` between two psql processes.
 * The rows take the shape Strapi writes itself (seen on a card created through its REST API, and checked by
 * `checkShape` against one): our documentIds and ids, timestamps in UTC without time zone, published_at set
 * (draftAndPublish off), locale and created_by/updated_by null, one row per relation in the link tables (the
 * relations are one-way, card → board, card → phase, phase → board: no inverse order column; bench/strapi.ts
 * says why).
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import type { SeedMeta } from '../lib.js';
import { strapiDatabaseUrl } from './setup.js';

const strapiTables = [
  'cards_board_lnk',
  'cards_phase_lnk',
  'phases_board_lnk',
  'cards',
  'phases',
  'boards',
  'contacts',
];

/** (target table and columns, the SELECT on crm_bench that produces them) */
function copies(meta: SeedMeta): [string, string][] {
  const org = meta.org.id;
  const board = meta.board.id;
  const utc = (col: string) => `(${col} at time zone 'UTC')`;
  const cards = `from cards c where c.organization_id = ${org} and c.board_id = ${board}`;
  return [
    [
      'boards (id, document_id, name, created_at, updated_at, published_at)',
      `select id, document_id, name, ${utc('created_at')}, ${utc('updated_at')}, ${utc('created_at')}
         from boards where organization_id = ${org} and id = ${board}`,
    ],
    [
      'phases (id, document_id, name, slug, position, created_at, updated_at, published_at)',
      `select id, document_id, name, slug, "order", ${utc('created_at')}, ${utc('updated_at')}, ${utc('created_at')}
         from phases where organization_id = ${org} and board_id = ${board}`,
    ],
    [
      'phases_board_lnk (phase_id, board_id)',
      `select id, board_id from phases where organization_id = ${org} and board_id = ${board}`,
    ],
    [
      'cards (id, document_id, title, description, value, due_date, phase_entered_at, creation_source, created_at, updated_at, published_at)',
      `select c.id, c.document_id, left(c.title, 255), c.description, c.value, ${utc('c.due_date')},
              ${utc('c.current_phase_entered_at')}, c.creation_source, ${utc('c.created_at')}, ${utc('c.updated_at')},
              ${utc('c.created_at')}
         ${cards}`,
    ],
    ['cards_board_lnk (card_id, board_id)', `select c.id, c.board_id ${cards}`],
    [
      'cards_phase_lnk (card_id, phase_id)',
      `select c.id, c.current_phase_id ${cards} and c.current_phase_id is not null`,
    ],
    [
      'contacts (id, document_id, name, email, phone, city, cpf, created_at, updated_at, published_at)',
      `select id, document_id, left(name, 255), email, phone, city, cpf, ${utc('created_at')}, ${utc('updated_at')},
              ${utc('created_at')}
         from contacts where organization_id = ${org}`,
    ],
  ];
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Rows our bench reads (the main board's cards, the organization's contacts) in crm_bench. */
async function sourceCounts(crmUrl: string, meta: SeedMeta) {
  return withClient(crmUrl, async (c) => {
    const { rows } = await c.query(
      `select (select count(*) from cards where organization_id = $1 and board_id = $2)::int as cards,
              (select count(*) from contacts where organization_id = $1)::int as contacts`,
      [meta.org.id, meta.board.id],
    );
    return rows[0] as { cards: number; contacts: number };
  });
}

/** The same counts in strapi_bench (the board's cards through its link table), creates of a run left out. */
async function strapiCounts(meta: SeedMeta) {
  return withClient(strapiDatabaseUrl, async (c) => {
    const { rows } = await c.query(
      `select (select count(*) from cards_board_lnk l join boards b on b.id = l.board_id join cards c on c.id = l.card_id
                where b.document_id = $1 and c.title <> 'bench create')::int as cards,
              (select count(*) from contacts)::int as contacts`,
      [meta.board.documentId],
    );
    return rows[0] as { cards: number; contacts: number };
  });
}

/**
 * Copies the rows unless strapi_bench already holds as many as crm_bench (or `force`): Strapi's tables emptied,
 * each table one COPY pipe, the id sequences moved past the copied ids.
 */
export async function seedStrapi(crmUrl: string, meta: SeedMeta, force: boolean, log: (msg: string) => void) {
  const want = await sourceCounts(crmUrl, meta);
  const have = await strapiCounts(meta);
  if (!force && have.cards === want.cards && have.contacts === want.contacts) {
    log(`strapi: strapi_bench already holds ${have.cards} cards and ${have.contacts} contacts`);
    return;
  }
  const started = performance.now();
  await withClient(strapiDatabaseUrl, (c) => c.query(`truncate ${strapiTables.join(', ')} restart identity`));
  for (const [target, select] of copies(meta)) {
    // The statements travel in the environment: nothing in them is parsed by the shell.
    const res = spawnSync(
      'bash',
      ['-c', 'set -o pipefail; psql -X -q "$CRM" -c "$OUT" | psql -X -q "$STRAPI" -c "$IN"'],
      {
        env: {
          ...process.env,
          CRM: crmUrl,
          STRAPI: strapiDatabaseUrl,
          OUT: `COPY (${select}) TO STDOUT`,
          IN: `COPY ${target} FROM STDIN`,
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    if (res.status !== 0) throw new Error(`copy into ${target.split(' ')[0]} failed (exit ${res.status})`);
  }
  await withClient(strapiDatabaseUrl, async (c) => {
    for (const t of strapiTables)
      await c.query(
        `select setval(pg_get_serial_sequence('${t}', 'id'), greatest((select max(id) from ${t}), 1))`,
      );
  });
  const now = await strapiCounts(meta);
  log(
    `strapi: copied ${now.cards} cards and ${now.contacts} contacts into strapi_bench in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  if (now.cards !== want.cards || now.contacts !== want.contacts)
    throw new Error(`strapi_bench holds ${JSON.stringify(now)}, crm_bench ${JSON.stringify(want)}`);
}

/**
 * Whether the copied rows look like the ones Strapi writes: the columns Strapi fills itself (null or not, the
 * documentId's length) and the two relation links, for the newest card its REST API created
 * (the check's create) and the first copied card. Returns the difference, or null when they agree.
 */
export async function checkShape(): Promise<string | null> {
  return withClient(strapiDatabaseUrl, async (c) => {
    const { rows } = await c.query(
      `select c.title = 'bench create' as via_api, length(c.document_id) as document_id_length,
              c.created_at is null as created_at_null, c.updated_at is null as updated_at_null,
              c.published_at is null as published_at_null, c.locale is null as locale_null,
              c.created_by_id is null as created_by_null, c.updated_by_id is null as updated_by_null,
              (select count(*) from cards_board_lnk l where l.card_id = c.id)::int as board_links,
              (select count(*) from cards_phase_lnk l where l.card_id = c.id)::int as phase_links
         from cards c
        where c.id in ((select max(id) from cards where title = 'bench create'),
                       (select min(id) from cards where title <> 'bench create'))
        order by via_api`,
    );
    if (rows.length !== 2)
      return `expected a copied card and one created through the API, found ${rows.length}`;
    const [copied, api] = rows.map(({ via_api: _, ...shape }) => JSON.stringify(shape));
    return copied === api ? null : `copied ${copied}, written by Strapi ${api}`;
  });
}

/** Deletes the cards a run created in Strapi (their link rows go with them: ON DELETE CASCADE). */
export async function removeStrapiCreates(): Promise<number> {
  return withClient(strapiDatabaseUrl, async (c) => {
    const res = await c.query(`delete from cards where title = 'bench create'`);
    return res.rowCount ?? 0;
  });
}

/** VACUUM ANALYZE of a database (the bench server runs with autovacuum off): seconds it took. */
export async function vacuumAnalyze(url: string): Promise<number> {
  const started = performance.now();
  await withClient(url, (c) => c.query('vacuum analyze'));
  return (performance.now() - started) / 1000;
}
