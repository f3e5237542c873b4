/** Mentioning members in a card's comments (components/MentionBox.tsx). */
export const ptBR = {
  mentionHint: 'Escreva @ e o começo de um nome para mencionar um membro.',
  membersToMention: 'Membros para mencionar',
  suggestions: '{count} membros encontrados: setas para escolher, Enter para mencionar, Esc para fechar.',
  oneSuggestion: '1 membro encontrado: Enter para mencionar, Esc para fechar.',
  mentionAdded: 'Menção a {name} adicionada.',
  mentionedAlso: 'Mencionados: {names}',
};
export const en: typeof ptBR = {
  mentionHint: 'Type @ and the start of a name to mention a member.',
  membersToMention: 'Members to mention',
  suggestions: '{count} members found: arrows to choose, Enter to mention, Esc to close.',
  oneSuggestion: '1 member found: Enter to mention, Esc to close.',
  mentionAdded: 'Mention of {name} added.',
  mentionedAlso: 'Mentioned: {names}',
};
