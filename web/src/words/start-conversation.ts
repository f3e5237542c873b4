/** Starting a WhatsApp conversation (components/inbox/StartConversation.tsx): from the inbox or a contact. */
export const ptBR = {
  newConversation: 'Nova conversa',
  sendWhatsapp: 'Enviar WhatsApp',
  titleTo: 'WhatsApp para {name}',
  intro:
    'Quem ainda não escreveu (ou escreveu há mais de 24 horas) só recebe um modelo aprovado do WhatsApp.',
  inbox: 'Caixa de entrada',
  noInboxes: 'Nenhuma caixa de entrada do WhatsApp. Conecte um canal em Canais.',
  contact: 'Contato',
  searchContact: 'Buscar por nome ou telefone',
  searchHint: 'Digite ao menos 3 letras ou números.',
  results: 'Contatos encontrados',
  noResults: 'Nenhum contato encontrado.',
  noPhone: 'sem telefone',
  change: 'Trocar contato',
  send: 'Enviar',
  started: 'Conversa iniciada com {name}',
  errNoPhone: 'O contato não tem telefone: cadastre um para falar com ele pelo WhatsApp.',
  errUndeliverable:
    'O WhatsApp não entregou a mensagem: o número não é válido ou não usa o WhatsApp ({code}). Nada foi enviado.',
  errProvider: 'O WhatsApp recusou a mensagem (código {code}).',
  errTemplate: 'O modelo {name} está {status}: só modelos aprovados podem ser enviados.',
};

export const en: typeof ptBR = {
  newConversation: 'New conversation',
  sendWhatsapp: 'Send WhatsApp',
  titleTo: 'WhatsApp to {name}',
  intro:
    'Someone who has not written yet (or wrote more than 24 hours ago) can only receive an approved WhatsApp template.',
  inbox: 'Inbox',
  noInboxes: 'No WhatsApp inbox. Connect a channel in Channels.',
  contact: 'Contact',
  searchContact: 'Search by name or phone',
  searchHint: 'Type at least 3 letters or digits.',
  results: 'Contacts found',
  noResults: 'No contact found.',
  noPhone: 'no phone',
  change: 'Change contact',
  send: 'Send',
  started: 'Conversation started with {name}',
  errNoPhone: 'The contact has no phone number: add one to reach them on WhatsApp.',
  errUndeliverable:
    'WhatsApp did not deliver the message: the number is not valid or does not use WhatsApp ({code}). Nothing was sent.',
  errProvider: 'WhatsApp refused the message (code {code}): {message}',
  errTemplate: 'The template {name} is {status}: only approved templates can be sent.',
};
