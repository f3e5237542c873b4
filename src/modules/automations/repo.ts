import { and, eq, sql } from 'drizzle-orm';
import { type Database, queryRows, type Tx } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import { sqlRowMapper } from '../../platform/db/rows.js';
import type { QueryModel } from '../../platform/http/list-query.js';
import type { ActionResult, Condition } from './schema.js';
import { automations, automationRuns as runs } from './table.js';

export const automationModel: QueryModel = {
  table: 'automations',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    enabled: { column: 'enabled', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  privateFields: ['secretSealed'],
};

export type AutomationRow = typeof automations.$inferSelect;
export type AutomationValues = Omit<typeof automations.$inferInsert, 'organizationId' | 'id'>;
type AutomationChange = Partial<Omit<AutomationValues, 'documentId' | 'updatedAt'>>;
export type RunRow = typeof runs.$inferSelect;
export type RunValues = Omit<typeof runs.$inferInsert, 'organizationId' | 'id'>;

const byDocumentId = (orgId: number, documentId: string) =>
  and(eq(automations.organizationId, orgId), eq(automations.documentId, documentId));

export async function findAutomation(
  tx: Tx,
  orgId: number,
  documentId: string,
): Promise<AutomationRow | undefined> {
  const [row] = await tx.select().from(automations).where(byDocumentId(orgId, documentId));
  return row;
}

export async function insertAutomation(tx: Tx, orgId: number, values: AutomationValues) {
  const [row] = await tx
    .insert(automations)
    .values({ organizationId: orgId, ...values })
    .returning();
  return row;
}

/** The changed automation, or undefined when there is none with this documentId. */
export async function updateAutomation(
  tx: Tx,
  orgId: number,
  documentId: string,
  change: AutomationChange,
): Promise<AutomationRow | undefined> {
  const [row] = await tx
    .update(automations)
    .set({ ...change, updatedAt: sql`now()` })
    .where(byDocumentId(orgId, documentId))
    .returning();
  return row;
}

/** Whether there was one to delete (its runs go with it: the foreign key cascades). */
export async function deleteAutomation(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .delete(automations)
    .where(byDocumentId(orgId, documentId))
    .returning({ id: automations.id });
  return row !== undefined;
}

/** The run log's condition for one automation (platform/http/table-pages.ts's logPage). */
export const runsOf = (automationId: number) => eq(runs.automationId, automationId);

/** The fan-out's candidates: the enabled automations of these trigger events, with their board and the plan. */
export function enabledAutomationsFor(tx: Tx, orgId: number, types: string[]) {
  return queryRows<{
    id: number;
    trigger_event: string;
    conditions: Condition[];
    board_id: number | null;
    board_document_id: string | null;
    plan: string;
  }>(
    tx,
    sql`select a.id, a.trigger_event, a.conditions, a.board_id, b.document_id as board_document_id, o.plan
        from automations a
        join organizations o on o.id = a.organization_id
        left join boards b on b.organization_id = a.organization_id and b.id = a.board_id
        where a.organization_id = ${orgId} and a.enabled and a.trigger_event in ${types}
        order by a.id`,
  );
}

/** Run rows, once per automation and event (the key), in chunks of 500. */
export async function insertRuns(tx: Tx, orgId: number, rows: RunValues[]) {
  const values = rows.map((r) => ({ organizationId: orgId, ...r }));
  for (let i = 0; i < values.length; i += 500)
    await tx
      .insert(runs)
      .values(values.slice(i, i + 500))
      .onConflictDoNothing();
}

/** Across organizations (the system connection, this process's namespace): up to 500 with due runs. */
export async function organizationsWithDueRuns(db: Database) {
  const rows = await queryRows<{ organization_id: number }>(
    db.system,
    sql`select distinct organization_id from automation_runs
        where status = 'pending' and next_attempt_at <= now() ${ownOrganizations(db, sql`organization_id`)} limit 500`,
  );
  return rows.map((r) => Number(r.organization_id));
}

const runRow = sqlRowMapper(runs);
const automationRow = sqlRowMapper(automations);

/**
 * The oldest pending run of each record, claimed when due (at most `limit`, oldest first across records): its
 * lease moved to `leaseUntil` and its attempt counted in one statement, which locks it (runner.ts says why not
 * SKIP LOCKED); each with its automation (undefined when deleted), in id order.
 */
export async function claimRunHeads(tx: Tx, orgId: number, limit: number, leaseUntil: Date) {
  const rows = await queryRows<Record<string, unknown> & { automation: Record<string, unknown> | null }>(
    tx,
    sql`update automation_runs r set next_attempt_at = ${leaseUntil}, attempts = r.attempts + 1
        from (select id, automation_id from (select distinct on (subject) id, automation_id, next_attempt_at
                                             from automation_runs where organization_id = ${orgId} and status = 'pending'
                                             order by subject, id) heads
              where next_attempt_at <= now() order by id limit ${limit}) h
          left join automations a on a.organization_id = ${orgId} and a.id = h.automation_id
        where r.organization_id = ${orgId} and r.id = h.id and r.status = 'pending' and r.next_attempt_at <= now()
        returning ${sql.raw(runRow.columnNames.map((c) => `r.${c}`).join(', '))}, to_jsonb(a) as automation`,
  );
  return rows
    .map((raw) => ({
      run: runRow.map(raw),
      automation: raw.automation ? automationRow.map(raw.automation) : undefined,
    }))
    .sort((a, b) => a.run.id - b.run.id);
}

/**
 * A claimed run as its worker holds it: the claim counted `attempts`, so a later claim of the run (another worker,
 * after the lease) no longer matches, and the writes below change nothing for the worker it was taken from.
 */
export interface RunClaim {
  id: number;
  attempts: number;
}

const heldBy = (claim: RunClaim) =>
  sql`id = ${claim.id} and status = 'pending' and attempts = ${claim.attempts}`;

/**
 * Appends one action's result at `index` while the claim still holds the run; whether it did (not when another
 * worker claimed the run since, or a result is already at that index).
 */
export async function appendRunResult(
  tx: Tx,
  orgId: number,
  claim: RunClaim,
  index: number,
  result: ActionResult,
) {
  const rows = await queryRows(
    tx,
    sql`update automation_runs set results = results || ${JSON.stringify([result])}::jsonb
        where organization_id = ${orgId} and ${heldBy(claim)} and jsonb_array_length(results) = ${index}
        returning 1`,
  );
  return rows.length > 0;
}

/** Replaces one action's result (the outcome of a reserved send) while the claim still holds the run; whether it did. */
export async function setRunResult(
  tx: Tx,
  orgId: number,
  claim: RunClaim,
  index: number,
  result: ActionResult,
) {
  const rows = await queryRows(
    tx,
    sql`update automation_runs set results = jsonb_set(results, ${`{${index}}`}::text[], ${JSON.stringify(result)}::jsonb)
        where organization_id = ${orgId} and ${heldBy(claim)} returning 1`,
  );
  return rows.length > 0;
}

/** Moves the leases of runs their worker still works on to `leaseUntil` (those still held by these claims). */
export async function renewRunLeases(tx: Tx, orgId: number, claims: RunClaim[], leaseUntil: Date) {
  await tx.execute(
    sql`update automation_runs r set next_attempt_at = ${leaseUntil}
        from jsonb_to_recordset(${JSON.stringify(claims)}::jsonb) as c(id bigint, attempts integer)
        where r.organization_id = ${orgId} and r.id = c.id and r.attempts = c.attempts and r.status = 'pending'`,
  );
}

/** A run waiting for its retry: due again at `at`, the reason in its message. */
export async function scheduleRunRetry(tx: Tx, orgId: number, claim: RunClaim, at: Date, message: string) {
  await tx.execute(
    sql`update automation_runs set next_attempt_at = ${at}, message = ${message}
        where organization_id = ${orgId} and ${heldBy(claim)}`,
  );
}

export interface RunEndValues {
  id: number;
  /** The claim's attempt: a run claimed again since (by another worker, after the lease) is not ended here. */
  attempts: number;
  status: 'succeeded' | 'failed' | 'skipped';
  message: string | null;
  /** The last action's result and index, recorded with the end (replacing the outcome a reserved send left). */
  idx: number | null;
  result: ActionResult | null;
  reserved: boolean;
}

/** Ended runs in one statement: status, message, end time and each one's last action result; the ids ended. */
export async function recordRunEnds(tx: Tx, orgId: number, ends: RunEndValues[]) {
  // A last result is appended once (a result already at its index, after a crash, is kept), or replaces the
  // outcome a reserved send left.
  const rows = await queryRows<{ id: number }>(
    tx,
    sql`update automation_runs r set
      results = case when v.idx is null then r.results
                     when v.reserved then jsonb_set(r.results, array[v.idx::text], v.result)
                     when jsonb_array_length(r.results) = v.idx then r.results || jsonb_build_array(v.result)
                     else r.results end,
      status = v.status, message = v.message, finished_at = now()
    from jsonb_to_recordset(${JSON.stringify(ends)}::jsonb)
      as v(id bigint, attempts integer, status text, message text, idx integer, result jsonb, reserved boolean)
    where r.organization_id = ${orgId} and r.id = v.id and r.attempts = v.attempts and r.status = 'pending'
    returning r.id`,
  );
  return new Set(rows.map((r) => Number(r.id)));
}

export interface ActorRow {
  user_id: number;
  document_id: string;
  role: string;
  slug: string;
  plan: string;
}

/** The membership an automation acts as, with its organization's slug and plan (the system connection). */
export async function findActor(db: Database, orgId: number, membershipId: number) {
  const rows = await queryRows<ActorRow>(
    db.system,
    sql`select m.user_id, m.document_id, m.role, o.slug, o.plan from memberships m
        join organizations o on o.id = m.organization_id
        where m.organization_id = ${orgId} and m.id = ${membershipId}`,
  );
  return rows[0] as ActorRow | undefined;
}

/** Release 0.1.0's automations with http_request header values in clear (seal-legacy.ts), across organizations. */
export function automationsWithClearHeaders(db: Database) {
  return queryRows<{ organization_id: number; document_id: string; actions: string }>(
    db.system,
    sql`select organization_id, document_id, actions::text as actions from automations
        where jsonb_path_exists(actions, '$[*] ? (@.type == "http_request" && exists(@.params.headers))')`,
  );
}

/** Replaces an automation's actions unless they changed since `before` was read; whether it did. */
export async function replaceActionsIfUnchanged(
  db: Database,
  orgId: number,
  documentId: string,
  before: string,
  next: unknown[],
) {
  const changed = await queryRows(
    db.system,
    sql`update automations set actions = ${JSON.stringify(next)}::jsonb
        where organization_id = ${orgId} and document_id = ${documentId}
          and actions::text = ${before} returning 1`,
  );
  return changed.length > 0;
}
