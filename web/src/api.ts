import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../generated/api-types';
import { localError } from './lib/errors';
import { getSession, setSession } from './session';

export type Schemas = components['schemas'];
export type Conversation = Schemas['Conversation'];
export type ChatMessage = Schemas['ChatMessage'];

/** An error answer of the service: `{ data: null, error: { status, name, message, details } }`. */
export class ApiError extends Error {
  constructor(
    public status: number,
    public name: string,
    message: string,
    public details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Strapi's bracket form, any depth: `filters[currentPhase][documentId][$eq]=x`, `pagination[page]=2`. */
export function bracketQuery(query: Record<string, unknown>): string {
  const out: string[] = [];
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null || value === '') return;
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) add(`${key}[${i}]`, v);
    } else if (typeof value === 'object')
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) add(`${key}[${k}]`, v);
    else out.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  };
  for (const [k, v] of Object.entries(query)) add(k, v);
  return out.join('&');
}

/** The session JWT and the organization header on every call; a 401 ends the session. */
const auth: Middleware = {
  onRequest({ request }) {
    const s = getSession();
    if (s && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${s.jwt}`);
    if (s?.org && !request.headers.has('x-tenant-id')) request.headers.set('x-tenant-id', s.org.slug);
    return request;
  },
  async onResponse({ response, request }) {
    if (response.status === 401 && request.headers.has('authorization')) setSession(null);
    return response;
  },
};

/** The typed client of the public REST API (types generated from its OpenAPI document: generated/api-types.d.ts). */
export const client = createClient<paths>({
  baseUrl: location.origin,
  querySerializer: (q) => bracketQuery(q as Record<string, unknown>),
});
client.use(auth);

type Result<T> = { data?: T; error?: unknown; response: Response };

/** Unwraps an openapi-fetch result: the data, or an ApiError carrying the service's envelope. */
export async function unwrap<T>(p: Promise<Result<T>>): Promise<NonNullable<T>> {
  const { data, error, response } = await p;
  if (response.ok) return data as NonNullable<T>;
  const e = (error as { error?: { status: number; name: string; message: string; details?: any } })?.error;
  throw new ApiError(
    response.status,
    e?.name ?? 'Error',
    e?.message ?? response.statusText,
    e?.details ?? {},
  );
}

/** The reason the service gave, in one line and in the chosen language (lib/errors.ts); a board names phases and fields. */
export function reason(err: unknown, board?: Board): string {
  if (!(err instanceof ApiError)) return String((err as Error)?.message ?? err);
  return localError(err, board);
}

// Loose shapes the pages read (the generated types describe them fully; these keep the pages short).
export interface Field {
  documentId: string;
  label: string;
  slug: string;
  type: string;
  order: number;
  required: boolean;
  placeholder: string | null;
  helpText: string | null;
  defaultValue: string | null;
  options: (string | { value: string; label: string })[];
}
export interface Phase {
  documentId: string;
  name: string;
  slug: string;
  order: number;
  maxTimeInPhaseHours: number | null;
  /** #RGB or #RRGGBB shown on the phase's Kanban column; null: none. */
  color?: string | null;
  fields: Field[];
  allowedTransitions: { phase: { documentId: string }; allowed: boolean }[];
}
export interface Ref {
  documentId: string;
  user?: { username: string; email: string; name?: string | null };
}
export interface Tag {
  documentId: string;
  name: string;
  slug: string;
  color: string | null;
}
export interface Board {
  documentId: string;
  name: string;
  slug: string;
  color: string | null;
  boardSettings: { currency: string; showValue: boolean; wonPhase: string | null; lostPhase: string | null };
  phases: Phase[];
  tags: Tag[];
  owner: Ref | null;
  members: Ref[];
  editors: Ref[];
}
export interface Card {
  documentId: string;
  title: string;
  description: string | null;
  value: number;
  dueDate: string | null;
  currentPhase: { documentId: string; name: string; slug: string; maxTimeInPhaseHours: number | null } | null;
  currentPhaseEnteredAt: string | null;
  assignees: Ref[];
  tags: Tag[];
  contact: { documentId: string; name: string; email: string | null; phone: string | null } | null;
  fields: Record<string, unknown>;
  createdAt: string;
}
export interface CardStats {
  overdueCount: number;
  valueSum: number;
  phaseSlaBreachedCount?: number | null;
}
export interface Page<T> {
  data: T[];
  meta: {
    pagination: { page: number; pageSize: number; pageCount: number; total: number };
    stats?: CardStats;
  };
}

/** A 403 for a plan feature (`details.feature`): the area is not on the organization's plan. */
export const featureOff = (err: unknown): string | null =>
  err instanceof ApiError && err.status === 403 && typeof err.details?.feature === 'string'
    ? (err.details.feature as string)
    : null;
