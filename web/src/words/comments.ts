/** A card's own comments changed in the drawer: edited by their author, deleted by it or an admin (components/CardComments.tsx). */
export const ptBR = {
  edit: 'Editar',
  editOf: 'Editar o comentário de {name} ({when})',
  delete: 'Excluir',
  deleteOf: 'Excluir o comentário de {name} ({when})',
  editLabel: 'Editar comentário',
  deleteTitle: 'Excluir este comentário?',
  saved: 'Comentário salvo.',
  deleted: 'Comentário excluído.',
  editedAt: 'editado às {time}',
  editedOn: 'editado em {when}',
  contentRefused: 'Escreva o comentário (até 20.000 caracteres).',
  htmlEditHint:
    'Este comentário veio com formatação; se você mudar o texto, ele será salvo como texto simples.',
};
export const en: typeof ptBR = {
  edit: 'Edit',
  editOf: 'Edit the comment by {name} ({when})',
  delete: 'Delete',
  deleteOf: 'Delete the comment by {name} ({when})',
  editLabel: 'Edit comment',
  deleteTitle: 'Delete this comment?',
  saved: 'Comment saved.',
  deleted: 'Comment deleted.',
  editedAt: 'edited at {time}',
  editedOn: 'edited on {when}',
  contentRefused: 'Write the comment (up to 20,000 characters).',
  htmlEditHint: 'This comment came formatted; if you change its text, it is saved as plain text.',
};
