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
        // The long form of a relation: Strapi reads a bare documentId that starts with a digit (this seed's
        // phase `0n0l…`) as a numeric id and answers 400 "Invalid relations".
        body: {
          data: {
            title: 'bench create',
            value: 1500,
            board: { connect: [{ documentId: board }] },
            phase: { connect: [{ documentId: phase }] },
          },
        },
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
