import type { Tx } from '../../platform/db/client.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import {
  accessTo,
  findBoardById,
  loadBoardForRead,
  loadBoardForWrite,
  requireWrite,
} from '../boards/index.js';
import { createChatCard } from '../cards/index.js';
import { contactIdByDocumentId, contactRefsByIds } from '../contacts/index.js';
import { findContactById } from './contacts.js';
import * as repo from './repo.js';
import {
  changeConversation,
  conversationVisibility,
  findInboxOr404,
  loadConversation,
  requireInbox,
} from './service.js';

/**
 * Conversation ↔ card (docs/inbox.md, "Cards"): a conversation has at most one card; reading it needs the
 * conversation, creating or linking one needs write access to the card's board.
 */

export async function getConversationCard(ctx: TenantContext, id: number) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) => {
    const conv = await loadConversation(tx, ctx, id);
    const refs = await repo.cardRefsByIds(tx, ctx.orgId, conv.cardId === null ? [] : [conv.cardId]);
    return { conversationId: id, card: conv.cardId === null ? null : (refs.get(conv.cardId) ?? null) };
  });
}

/** A card the member may write to, by documentId (404 when absent or on a board they cannot see). */
async function writableCard(tx: Tx, ctx: TenantContext, documentId: string) {
  const card = await repo.findCardByDocumentId(tx, ctx.orgId, documentId);
  if (!card) throw notFound('Card');
  const board = await findBoardById(tx, ctx.orgId, card.boardId);
  requireWrite(ctx, await accessTo(tx, ctx, board).catch(() => Promise.reject(notFound('Card'))));
  return card;
}

export async function createConversationCard(
  ctx: TenantContext,
  id: number,
  input: { board?: string; title?: string },
) {
  return changeConversation(ctx, id, async (tx, conv) => {
    if (conv.cardId !== null && (await repo.cardRefsByIds(tx, ctx.orgId, [conv.cardId])).size > 0)
      throw new AppError(
        'UnprocessableEntityError',
        'The conversation already has a card: switch it (POST /conversations/{id}/card/switch) instead',
        { conversationId: id },
      );
    let boardDocumentId = input.board;
    if (!boardDocumentId) {
      const inbox = await findInboxOr404(tx, ctx.orgId, conv.inboxId);
      const [first] = await repo.boardsOfChannels(tx, ctx.orgId, [inbox.channel.id]);
      if (!first)
        throw new AppError(
          'ValidationError',
          "The inbox's channel is linked to no board: name one in board, or link one with PUT /boards/{boardId}/chat-channels",
          { errors: [{ path: ['board'], message: 'required: no linked board', name: 'ValidationError' }] },
        );
      boardDocumentId = first.documentId;
    }
    const access = await loadBoardForWrite(tx, ctx, boardDocumentId);
    const contact =
      conv.contactId === null ? undefined : await findContactById(tx, ctx.orgId, conv.contactId);
    const card = await createChatCard(
      tx,
      ctx.orgId,
      access.board,
      { title: input.title ?? contact?.name ?? `+${conv.waId}`, contact: contact?.documentId ?? null },
      ctx,
    );
    return { cardId: card.id };
  });
}

/** Links a card; `replace` false refuses when the conversation already has one (link vs switch). */
export async function linkConversationCard(
  ctx: TenantContext,
  id: number,
  cardDocumentId: string,
  replace: boolean,
) {
  return changeConversation(ctx, id, async (tx, conv) => {
    if (!replace && conv.cardId !== null && (await repo.cardRefsByIds(tx, ctx.orgId, [conv.cardId])).size > 0)
      throw new AppError(
        'UnprocessableEntityError',
        'The conversation already has a card: use switch (POST /conversations/{id}/card/switch) to replace it',
        { conversationId: id },
      );
    if (replace && conv.cardId === null)
      throw new AppError(
        'UnprocessableEntityError',
        'The conversation has no card to switch: link one (POST /conversations/{id}/card/link)',
        { conversationId: id },
      );
    const card = await writableCard(tx, ctx, cardDocumentId);
    return { cardId: card.id };
  });
}

async function presentChatCards(tx: Tx, orgId: number, rows: Awaited<ReturnType<typeof repo.chatCards>>) {
  const refs = await repo.cardRefsByIds(
    tx,
    orgId,
    rows.map((r) => r.cardId),
  );
  const contacts = await contactRefsByIds(
    tx,
    orgId,
    rows.flatMap((r) => (r.contactId === null ? [] : [r.contactId])),
  );
  return rows.flatMap((r) => {
    const ref = refs.get(r.cardId);
    if (!ref) return [];
    return [
      {
        ...ref,
        contact: r.contactId === null ? null : (contacts.get(r.contactId) ?? null),
        conversationIds: r.conversationIds.map(Number),
      },
    ];
  });
}

/** Cards of a board linked to conversations the reader may see. */
export async function boardChatCards(ctx: TenantContext, boardId: string) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) => {
    const access = await loadBoardForRead(tx, ctx, boardId);
    const rows = await repo.chatCards(tx, ctx.orgId, {
      boardId: access.board.id,
      visibility: conversationVisibility(ctx),
    });
    return { data: await presentChatCards(tx, ctx.orgId, rows) };
  });
}

/** Cards linked to a contact's conversations, on boards the reader may see. */
export async function contactConversationCards(ctx: TenantContext, contactDocumentId: string) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) => {
    const contactId = await contactIdByDocumentId(tx, ctx.orgId, contactDocumentId);
    if (contactId === undefined) throw notFound('Contact');
    const rows = await repo.chatCards(tx, ctx.orgId, { contactId, visibility: conversationVisibility(ctx) });
    const visible = [];
    for (const r of rows) {
      const board = await findBoardById(tx, ctx.orgId, r.boardId);
      if (
        await accessTo(tx, ctx, board).then(
          () => true,
          () => false,
        )
      )
        visible.push(r);
    }
    return { data: await presentChatCards(tx, ctx.orgId, visible) };
  });
}
