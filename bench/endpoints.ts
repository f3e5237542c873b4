import autocannon from 'autocannon';
import type { SeedMeta } from './lib.js';

/** What bench/run.ts and bench/ab.ts measure: one request shape per endpoint of the seeded organization. */

export interface Request {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
}
export interface Endpoint {
  name: string;
  label: string;
  read: boolean;
  /** Also measured at one connection: its target is a latency of one request, not a throughput. */
  alsoAtOne?: boolean;
  request: () => Request;
}

/** The bench's requests, in the order they are measured; `only` keeps those named (and the health floor). */
export function endpoints(meta: SeedMeta, only: Set<string> | null = null): Endpoint[] {
  const b = meta.board.documentId;
  const phase = (slug: string) => meta.board.phases.find((p) => p.slug === slug)!.documentId;
  const q = (s: string) => encodeURI(s).replace(/\$/g, '%24');
  let move = 0;
  const movable = meta.board.phases.filter((p) => p.order <= 3);
  return [
    {
      name: 'health',
      label: 'GET /api/health (framework floor)',
      read: true,
      request: () => ({ method: 'GET', path: '/api/health' }),
    },
    {
      name: 'cards-list',
      label: 'card list p1, phase filter + stats',
      read: true,
      request: () => ({
        method: 'GET',
        path: q(
          `/api/boards/${b}/cards?filters[currentPhase][documentId][$eq]=${phase('qualificacao')}&pagination[page]=1&pagination[pageSize]=25`,
        ),
      }),
    },
    {
      name: 'cards-deep',
      label: 'card list page 400',
      read: true,
      request: () => ({
        method: 'GET',
        path: q(`/api/boards/${b}/cards?pagination[page]=400&pagination[pageSize]=25&stats=false`),
      }),
    },
    {
      name: 'cards-filter',
      label: 'card list $containsi title + dynamic field',
      read: true,
      request: () => ({
        method: 'GET',
        path: q(
          `/api/boards/${b}/cards?filters[title][$containsi]=${meta.titleQuery}` +
            `&filters[fieldData][field][slug]=${meta.fieldFilter.slug}&filters[fieldData][value][val]=${meta.fieldFilter.value}&stats=false`,
        ),
      }),
    },
    {
      name: 'cards-title',
      label: `card list $containsi title=${meta.titleQuery} (+ stats)`,
      read: true,
      request: () => ({
        method: 'GET',
        path: q(`/api/boards/${b}/cards?filters[title][$containsi]=${meta.titleQuery}`),
      }),
    },
    {
      name: 'cards-create',
      label: 'card create',
      read: false,
      request: () => ({
        method: 'POST',
        path: `/api/boards/${b}/cards`,
        body: {
          data: {
            title: 'bench create',
            value: 1500,
            fields: { empresa: 'Bench Ltda', origem: 'site', email_contato: 'bench@example.com' },
            tags: ['quente', 'vip'],
          },
        },
      }),
    },
    {
      name: 'cards-move',
      label: 'card move',
      read: false,
      request: () => {
        const i = move++;
        const card = meta.moveCards[i % meta.moveCards.length];
        const target = movable[(i + Math.floor(i / meta.moveCards.length)) % movable.length];
        return {
          method: 'POST',
          path: `/api/boards/${b}/cards/${card}/move`,
          body: { phase: target.documentId },
        };
      },
    },
    {
      name: 'report',
      label: 'board report (all cards)',
      read: true,
      alsoAtOne: true,
      request: () => ({ method: 'GET', path: `/api/boards/${b}/report` }),
    },
    {
      name: 'contacts-q',
      label: `contact search q=${meta.contactQuery}`,
      read: true,
      request: () => ({ method: 'GET', path: `/api/contacts?q=${encodeURIComponent(meta.contactQuery)}` }),
    },
    {
      name: 'contacts-name',
      label: 'contact list $containsi name=silva',
      read: true,
      request: () => ({ method: 'GET', path: q('/api/contacts?filters[name][$containsi]=silva') }),
    },
    {
      name: 'segment-count',
      label: 'segment count (3 conditions)',
      read: true,
      request: () => ({ method: 'GET', path: `/api/segments/${meta.segment.documentId}/count` }),
    },
  ].filter((e) => !only || only.has(e.name) || e.name === 'health') as Endpoint[];
}

export const headers = (meta: SeedMeta) => ({
  authorization: `Bearer ${meta.token}`,
  'x-tenant-id': meta.org.slug,
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

/** `connections` clients sending `ep`'s requests to the service on `port` for `seconds` (autocannon's result). */
export function loadEndpoint(
  port: number,
  meta: SeedMeta,
  ep: Endpoint,
  connections: number,
  seconds: number,
) {
  return load(port, headers(meta), ep.request, connections, seconds);
}
