import { describe, expect, test } from 'vitest';
import { addMember, newTenant } from '../../helpers/app.js';
import { createCard, createPipeline } from '../cards/factory.js';

/** A comment's mentions notify the members who can read the card (docs/jobs-mail-tasks.md, "Notifications"). */

const commentsOf = (boardId: string, cardId: string) => `/boards/${boardId}/cards/${cardId}/comments`;

describe('mention notifications', () => {
  test('a mention notifies the mentioned member once, with the author, the card and an excerpt', async () => {
    const t = await newTenant();
    const ana = await addMember(t, 'member');
    const bia = await addMember(t, 'member');
    const { boardId } = await createPipeline(t.api, {}, { editors: [ana.membershipId, bia.membershipId] });
    const card = await createCard(t.api, boardId, { title: 'Proposta Globex' });

    const made = await ana.api.post(commentsOf(boardId, card.documentId), {
      data: {
        content: '<p>Olá <strong>Bia</strong> &amp; time,</p><p>veja a proposta</p>',
        contentFormat: 'html',
        mentions: [bia.membershipId, ana.membershipId],
      },
    });
    expect(made.status).toBe(201);

    const list = await bia.api.get('/notifications', { unread: 'true' });
    expect(list.status).toBe(200);
    expect(list.body.meta.pagination.total).toBe(1);
    const n = list.body.data[0];
    expect(n).toMatchObject({
      type: 'comment_mention',
      body: 'Olá Bia & time, veja a proposta',
      subject: {
        kind: 'card',
        documentId: card.documentId,
        label: 'Proposta Globex',
        boardDocumentId: boardId,
        commentDocumentId: made.body.documentId,
      },
      actor: { documentId: ana.membershipId, user: { email: ana.user.email } },
      read: false,
    });
    expect(n.title).toContain('Proposta Globex');
    // The author mentioned herself: nothing for her; the owner was not mentioned: nothing for them.
    expect((await ana.api.get('/notifications')).body.meta.pagination.total).toBe(0);
    expect((await t.api.get('/notifications')).body.meta.pagination.total).toBe(0);

    // An edit that keeps the mention notifies nobody again; one that adds the owner notifies the owner only.
    const path = `${commentsOf(boardId, card.documentId)}/${made.body.documentId}`;
    expect(
      (await ana.api.put(path, { data: { content: 'veja a proposta', mentions: [bia.membershipId] } }))
        .status,
    ).toBe(200);
    expect((await bia.api.get('/notifications')).body.meta.pagination.total).toBe(1);
    expect((await ana.api.put(path, { data: { mentions: [bia.membershipId, t.membershipId] } })).status).toBe(
      200,
    );
    expect((await bia.api.get('/notifications')).body.meta.pagination.total).toBe(1);
    const owner = await t.api.get('/notifications');
    expect(owner.body.meta.pagination.total).toBe(1);
    expect(owner.body.data[0]).toMatchObject({ type: 'comment_mention', body: 'veja a proposta' });
  });

  test('a member who cannot read the card is not notified (board access, assignee-only boards)', async () => {
    const t = await newTenant();
    const ana = await addMember(t, 'member');
    const outsider = await addMember(t, 'member');
    const narrowed = await addMember(t, 'member');
    const admin = await addMember(t, 'admin');
    const { boardId } = await createPipeline(
      t.api,
      { restrictViewToAssignees: true },
      { editors: [ana.membershipId, narrowed.membershipId] },
    );
    const card = await createCard(t.api, boardId, { assignees: [ana.membershipId] });
    const res = await ana.api.post(commentsOf(boardId, card.documentId), {
      data: {
        content: 'secret terms',
        mentions: [outsider.membershipId, narrowed.membershipId, admin.membershipId],
      },
    });
    expect(res.status).toBe(201);
    // The mention is kept on the comment, but only the admin (who sees every card) hears of it.
    expect(res.body.mentions).toHaveLength(3);
    expect((await outsider.api.get('/notifications')).body.meta.pagination.total).toBe(0);
    expect((await narrowed.api.get('/notifications')).body.meta.pagination.total).toBe(0);
    expect((await admin.api.get('/notifications')).body.meta.pagination.total).toBe(1);

    // A board member of kind 'member' and a viewer-role board member read the card on an open board, as does a
    // non-admin board owner on an assignee-only board without being assigned.
    const reader = await addMember(t, 'member');
    const viewer = await addMember(t, 'viewer');
    const boardOwner = await addMember(t, 'member');
    const open = await createPipeline(
      t.api,
      {},
      { editors: [ana.membershipId], members: [reader.membershipId, viewer.membershipId] },
    );
    const openCard = await createCard(t.api, open.boardId);
    await ana.api.post(commentsOf(open.boardId, openCard.documentId), {
      data: { content: 'open board', mentions: [reader.membershipId, viewer.membershipId] },
    });
    expect((await reader.api.get('/notifications')).body.meta.pagination.total).toBe(1);
    expect((await viewer.api.get('/notifications')).body.meta.pagination.total).toBe(1);
    expect((await t.api.put(`/boards/${boardId}`, { data: { owner: boardOwner.membershipId } })).status).toBe(
      200,
    );
    await ana.api.post(commentsOf(boardId, card.documentId), {
      data: { content: 'for the owner', mentions: [boardOwner.membershipId] },
    });
    expect((await boardOwner.api.get('/notifications')).body.data.map((n: any) => n.body)).toEqual([
      'for the owner',
    ]);

    // Assigned to the card, the narrowed member now reads it: a new mention reaches them.
    expect(
      (
        await t.api.put(`/boards/${boardId}/cards/${card.documentId}`, {
          data: { assignees: [ana.membershipId, narrowed.membershipId] },
        })
      ).status,
    ).toBe(200);
    await ana.api.post(commentsOf(boardId, card.documentId), {
      data: { content: 'again', mentions: [narrowed.membershipId] },
    });
    expect((await narrowed.api.get('/notifications')).body.data.map((n: any) => n.body)).toEqual(['again']);
  });

  test('mark all read touches only the caller, and another organization sees and changes nothing', async () => {
    const t = await newTenant();
    const ana = await addMember(t, 'member');
    const bia = await addMember(t, 'member');
    const { boardId } = await createPipeline(t.api, {}, { editors: [ana.membershipId, bia.membershipId] });
    const card = await createCard(t.api, boardId);
    for (const content of ['one', 'two'])
      await ana.api.post(commentsOf(boardId, card.documentId), {
        data: { content, mentions: [bia.membershipId, t.membershipId] },
      });
    const first = (await t.api.get('/notifications')).body.data[0];

    // Another organization: the same routes answer for its own (empty) notifications only.
    const other = await newTenant();
    expect((await other.api.get('/notifications')).body.meta.pagination.total).toBe(0);
    expect((await other.api.post(`/notifications/${first.documentId}/read`)).status).toBe(404);
    expect((await other.api.post('/notifications/read')).body).toEqual({ read: 0 });
    // A member reading another member's notification: 404, as if it did not exist.
    expect((await bia.api.post(`/notifications/${first.documentId}/read`)).status).toBe(404);

    const all = await bia.api.post('/notifications/read');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ read: 2 });
    expect((await bia.api.get('/notifications', { unread: 'true' })).body.meta.pagination.total).toBe(0);
    expect((await bia.api.post('/notifications/read')).body).toEqual({ read: 0 });
    // The owner's stay unread.
    expect((await t.api.get('/notifications', { unread: 'true' })).body.meta.pagination.total).toBe(2);
  });

  test('the excerpt follows the comment: rewritten by an edit, gone with the comment, its card or its board', async () => {
    const t = await newTenant();
    const ana = await addMember(t, 'member');
    const bia = await addMember(t, 'member');
    const { boardId } = await createPipeline(t.api, {}, { editors: [ana.membershipId, bia.membershipId] });
    const card = await createCard(t.api, boardId);
    const say = async (cardId: string, content: string, contentFormat = 'plain') =>
      (
        await ana.api.post(commentsOf(boardId, cardId), {
          data: { content, contentFormat, mentions: [bia.membershipId] },
        })
      ).body.documentId as string;
    const bodies = async () => (await bia.api.get('/notifications')).body.data.map((n: any) => n.body);

    const first = await say(card.documentId, 'o preço é R$ 10 mil');
    const path = `${commentsOf(boardId, card.documentId)}/${first}`;
    expect(await bodies()).toEqual(['o preço é R$ 10 mil']);
    // Edited without touching the mentions: the excerpt says the new text, and nobody is notified again.
    expect((await ana.api.put(path, { data: { content: 'o preço é R$ 12 mil' } })).status).toBe(200);
    expect(await bodies()).toEqual(['o preço é R$ 12 mil']);
    // HTML: a table's cells apart, a long text cut on whole characters.
    await say(
      card.documentId,
      `<table><tr><td>a</td><td>b</td></tr></table><p>${'😀'.repeat(400)}</p>`,
      'html',
    );
    const [long] = await bodies();
    expect(long.startsWith('a b 😀')).toBe(true);
    expect(Array.from(long)).toHaveLength(300);
    expect(long.endsWith('😀…')).toBe(true);
    // Deleted: its notification goes with it.
    expect((await ana.api.delete(path)).status).toBe(200);
    expect(await bodies()).toEqual([long]);
    // A card deleted takes its comments' notifications; so does a board.
    expect((await t.api.delete(`/boards/${boardId}/cards/${card.documentId}`)).status).toBe(200);
    expect(await bodies()).toEqual([]);
    const other = await createCard(t.api, boardId);
    await say(other.documentId, 'on another card');
    expect(await bodies()).toEqual(['on another card']);
    expect((await t.api.delete(`/boards/${boardId}`)).status).toBe(200);
    expect(await bodies()).toEqual([]);
  });
});
