import { and, count, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { boards } from '../boards/table.js';
import { boardChatChannels, chatChannels } from './table.js';

export const channelModel: QueryModel = {
  table: 'chat_channels',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    type: { column: 'type', type: 'string', values: ['whatsapp', 'email', 'sms'] },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  privateFields: ['credentials'],
};

export type ChannelRow = typeof chatChannels.$inferSelect;

export async function insertChannel(
  tx: Tx,
  orgId: number,
  values: {
    documentId?: string;
    name: string;
    type: ChannelRow['type'];
    settings: Record<string, unknown>;
    credentials: string | null;
  },
) {
  const [row] = await tx
    .insert(chatChannels)
    .values({ documentId: newDocumentId(), ...values, organizationId: orgId })
    .returning();
  return row;
}

export async function findChannel(tx: Tx, orgId: number, documentId: string, lock = false) {
  const q = tx
    .select()
    .from(chatChannels)
    .where(and(eq(chatChannels.organizationId, orgId), eq(chatChannels.documentId, documentId)));
  const [row] = lock ? await q.for('update') : await q;
  return row as ChannelRow | undefined;
}

export async function findChannelById(tx: Tx, orgId: number, id: number) {
  const [row] = await tx
    .select()
    .from(chatChannels)
    .where(and(eq(chatChannels.organizationId, orgId), eq(chatChannels.id, id)));
  return row as ChannelRow | undefined;
}

export async function listChannels(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(chatChannels.organizationId, orgId), q.where);
  const rows = await tx
    .select()
    .from(chatChannels)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(chatChannels).where(where));
  return { rows, total };
}

export async function updateChannel(tx: Tx, orgId: number, id: number, values: Partial<ChannelRow>) {
  await tx
    .update(chatChannels)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(chatChannels.organizationId, orgId), eq(chatChannels.id, id)));
}

export async function deleteChannel(tx: Tx, orgId: number, id: number) {
  await tx.delete(chatChannels).where(and(eq(chatChannels.organizationId, orgId), eq(chatChannels.id, id)));
}

/** Boards each channel is linked to. */
export async function boardsOfChannels(tx: Tx, orgId: number, channelIds: number[]) {
  const out = new Map<number, { documentId: string; name: string }[]>();
  if (channelIds.length === 0) return out;
  const rows = await tx
    .select({ channelId: boardChatChannels.channelId, documentId: boards.documentId, name: boards.name })
    .from(boardChatChannels)
    .innerJoin(
      boards,
      and(
        eq(boards.organizationId, boardChatChannels.organizationId),
        eq(boards.id, boardChatChannels.boardId),
      ),
    )
    .where(and(eq(boardChatChannels.organizationId, orgId), inArray(boardChatChannels.channelId, channelIds)))
    .orderBy(boards.name);
  for (const r of rows)
    out.set(r.channelId, [...(out.get(r.channelId) ?? []), { documentId: r.documentId, name: r.name }]);
  return out;
}

export async function channelsOfBoard(tx: Tx, orgId: number, boardId: number) {
  return tx
    .select({ channel: chatChannels })
    .from(boardChatChannels)
    .innerJoin(
      chatChannels,
      and(
        eq(chatChannels.organizationId, boardChatChannels.organizationId),
        eq(chatChannels.id, boardChatChannels.channelId),
      ),
    )
    .where(and(eq(boardChatChannels.organizationId, orgId), eq(boardChatChannels.boardId, boardId)))
    .orderBy(chatChannels.name)
    .then((rows) => rows.map((r) => r.channel));
}

export async function channelsByDocumentIds(tx: Tx, orgId: number, documentIds: string[]) {
  if (documentIds.length === 0) return [];
  return tx
    .select()
    .from(chatChannels)
    .where(and(eq(chatChannels.organizationId, orgId), inArray(chatChannels.documentId, documentIds)));
}

export async function replaceBoardChannels(tx: Tx, orgId: number, boardId: number, channelIds: number[]) {
  await tx
    .delete(boardChatChannels)
    .where(and(eq(boardChatChannels.organizationId, orgId), eq(boardChatChannels.boardId, boardId)));
  if (channelIds.length > 0)
    await tx
      .insert(boardChatChannels)
      .values(channelIds.map((channelId) => ({ organizationId: orgId, boardId, channelId })));
}
