import { sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { queryRows, type Tx } from '../../platform/db/client.js';
import type { AppDeps, WorkerDeps } from '../../platform/deps.js';
import { AppError, type FieldError, validationError } from '../../platform/http/errors.js';
import {
  acceptCsvUploads,
  importFieldOptions,
  importJob,
  importStartQuery,
  MAX_IMPORT_BYTES,
} from '../../platform/imports/http.js';
import { registerImportJobRoutes, startImportJob } from '../../platform/imports/job-routes.js';
import {
  type ImportJobData,
  type ImportKind,
  type ImportRecord,
  importQueue,
  type RowFailure,
  type RunDeps,
  type RunOptions,
  runImportJob,
} from '../../platform/imports/runner.js';
import { workImportQueue } from '../../platform/imports/worker.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import type { BoardStructure } from '../boards/index.js';
import { openBoard } from './board-scope.js';
import { type Actor, insertCards, type PreparedCard } from './insert.js';
import { findPhase, prepareCard } from './prepare.js';
import { type CardCreateInput, cardCreateInput } from './schema.js';

/**
 * The background cards import into one board (docs/cards.md, "Background import"): each CSV row becomes a card
 * create input (title, value, phase by name or slug, dynamic fields by slug, tags, assignee and contact by e-mail)
 * checked by the same code as `POST /boards/{id}/cards` (prepareCard: the board's rules, required fields, field
 * conditions; insertCards: distribution, history, events), run by the platform's import runner in batches that each
 * commit with the job's checkpoint.
 */

export const cardImportQueue = importQueue('card-import');

type Column =
  | { kind: 'title' | 'value' | 'phase' | 'tags' | 'assignee' | 'contact' | 'dueDate' | 'description' }
  | { kind: 'field'; slug: string };

interface State {
  structure: BoardStructure;
  columns: (Column | null)[];
  /** Member e-mail (lowercased) → membership documentId. */
  members: Map<string, string>;
  actor: Actor;
}

const BUILTIN: Record<string, Exclude<Column['kind'], 'field'>> = {
  title: 'title',
  titulo: 'title',
  value: 'value',
  valor: 'value',
  phase: 'phase',
  fase: 'phase',
  tags: 'tags',
  tag: 'tags',
  assignee: 'assignee',
  assignees: 'assignee',
  responsavel: 'assignee',
  contact: 'contact',
  contato: 'contact',
  duedate: 'dueDate',
  due_date: 'dueDate',
  description: 'description',
  descricao: 'description',
};

const normal = (h: string) =>
  h
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase();

/** Header → column: the mapping first (`title`, `fields.<slug>`, `ignore`…), then a built-in name, then a field slug. */
function mapColumns(
  header: string[],
  structure: BoardStructure,
  mapping: Record<string, string> | undefined,
) {
  const errors: FieldError[] = [];
  const resolve = (target: string, path: string[]): Column | null => {
    if (target === 'ignore') return null;
    const field = /^fields\.(.+)$/.exec(target)?.[1] ?? target;
    if (structure.fieldsBySlug.has(field)) return { kind: 'field', slug: field };
    const builtin = BUILTIN[normal(target)];
    if (builtin) return { kind: builtin };
    errors.push({
      path,
      message: `not a card column (title, value, phase, tags, assignee, contact, dueDate, description) nor a field of this board`,
    });
    return null;
  };
  for (const from of Object.keys(mapping ?? {}))
    if (!header.includes(from))
      errors.push({ path: ['mapping', from], message: 'no such column in the file' });
  const columns = header.map((h) => {
    const explicit = mapping && Object.hasOwn(mapping, h) ? mapping[h] : undefined;
    if (explicit !== undefined) return resolve(explicit, ['mapping', h]);
    const slug = /^fields\.(.+)$/.exec(h.trim())?.[1] ?? h.trim();
    if (structure.fieldsBySlug.has(slug)) return { kind: 'field', slug } as Column;
    const builtin = BUILTIN[normal(h)];
    return builtin ? ({ kind: builtin } as Column) : null;
  });
  if (!columns.some((c) => c))
    errors.push({ path: ['file'], message: 'no column of the file is a card column or field' });
  if (errors.length) throw validationError('Invalid column mapping', errors);
  return columns;
}

const list = (v: string) =>
  v
    .split(/\s*[,;|]\s*/)
    .map((s) => s.trim())
    .filter(Boolean);

/** A row's create input and the e-mails it refers to; or the first problem found. */
function toInput(
  r: ImportRecord,
  state: State,
): { input: Record<string, unknown>; contactEmail?: string } | RowFailure {
  const input: Record<string, unknown> = {};
  const fields: Record<string, unknown> = {};
  let contactEmail: string | undefined;
  const fail = (field: string | null, message: string): RowFailure => ({
    row: r.row,
    line: r.line,
    field,
    message,
  });
  for (let i = 0; i < state.columns.length; i++) {
    const col = state.columns[i];
    const v = r.record[i]?.trim();
    if (!col || !v) continue;
    if (v.includes('\u0000'))
      return fail(col.kind === 'field' ? col.slug : col.kind, 'contains a NUL character');
    switch (col.kind) {
      case 'title':
      case 'description':
      case 'dueDate':
        input[col.kind] = v;
        break;
      case 'value': {
        // 1234.5, 1.234,50 (Brazilian) or 1,234.50.
        const plain = /,\d{1,2}$/.test(v) ? v.replace(/\./g, '').replace(',', '.') : v.replace(/,/g, '');
        const n = Number(plain.replace(/^R\$\s*/, ''));
        if (!Number.isFinite(n)) return fail('value', 'must be a number');
        input.value = n;
        break;
      }
      case 'phase': {
        const phase =
          findPhase(state.structure, v) ?? state.structure.phases.find((p) => normal(p.name) === normal(v));
        if (!phase)
          return fail(
            'phase',
            `no phase ${v} on this board; phases: ${state.structure.phases.map((p) => p.slug).join(', ') || '(none)'}`,
          );
        input.currentPhase = phase.documentId;
        break;
      }
      case 'tags': {
        const refs = list(v).map(
          (ref) =>
            state.structure.tags.find((t) => t.slug === ref || normal(t.name) === normal(ref))?.slug ?? ref,
        );
        input.tags = refs;
        break;
      }
      case 'assignee': {
        const ids: string[] = [];
        for (const email of list(v)) {
          const id = state.members.get(email.toLowerCase());
          if (!id) return fail('assignee', `no member of this organization has the e-mail ${email}`);
          ids.push(id);
        }
        input.assignees = ids;
        break;
      }
      case 'contact':
        contactEmail = v.toLowerCase();
        break;
      case 'field': {
        const type = state.structure.fieldsBySlug.get(col.slug)?.type;
        fields[col.slug] = type === 'multiselect' ? list(v) : v;
        break;
      }
    }
  }
  if (Object.keys(fields).length) input.fields = fields;
  return { input, contactEmail };
}

/** The contacts a batch names by e-mail (case-blind; the oldest when several share one). */
async function contactsByEmail(tx: Tx, orgId: number, emails: string[]) {
  if (emails.length === 0) return new Map<string, string>();
  const rows = await queryRows<{ email: string; document_id: string }>(
    tx,
    sql`select distinct on (lower(email)) lower(email) as email, document_id from contacts
        where organization_id = ${orgId} and lower(email) in ${emails} order by lower(email), id`,
  );
  return new Map(rows.map((r) => [r.email, r.document_id]));
}

const firstError = (err: AppError) =>
  (err.details.errors as { path: (string | number)[] }[] | undefined)?.[0];

/** A row past its pure checks: the card's input, and the contact it names (looked up in the batch). */
interface ParsedCard {
  r: ImportRecord;
  input: Record<string, unknown>;
  contactEmail?: string;
}

export const cardImportKind: ImportKind<State, ParsedCard> = {
  queue: cardImportQueue,
  async prepare(tx, ctx, job, header) {
    const boardId = String(job.options.board);
    const scope = await openBoard(tx, ctx, boardId, true);
    const mapping = job.options.mapping as Record<string, string> | undefined;
    const members = await queryRows<{ email: string; document_id: string }>(
      tx,
      sql`select lower(u.email) as email, m.document_id from memberships m join users u on u.id = m.user_id
          where m.organization_id = ${ctx.orgId}`,
    );
    return {
      structure: scope.structure,
      columns: mapColumns(header, scope.structure, mapping),
      members: new Map(members.map((m) => [m.email, m.document_id])),
      actor: { orgId: ctx.orgId, membershipId: ctx.membershipId, ctx },
    };
  },
  parse(state, r) {
    const p = toInput(r, state);
    return 'message' in p ? p : { r, ...p };
  },
  async writeBatch(tx, ctx, state, parsed) {
    const failures: RowFailure[] = [];
    const contacts = await contactsByEmail(tx, ctx.orgId, [
      ...new Set(parsed.flatMap((p) => (p.contactEmail ? [p.contactEmail] : []))),
    ]);
    const prepared: { r: ImportRecord; card: PreparedCard }[] = [];
    for (const p of parsed) {
      if (p.contactEmail) {
        const id = contacts.get(p.contactEmail);
        if (!id) {
          failures.push({
            row: p.r.row,
            line: p.r.line,
            field: 'contact',
            message: `no contact has the e-mail ${p.contactEmail}`,
          });
          continue;
        }
        p.input.contact = id;
      }
      const checked = cardCreateInput.safeParse(p.input);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        failures.push({
          row: p.r.row,
          line: p.r.line,
          field: issue.path.join('.') || null,
          message: issue.message,
        });
        continue;
      }
      try {
        const card = await prepareCard(tx, state.actor, state.structure, checked.data as CardCreateInput, {
          source: 'api',
        });
        prepared.push({ r: p.r, card });
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        const e = firstError(err);
        const field = e ? (e.path[0] === 'fields' ? String(e.path[1]) : String(e.path[0])) : null;
        failures.push({ row: p.r.row, line: p.r.line, field, message: err.message });
      }
    }
    if (prepared.length)
      await insertCards(
        tx,
        state.actor,
        state.structure,
        prepared.map((p) => p.card),
      );
    return { created: prepared.length, updated: 0, failures: failures.sort((a, b) => a.row - b.row) };
  },
};

