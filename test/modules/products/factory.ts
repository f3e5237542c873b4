import type { Api } from '../../helpers/app.js';

/** A one-phase board with the given settings (and people) and one card on it. */
export async function productBoard(
  api: Api,
  settings: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const board = await api.post('/boards', {
    data: {
      name: `Sales ${Math.random().toString(36).slice(2, 8)}`,
      phases: [{ name: 'Lead' }],
      boardSettings: settings,
      ...extra,
    },
  });
  if (board.status !== 201) throw new Error(JSON.stringify(board.body));
  const card = await api.post(`/boards/${board.body.documentId}/cards`, { data: { title: 'Big deal' } });
  if (card.status !== 201) throw new Error(JSON.stringify(card.body));
  return { boardId: board.body.documentId as string, cardId: card.body.documentId as string };
}
