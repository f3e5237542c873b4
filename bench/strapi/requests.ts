import autocannon from 'autocannon';
import type { Endpoint, Request } from '../endpoints.js';
import type { SeedMeta } from '../lib.js';

/**
 * The five side-by-side requests: ours exactly as bench/endpoints.ts builds them, Strapi's their Strapi v5 REST
 * equivalents on the copied rows (the same documentIds: board, phases, cards and contacts keep ours).
 */
export interface Pair {
  name: 'cards-list' | 'cards-title' | 'contacts-name' | 'cards-create' | 'cards-deep';
  label: string;
  /** The target: ours ÷ Strapi req/s at least this. */
  target: number;
  read: boolean;
  ours: Endpoint;
  strapi: () => Request;
}

const q = (s: string) => encodeURI(s).replace(/\$/g, '%24');

export const pairNames: Pair['name'][] = [
  'cards-list',
  'cards-title',
  'contacts-name',
  'cards-create',
  'cards-deep',
];

export function pairs(meta: SeedMeta, ours: Endpoint[], only: Set<string> | null): Pair[] {
  const board = meta.board.documentId;
  const phase = meta.board.phases.find((p) => p.slug === 'qualificacao')!.documentId;
  const endpoint = (name: string) => ours.find((e) => e.name === name)!;
  const all: Omit<Pair, 'ours'>[] = [
    {
      name: 'cards-list',
      label: 'phase list p1 (25, total)',
      target: 25,
      read: true,
      strapi: () => ({
        method: 'GET',
        path: q(
          `/api/cards?filters[phase][documentId][$eq]=${phase}&pagination[page]=1&pagination[pageSize]=25`,
        ),
      }),
    },
    {
      name: 'cards-title',
      label: `card title $containsi ${meta.titleQuery}`,
      target: 15,
      read: true,
      strapi: () => ({ method: 'GET', path: q(`/api/cards?filters[title][$containsi]=${meta.titleQuery}`) }),
    },
    {
      name: 'contacts-name',
      label: 'contact name $containsi silva',
      target: 10,
      read: true,
      strapi: () => ({ method: 'GET', path: q('/api/contacts?filters[name][$containsi]=silva') }),
    },
    {
      name: 'cards-create',
      label: 'card create',
      target: 4,
      read: false,
      strapi: () => ({
        method: 'POST',
        path: '/api/cards',
        body: { data: { title: 'bench create', value: 1500, board, phase } },
      }),
    },
    {
      name: 'cards-deep',
      label: 'board page 400 (offset 9,975)',
      target: 10,
      read: true,
      strapi: () => ({
        method: 'GET',
        path: q(
          `/api/cards?filters[board][documentId][$eq]=${board}&pagination[page]=400&pagination[pageSize]=25`,
        ),
      }),
    },
  ];
  return all.filter((p) => !only || only.has(p.name)).map((p) => ({ ...p, ours: endpoint(p.name) }) as Pair);
}

export const strapiHeaders = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
});

/**
 * `connections` clients sending `request()`'s requests to 127.0.0.1:`port` for `seconds` (autocannon's result).
 * Every request gets its own copy of `headers`: autocannon's request builder writes a body's `Content-Length` into
 * the headers object setupRequest returns, and with one shared object the create's (116 bytes) stayed in every
 * later request of the process, the GETs included, sent without a body. Node then takes the first 116 bytes of a
 * connection's second request for the first one's body, answers the rest `400 Bad Request` with `Connection:
 * close` and no length, and closes; autocannon reconnects without resetting its parser, which takes everything
 * after as that 400's body (a body without length ends with its connection, an end autocannon never passes on):
 * no further response counted, one request per Strapi keep-alive close (6 s), no error: one request per connection
 * and cell, from the first Strapi GET cell after cards-create on (the run of 2026-11-28; such a cell now fails).
 */
export function load(
  port: number,
  headers: Record<string, string>,
  request: () => Request,
  connections: number,
  seconds: number,
) {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => {
          const r = request();
          return {
            ...req,
            method: r.method,
            path: r.path,
            headers: { ...headers },
            body: r.body ? JSON.stringify(r.body) : undefined,
          };
        },
      },
    ],
  });
}
