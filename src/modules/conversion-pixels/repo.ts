import { and, eq, sql } from 'drizzle-orm';
import { type Database, queryRows, type Tx } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import type { QueryModel } from '../../platform/http/list-query.js';
import { conversionEvents as events, conversionPixels as pixels } from './table.js';

export const pixelModel: QueryModel = {
  table: 'conversion_pixels',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    enabled: { column: 'enabled', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  privateFields: ['accessTokenSealed'],
};

export type PixelRow = typeof pixels.$inferSelect;
export type PixelValues = Omit<typeof pixels.$inferInsert, 'organizationId' | 'id'>;
type PixelChange = Partial<Omit<PixelValues, 'documentId' | 'updatedAt'>>;
export type EventRow = typeof events.$inferSelect;
export type EventValues = Omit<typeof events.$inferInsert, 'organizationId' | 'id'>;

const byDocumentId = (orgId: number, documentId: string) =>
  and(eq(pixels.organizationId, orgId), eq(pixels.documentId, documentId));
const eventById = (orgId: number, id: number) => and(eq(events.organizationId, orgId), eq(events.id, id));

export async function findPixel(tx: Tx, orgId: number, documentId: string): Promise<PixelRow | undefined> {
  const [row] = await tx.select().from(pixels).where(byDocumentId(orgId, documentId));
  return row;
}

export async function findPixelById(tx: Tx, orgId: number, id: number): Promise<PixelRow | undefined> {
  const [row] = await tx
    .select()
    .from(pixels)
    .where(and(eq(pixels.organizationId, orgId), eq(pixels.id, id)));
  return row;
}

export async function insertPixel(tx: Tx, orgId: number, values: PixelValues) {
  const [row] = await tx
    .insert(pixels)
    .values({ organizationId: orgId, ...values })
    .returning();
  return row;
}

export async function updatePixel(tx: Tx, orgId: number, documentId: string, change: PixelChange) {
  const [row] = await tx
    .update(pixels)
    .set({ ...change, updatedAt: sql`now()` })
    .where(byDocumentId(orgId, documentId))
    .returning();
  return row;
}

/** Whether there was one to delete. */
export async function deletePixel(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx.delete(pixels).where(byDocumentId(orgId, documentId)).returning({ id: pixels.id });
  return row !== undefined;
}

/** The event log's condition for one pixel (platform/http/table-pages.ts's logPage). */
export const eventsOf = (pixelId: number) => eq(events.pixelId, pixelId);

/** Log rows (a pixel's trigger reached, a test event); one per pixel and dedup id (the key). */
export async function insertEvents(tx: Tx, orgId: number, rows: EventValues[]) {
  await tx
    .insert(events)
    .values(rows.map((r) => ({ organizationId: orgId, ...r })))
    .onConflictDoNothing();
}

/** A test event's log row (no conflict handling: its dedup id is new each time). */
export async function insertTestEvent(tx: Tx, orgId: number, row: EventValues) {
  await tx.insert(events).values({ organizationId: orgId, ...row });
}

/** The enabled pixels with what the fan-out matches on (their board and phase), and the organization's plan. */
export function enabledPixels(tx: Tx, orgId: number) {
  return queryRows<{
    id: number;
    trigger_type: string;
    board_document_id: string;
    phase_document_id: string | null;
    plan: string;
  }>(
    tx,
    sql`select p.id, p.trigger_type, b.document_id as board_document_id, ph.document_id as phase_document_id, o.plan
        from conversion_pixels p
        join organizations o on o.id = p.organization_id
        join boards b on b.organization_id = p.organization_id and b.id = p.board_id
        left join phases ph on ph.organization_id = p.organization_id and ph.id = p.trigger_phase_id
        where p.organization_id = ${orgId} and p.enabled`,
  );
}

/** What the card tells about its person: the contact's e-mail and phone, and the card's e-mail / phone fields. */
export async function personOfCard(tx: Tx, orgId: number, cardDocumentId: string) {
  const [row] = await queryRows<{
    value: string;
    currency: string;
    email: string | null;
    phone: string | null;
    country: string | null;
    field_emails: string[] | null;
    field_phones: string[] | null;
  }>(
    tx,
    sql`select c.value, b.currency, ct.email, ct.phone, ct.country,
          (select array_agg(c.fields->>f.document_id) from field_definitions f
            where f.organization_id = c.organization_id and f.board_id = c.board_id and f.type = 'email'
              and c.fields ? f.document_id) as field_emails,
          (select array_agg(c.fields->>f.document_id) from field_definitions f
            where f.organization_id = c.organization_id and f.board_id = c.board_id and f.type = 'phone'
              and c.fields ? f.document_id) as field_phones
        from cards c
        join boards b on b.organization_id = c.organization_id and b.id = c.board_id
        left join contacts ct on ct.organization_id = c.organization_id and ct.id = c.contact_id
        where c.organization_id = ${orgId} and c.document_id = ${cardDocumentId}`,
  );
  return row;
}

export type CardPerson = Awaited<ReturnType<typeof personOfCard>>;

/** Across organizations (the system connection, this process's namespace): the oldest 200 due log rows. */
export function dueEvents(db: Database) {
  return queryRows<{ organization_id: number; id: number }>(
    db.system,
    sql`select organization_id, id from conversion_events
        where status = 'pending' and next_attempt_at <= now() ${ownOrganizations(db, sql`organization_id`)}
        order by id limit 200`,
  );
}

/** The log row if still pending, locked (SKIP LOCKED: another worker's claim is passed over). */
export async function lockPendingEvent(tx: Tx, orgId: number, id: number): Promise<EventRow | undefined> {
  const [row] = await tx
    .select()
    .from(events)
    .where(and(eq(events.organizationId, orgId), eq(events.id, id), eq(events.status, 'pending')))
    .for('update', { skipLocked: true });
  return row;
}

export async function updateEvent(
  tx: Tx,
  orgId: number,
  id: number,
  change: Partial<Omit<EventValues, 'pixelId' | 'dedupId'>>,
) {
  await tx.update(events).set(change).where(eventById(orgId, id));
}
