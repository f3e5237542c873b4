/** The names of the integration areas on the "Mais" page (web/src/areas.ts); each page has its own words. */
export const ptBR = {
  webhooks: 'Webhooks',
  webhooksText: 'Envie os eventos do CRM a um endereço seu, assinados.',
  automations: 'Automações',
  automationsText:
    'Quando algo acontece num card ou contato, mova, atribua, crie tarefas ou envie mensagens sozinho.',
  leadAds: 'Lead ads',
  leadAdsText:
    'Leads dos formulários dos seus anúncios viram cards; rotas por formulário e leads que falharam.',
};
export const en: typeof ptBR = {
  webhooks: 'Webhooks',
  webhooksText: "Send the CRM's events to an address of yours, signed.",
  automations: 'Automations',
  automationsText:
    'When something happens to a card or contact, move, assign, create tasks or send messages on its own.',
  leadAds: 'Lead ads',
  leadAdsText: "Leads from your ads' forms become cards; routes per form and the leads that failed.",
};
