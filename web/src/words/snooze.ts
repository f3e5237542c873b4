/** Snoozing a conversation until a date (components/inbox/Snooze.tsx). */
export const ptBR = {
  snooze: 'Adiar',
  snoozeTitle: 'Adiar conversa',
  snoozeHint:
    'Até a data, a conversa fica como adiada; na data, ela volta para as abertas. Se o contato escrever antes, ela reabre na hora.',
  inOneHour: 'Em 1 hora',
  tomorrow9: 'Amanhã às 9h',
  nextMonday9: 'Próxima segunda às 9h',
  otherDate: 'Outra data',
  snoozeUntilThis: 'Adiar até esta data',
  mustBeFuture: 'deve ser no futuro',
  snoozedUntil: 'Adiada até {date}',
  snoozePassed: 'reabre em instantes',
  reopen: 'Reabrir',
};
export const en: typeof ptBR = {
  snooze: 'Snooze',
  snoozeTitle: 'Snooze conversation',
  snoozeHint:
    'Until the date the conversation stays snoozed; on the date it is back among the open ones. If the contact writes earlier, it reopens at once.',
  inOneHour: 'In 1 hour',
  tomorrow9: 'Tomorrow at 9 AM',
  nextMonday9: 'Next Monday at 9 AM',
  otherDate: 'Another date',
  snoozeUntilThis: 'Snooze until this date',
  mustBeFuture: 'must be in the future',
  snoozedUntil: 'Snoozed until {date}',
  snoozePassed: 'reopening shortly',
  reopen: 'Reopen',
};