/** The queue's handler (src/modules/cards/registration.ts). */
export const registerCardImportWorker = (deps: WorkerDeps) => workImportQueue(deps, cardImportKind);

/** For tests: one run of a job with the test hooks of RunOptions. */
export const runCardImport = (deps: RunDeps, data: ImportJobData, opts?: RunOptions) =>
  runImportJob(deps, cardImportKind, data, opts);

const tags = ['Cards'];
const boardParams = z.object({ boardId: z.string().min(1).max(64).describe('board documentId') });
const importParams = boardParams.extend({
  importId: z.string().min(1).max(64).describe('import documentId'),
});

/** The board, for reading (write: may write cards on it); its internal id. */
async function boardOf(ctx: TenantContext, boardId: string, write: boolean) {
  return ctx.transaction(async (tx) => (await openBoard(tx, ctx, boardId, write)).access.board.id);
}

/** Own scope: multipart and the text/csv parser apply to these routes only. */
export const cardImportJobRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  await acceptCsvUploads(app, MAX_IMPORT_BYTES);

  app.post(
    '/boards/:boardId/cards/imports',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        operationId: 'startCardImport',
        summary: 'Start a background CSV import of cards into a board; 202 with the import job',
        description:
          'The CSV as the multipart part `file` (options as multipart fields before it) or a text/csv body. Columns: ' +
          '`title`, `value`, `phase` (name or slug; default the entry phase), `tags` (slugs or names, separated by ' +
          '`,` `;` or `|`), `assignee` and `contact` (by e-mail), `dueDate`, `description`, and any field of the board ' +
          'by its slug (or `fields.<slug>`); `mapping` renames (`mapping[Empresa]=company`, `ignore` skips). Each row ' +
          "is checked as `POST /boards/{id}/cards` checks a card (the board's rules apply); rows with errors are " +
          'reported with their line and skipped. Follow it with `GET /boards/{boardId}/cards/imports/{importId}`.',
        params: boardParams,
        querystring: importStartQuery,
        response: { 202: importJob },
      },
    },
    async (req, reply) => {
      const board = await boardOf(req.tenant, req.params.boardId, true);
      const job = await startImportJob(req, deps, {
        kind: 'cards',
        queue: cardImportQueue,
        fieldOptions: importFieldOptions,
        query: req.query,
        board: { id: board, documentId: req.params.boardId },
      });
      return reply.status(202).send(job);
    },
  );

  registerImportJobRoutes(app, {
    kind: 'cards',
    config: deps.config,
    path: '/boards/:boardId/cards/imports/:importId',
    params: importParams,
    tags,
    operationIds: { get: 'getCardImport', failures: 'listCardImportFailures', cancel: 'cancelCardImport' },
    updates: false,
    locate: async (ctx, params, write) => ({
      importId: params.importId,
      boardId: await boardOf(ctx, params.boardId, write),
    }),
  });
};
