import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { unzipSync } from 'fflate';
import { runPrivacyRequest } from '../../../src/modules/privacy/worker.js';
import { queryRows } from '../../../src/platform/db/client.js';
import { type Api, getApp, type Tenant } from '../../helpers/app.js';
import { multipart } from '../cards/factory.js';

/** A person of the tests: unique name, e-mail, phone and a valid CPF per call. */
export function person() {
  const tag = randomBytes(3).toString('hex');
  const digits = Array.from({ length: 9 }, () => Math.floor(Math.random() * 10));
  const check = (ds: number[]) => {
    const sum = ds.reduce((s, d, i) => s + d * (ds.length + 1 - i), 0);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  digits.push(check(digits));
  digits.push(check(digits));
  const cpf = digits.join('');
  const local = String(10_000_000 + Math.floor(Math.random() * 89_999_999));
  return {
    name: `Joana Prudência ${tag.toUpperCase()}vasconcelos`,
    email: `joana.${tag}@privacy.example`,
    phone: `+55119${local}`,
    cpf,
    cpfFormatted: `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`,
  };
}
export type Person = ReturnType<typeof person>;

export async function createPerson(api: Api, p: Person, extra: Record<string, unknown> = {}) {
  const res = await api.post('/contacts', {
    data: { name: p.name, email: p.email, phone: p.phone, cpf: p.cpfFormatted, city: 'Recife', ...extra },
  });
  if (res.status !== 201) throw new Error(`contact create failed: ${JSON.stringify(res.body)}`);
  return res.body.documentId as string;
}

/** Runs a request's job as a worker would (the shared test app runs none); `schedule` is recorded. */
export async function runRequest(t: Tenant, documentId: string, deps?: { config?: unknown; db?: unknown }) {
  const ctx = await getApp();
  const [row] = await queryRows<{ organization_id: number; id: number }>(
    ctx.db.system,
    sql`select organization_id, id from privacy_requests where document_id = ${documentId}`,
  );
  const scheduled: { data: unknown; at: Date }[] = [];
  const jobs = {
    schedule: async (_q: unknown, data: unknown, at: Date) => {
      scheduled.push({ data, at });
      return 'x';
    },
  };
  await runPrivacyRequest(
    { db: (deps?.db ?? ctx.db) as never, config: (deps?.config ?? ctx.config) as never, jobs: jobs as never },
    { orgId: Number(row.organization_id), requestId: Number(row.id), userId: t.user.id },
  );
  return { scheduled };
}

/** The zip's entries as text (files as bytes). */
export function unzip(body: Buffer) {
  const entries = unzipSync(new Uint8Array(body));
  const text = (name: string) => new TextDecoder().decode(entries[name]);
  return { entries, text, json: (name: string) => JSON.parse(text(name)) };
}

/** A board with a text, an e-mail and a file field; a card of the person with values and a file. */
export async function personCard(t: Tenant, contact: string, p: Person) {
  const board = await t.api.post('/boards', {
    data: {
      name: 'Deals',
      phases: [
        {
          name: 'Entry',
          fields: [
            { label: 'Who', slug: 'who', type: 'text' },
            { label: 'Mail', slug: 'mail', type: 'email' },
            { label: 'Doc', slug: 'doc', type: 'file' },
          ],
        },
      ],
    },
  });
  const boardId = board.body.documentId;
  const body = multipart('file', 'rg.pdf', 'application/pdf', Buffer.from(`%PDF-1.4 ${p.name}`));
  const up = await t.app.inject({ method: 'POST', url: `/api/boards/${boardId}/public-upload`, ...body });
  if (up.statusCode !== 201) throw new Error(up.body);
  const card = await t.api.post(`/boards/${boardId}/cards`, {
    data: {
      title: `Deal with ${p.name}`,
      contact,
      fields: { who: `${p.name} (${p.phone})`, mail: p.email, doc: up.json().documentId },
    },
  });
  if (card.status !== 201) throw new Error(JSON.stringify(card.body));
  return { boardId, cardId: card.body.documentId as string };
}
