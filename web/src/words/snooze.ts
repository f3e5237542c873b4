/** Snoozing a conversation until a date (components/inbox/Snooze.tsx). */
export const ptBR = {
  snooze: 'Adiar',
  snoozeTitle: 'Adiar conversa',
  snoozeHint:
    'Até a data, a conversa fica como adiada. Se o contato escrever, ela reabre na hora; passada a data, ela continua adiada até alguém reabrir.',
  inOneHour: 'Em 1 hora',
  tomorrow9: 'Amanhã às 9h',
  nextMonday9: 'Próxima segunda às 9h',
  otherDate: 'Outra data',
  snoozeUntilThis: 'Adiar até esta data',
  mustBeFuture: 'deve ser no futuro',
  snoozedUntil: 'Adiada até {date}',
  snoozePassed: 'a data já passou',
  reopen: 'Reabrir',
};
export const en: typeof ptBR = {
  snooze: 'Snooze',
  snoozeTitle: 'Snooze conversation',
  snoozeHint:
    'Until the date the conversation stays snoozed. If the contact writes, it reopens at once; once the date has passed it stays snoozed until someone reopens it.',
  inOneHour: 'In 1 hour',
  tomorrow9: 'Tomorrow at 9 AM',
  nextMonday9: 'Next Monday at 9 AM',
  otherDate: 'Another date',
  snoozeUntilThis: 'Snooze until this date',
  mustBeFuture: 'must be in the future',
  snoozedUntil: 'Snoozed until {date}',
  snoozePassed: 'the date has passed',
  reopen: 'Reopen',
};
