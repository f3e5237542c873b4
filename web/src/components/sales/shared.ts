import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api';
import { getLang } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import { useBoardList } from '../../lib/board-queries';
import * as catalogue from '../../words/sales';

/** Products and quotes share one catalogue (web/src/words/sales.ts). */
export const sw = wordsOf(catalogue);
export type SalesWord = keyof typeof catalogue.ptBR;

export const QUOTE_STATUSES = ['draft', 'sent', 'accepted', 'rejected', 'expired'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
export const statusWord = (s: string) => sw(`st_${s}` as SalesWord);

export interface Category {
  documentId: string;
  name: string;
}
export interface Product {
  documentId: string;
  name: string;
  sku: string;
  price: number;
  minPrice: number | null;
  description: string | null;
  unit: string | null;
  active: boolean;
  category: Category | null;
  createdAt: string;
}
export interface QuoteItem {
  documentId: string;
  product: string | null;
  name: string;
  sku: string;
  unit: string | null;
  quantity: number;
  unitPrice: number;
  discount: number;
  total: number;
}
export interface Quote {
  documentId: string;
  number: number;
  title: string | null;
  status: QuoteStatus;
  validUntil: string | null;
  currency: string;
  notes: string | null;
  card: { documentId: string; title: string } | null;
  contact: { documentId: string; name: string } | null;
  owner: { documentId: string; user?: { username: string; name?: string | null } } | null;
  items: QuoteItem[];
  subtotal: number;
  discount: number;
  total: number;
  createdAt: string;
}

/** An amount of money with its cents, in the chosen language (R$ 1.200,50 / R$1,200.50). */
export const money = (v: number, currency: string) =>
  new Intl.NumberFormat(getLang(), { style: 'currency', currency }).format(v);

/** A date-only value (`2026-12-31`) in the chosen language, read as the calendar day it names. */
export const day = (iso: string | null) =>
  iso
    ? new Intl.DateTimeFormat(getLang(), { dateStyle: 'short', timeZone: 'UTC' }).format(
        new Date(`${iso.slice(0, 10)}T00:00:00Z`),
      )
    : '';

/**
 * A typed amount as the chosen language writes it (pt-BR `1.200,50`, English `1,200.50`) as a number; '' is
 * null and a text that is not a number NaN.
 */
export function parseAmount(text: string): number | null {
  const s = text.trim().replace(/\s|R\$|\$|€/g, '');
  if (!s) return null;
  const [group, dec] = getLang() === 'en' ? [',', '.'] : ['.', ','];
  const plain = s.split(group).join('').replace(dec, '.');
  return /^\d+(\.\d+)?$/.test(plain) ? Number(plain) : Number.NaN;
}

/** An amount as a form shows it for editing (no currency sign, the chosen language's decimal mark). */
export const amountText = (v: number | null | undefined) =>
  v == null
    ? ''
    : new Intl.NumberFormat(getLang(), { maximumFractionDigits: 3, useGrouping: false }).format(v);

/**
 * Products carry a bare price (the API has no currency on them): the page shows it in the currency most of the
 * organization's boards use (a quote's default too, as the API's own default is its card's board currency), BRL
 * when there is no board.
 */
export function useOrgCurrency(): string {
  const boards = useBoardList();
  const count = new Map<string, number>();
  for (const b of boards.data ?? []) {
    const c = b.boardSettings?.currency;
    if (c) count.set(c, (count.get(c) ?? 0) + 1);
  }
  return [...count].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'BRL';
}

export function useCategories() {
  return useQuery({
    queryKey: ['product-categories'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/product-categories', {
            params: { query: { pagination: { pageSize: 100 }, sort: 'name:asc' } as never },
          }),
        )
      ).data as unknown as Category[],
  });
}

/**
 * The active products a quote or card line may use (first 100 by name); with a search, those whose name or SKU
 * contains it.
 */
export function useActiveProducts(search = '') {
  const q = search.trim();
  return useQuery({
    queryKey: ['products', 'active', q],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/products', {
            params: {
              query: {
                pagination: { pageSize: 100 },
                sort: 'name:asc',
                filters: {
                  active: { $eq: true },
                  ...(q ? { $or: [{ name: { $containsi: q } }, { sku: { $containsi: q } }] } : {}),
                },
              } as never,
            },
          }),
        )
      ).data as unknown as Product[],
  });
}
