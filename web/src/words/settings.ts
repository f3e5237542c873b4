/** Settings (pages/settings). */
export const ptBR = {
  copied: 'Token copiado para a área de transferência.',
  invitationRevoked: 'Convite revogado.',
  memberRemoved: 'Membro removido.',
  organization: 'Organização',
  orgName: 'Nome da organização',
  timeZone: 'Fuso horário',
  timeZoneHint:
    'As tarefas recorrentes mantêm a hora local neste fuso; a agenda conta nele as horas de trabalho.',
  timeZoneSearch: 'Buscar fuso horário',
  timeZoneNow: 'Agora neste fuso: {time}',
  orgSaved: 'Organização salva.',
  orgReadOnly: 'Só proprietários e administradores mudam o nome e o fuso horário.',
};
export const en: typeof ptBR = {
  copied: 'Token copied to the clipboard.',
  invitationRevoked: 'Invitation revoked.',
  memberRemoved: 'Member removed.',
  organization: 'Organization',
  orgName: 'Organization name',
  timeZone: 'Time zone',
  timeZoneHint: 'Recurring tasks keep their local time in this zone; the agenda counts working hours in it.',
  timeZoneSearch: 'Search time zones',
  timeZoneNow: 'Now in this zone: {time}',
  orgSaved: 'Organization saved.',
  orgReadOnly: 'Only owners and admins change the name and the time zone.',
};
