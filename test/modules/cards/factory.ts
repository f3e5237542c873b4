import type { Api } from '../../helpers/app.js';

/**
 * The cards fixture: Lead (entry form: name and email required) → Qualified (budget required to leave,
 * SLA 24 h, may not jump to Lost) → Won / Lost, tags hot and cold.
 */
export async function createPipeline(
  api: Api,
  settings: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  const res = await api.post('/boards', {
    data: {
      name: `Pipeline ${Math.random().toString(36).slice(2, 8)}`,
      phases: [
        {
          name: 'Lead',
          slug: 'lead',
          fields: [
            { label: 'Name', slug: 'name', type: 'text', required: true },
            { label: 'Email', slug: 'email', type: 'email', required: true },
            {
              label: 'Size',
              slug: 'size',
              type: 'select',
              options: ['small', { value: 'large', label: 'Large' }],
            },
            { label: 'Source', slug: 'source', type: 'text', defaultValue: 'website' },
          ],
        },
        {
          name: 'Qualified',
          slug: 'qualified',
          maxTimeInPhaseHours: 24,
          fields: [
            { label: 'Budget', slug: 'budget', type: 'currency', required: true },
            { label: 'Seats', slug: 'seats', type: 'number' },
          ],
        },
        { name: 'Won', slug: 'won' },
        { name: 'Lost', slug: 'lost' },
      ],
      tags: [
        { name: 'Hot', slug: 'hot', color: '#f00' },
        { name: 'Cold', slug: 'cold', color: '#0000ff' },
      ],
      boardSettings: { wonPhase: 'won', lostPhase: 'lost', showValue: true, currency: 'BRL', ...settings },
      ...extra,
    },
  });
  if (res.status !== 201) throw new Error(`board create failed: ${JSON.stringify(res.body)}`);
  const board = res.body;
  const phase = (slug: string) => board.phases.find((p: { slug: string }) => p.slug === slug);
  // Qualified may not jump to Lost.
  const blocked = await api.put(`/boards/${board.documentId}/phases/${phase('qualified').documentId}`, {
    data: { allowedTransitions: [{ phase: phase('lost').documentId, allowed: false }] },
  });
  if (blocked.status !== 200) throw new Error(`transition setup failed: ${JSON.stringify(blocked.body)}`);
  return {
    board,
    boardId: board.documentId as string,
    phase: (slug: string) => phase(slug).documentId as string,
  };
}

export async function createCard(api: Api, boardId: string, data: Record<string, unknown> = {}) {
  const res = await api.post(`/boards/${boardId}/cards`, {
    data: { fields: { name: 'Ana', email: 'ana@example.com' }, ...data },
  });
  if (res.status !== 201) throw new Error(`card create failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

export const errorPaths = (body: any): string[] =>
  (body?.error?.details?.errors ?? []).map((e: { path: unknown[] }) => e.path.join('.'));

/** A multipart body with one part. */
export function multipart(field: string, filename: string, type: string, content: Buffer) {
  const boundary = `----crm${Math.random().toString(16).slice(2)}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
