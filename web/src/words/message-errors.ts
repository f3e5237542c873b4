/** Why a message was not delivered, as the thread says it (lib/message-errors.ts). */
export const ptBR = {
  interrupted: 'envio interrompido: não se sabe se chegou, e não foi reenviado',
  windowClosed: 'fora da janela de 24 horas: envie um modelo aprovado',
  refusedCode: 'recusada pelo WhatsApp (código {code})',
  refused: 'recusada pelo provedor',
};
export const en: typeof ptBR = {
  interrupted: 'sending was interrupted: it may or may not have arrived, and was not sent again',
  windowClosed: 'outside the 24-hour window: send an approved template',
  refusedCode: 'refused by WhatsApp (code {code})',
  refused: 'refused by the provider',
};
