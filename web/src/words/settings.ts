/** Settings (pages/settings). */
export const ptBR = {
  copied: 'Token copiado para a área de transferência.',
  invitationRevoked: 'Convite revogado.',
  memberRemoved: 'Membro removido.',
};
export const en: typeof ptBR = {
  copied: 'Token copied to the clipboard.',
  invitationRevoked: 'Invitation revoked.',
  memberRemoved: 'Member removed.',
};
