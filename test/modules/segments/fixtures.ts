import { expect } from 'vitest';
import type { Res, Tenant } from '../../helpers/app.js';

export interface Fixture {
  t: Tenant;
  teamA: string;
  teamB: string;
  /** a second member (owner of some contacts) */
  sellerId: string;
  ids: Record<string, string>;
}

async function ok<T = any>(res: Promise<Res<T>>, status = 201): Promise<T> {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/**
 * Five contacts covering every field the conditions test. Valid tax ids: CPF 529.982.247-25 and
 * 111.444.777-35, CNPJ 11.222.333/0001-81.
 */
export async function seedContacts(t: Tenant, sellerId: string): Promise<Fixture> {
  const teamA = (await ok(t.api.post('/teams', { data: { name: 'Team A' } }))).documentId;
  const teamB = (await ok(t.api.post('/teams', { data: { name: 'Team B' } }))).documentId;
  const contacts = [
    {
      name: 'Ana Silva',
      email: 'Ana.Silva@Example.com',
      phone: '+55 11 98765-4321',
      address: 'Rua Augusta 100',
      city: 'São Paulo',
      state: 'SP',
      country: 'BR',
      postal_code: '01305-000',
      cpf: '529.982.247-25',
      owner: t.membershipId,
      team: teamA,
      customFields: { plan: 'Gold', source: 'ads', score: 42 },
    },
    {
      name: 'Bruno Costa Ltda',
      email: 'bruno@corp.io',
      contact_type: 'empresa',
      city: 'Rio de Janeiro',
      state: 'RJ',
      country: 'BR',
      cnpj: '11.222.333/0001-81',
      owner: sellerId,
      team: teamB,
      customFields: { plan: 'silver' },
    },
    { name: 'Carla Dias', city: 'São Paulo', state: 'SP', cpf: '11144477735', customFields: { plan: '' } },
    { name: 'Diego 100% Real', email: 'diego_x@example.org', city: 'Curitiba', team: teamA },
    { name: 'Eva Souza', email: 'eva@corp.io', phone: '+1 415 555 0100', country: 'US', owner: sellerId },
  ];
  const ids: Record<string, string> = {};
  for (const c of contacts) {
    const body = await ok(t.api.post('/contacts', { data: c }));
    ids[c.name.split(' ')[0]] = body.documentId;
  }
  return { t, teamA, teamB, sellerId, ids };
}

/** First names of the contacts in a preview / list response, sorted. */
export function names(res: Res): string[] {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data as { name: string }[]).map((c) => c.name.split(' ')[0]).sort();
}

export const cond = (field: string, op: string, value?: unknown) =>
  value === undefined ? { field, op } : { field, op, value };

export function preview(
  t: Tenant,
  conditions: unknown[],
  logic = 'AND',
  extra: Record<string, unknown> = {},
) {
  return t.api.post('/segments/preview', { filters: { logic, conditions }, ...extra });
}
