import type { Api } from '../../helpers/app.js';

/** A board with two phases (entry form first), a few fields and two tags: the usual test fixture. */
export async function createBoard(api: Api, data: Record<string, unknown> = {}) {
  const res = await api.post('/boards', {
    data: {
      name: 'Pipeline',
      phases: [
        {
          name: 'Lead',
          fields: [
            { label: 'Email', type: 'email', required: true },
            { label: 'Size', type: 'select', options: ['small', { value: 'large', label: 'Large' }] },
          ],
        },
        { name: 'Proposal', maxTimeInPhaseHours: 48, fields: [{ label: 'Amount', type: 'currency' }] },
        { name: 'Won' },
      ],
      tags: [
        { name: 'Hot', color: '#f00' },
        { name: 'Cold', color: '#0000ff' },
      ],
      ...data,
    },
  });
  if (res.status !== 201) throw new Error(`board create failed: ${JSON.stringify(res.body)}`);
  return res.body as Board;
}

export interface Board {
  documentId: string;
  slug: string;
  phases: {
    documentId: string;
    slug: string;
    order: number;
    fields: { documentId: string; slug: string }[];
  }[];
  tags: { documentId: string; slug: string }[];
  [key: string]: any;
}

export const errorPaths = (body: any): string[] =>
  (body?.error?.details?.errors ?? []).map((e: { path: unknown[] }) => e.path.join('.'));

/** Body-schema errors carry the `data.` envelope in their path; service errors are relative to `data`. */
export const hasErrorAt = (body: any, path: string) =>
  errorPaths(body).some((p) => p === path || p === `data.${path}`);
