/** Agenda (pages/Agenda.tsx, components/MeetingForm.tsx): editing a meeting and its free slots. */
export const ptBR = {
  edit: 'Editar',
  editMeeting: 'Editar reunião',
  editMeetingOf: 'Editar reunião: {title}',
  saveMeeting: 'Salvar alterações',
  meetingSaved: 'Reunião alterada; os participantes recebem o convite atualizado.',
  attendees: 'E-mails dos participantes',
  attendeesHint: 'Separados por vírgula; cada um recebe o convite por e-mail.',
  location: 'Local ou link',
  endAfterStart: 'deve ser depois do início',
  atMost14Days: 'no máximo 14 dias depois do início',
  onlyOrganizer: 'Só quem agendou a reunião pode alterá-la: ela está no calendário dessa pessoa.',
  meetingCancelled: 'Esta reunião foi cancelada: agende uma nova.',
  meetingChanged: 'A reunião mudou enquanto você editava: feche e abra de novo para ver a versão atual.',
  freeSlots: 'Horários livres',
  findSlots: 'Ver horários livres do dia',
  freeSlotsHint:
    'No seu calendário, no horário de trabalho (9h–18h, segunda a sexta) no fuso da organização.',
  noFreeSlots: 'Nenhum horário livre neste dia.',
  useSlot: 'Marcar às {time}',
};
export const en: typeof ptBR = {
  edit: 'Edit',
  editMeeting: 'Edit meeting',
  editMeetingOf: 'Edit meeting: {title}',
  saveMeeting: 'Save changes',
  meetingSaved: 'Meeting changed; the attendees get the updated invitation.',
  attendees: "Attendees' e-mails",
  attendeesHint: 'Comma-separated; each gets the invitation by e-mail.',
  location: 'Place or link',
  endAfterStart: 'must be after the start',
  atMost14Days: 'at most 14 days after the start',
  onlyOrganizer: 'Only the person who scheduled the meeting can change it: it lives in their calendar.',
  meetingCancelled: 'This meeting was cancelled: schedule a new one.',
  meetingChanged:
    'The meeting changed while you were editing: close and open it again to see the current one.',
  freeSlots: 'Free slots',
  findSlots: "Show the day's free slots",
  freeSlotsHint:
    'In your calendar, within working hours (9 AM–6 PM, Monday to Friday) in the organization’s time zone.',
  noFreeSlots: 'No free slot on this day.',
  useSlot: 'Schedule at {time}',
};
