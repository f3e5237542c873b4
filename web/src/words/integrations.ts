/** The names of the integration areas on the "Mais" page (web/src/areas.ts); each page has its own words. */
export const ptBR = {
  webhooks: 'Webhooks',
  webhooksText: 'Envie os eventos do CRM a um endereço seu, assinados.',
};
export const en: typeof ptBR = {
  webhooks: 'Webhooks',
  webhooksText: "Send the CRM's events to an address of yours, signed.",
};
