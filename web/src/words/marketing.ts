/**
 * The marketing areas as the "Mais" page lists them (web/src/areas.ts): only their names and lines, so the first
 * download does not carry the pages' own catalogues (words/campaigns, templates, channels, pixels), which load
 * with their pages.
 */
export const ptBR = {
  campaigns: 'Campanhas',
  campaignsText: 'Envie um modelo a um segmento por WhatsApp, e-mail ou SMS e acompanhe o engajamento.',
  templates: 'Modelos de mensagem',
  templatesText: 'Modelos do WhatsApp sincronizados com o provedor e modelos de e-mail com prévia.',
  channels: 'Canais',
  channelsText: 'Conecte WhatsApp, e-mail e SMS para campanhas e conversas.',
  pixels: 'Pixels de conversão',
  pixelsText: 'Envie os negócios ganhos ou uma fase do quadro à API de Conversões.',
};
export const en: typeof ptBR = {
  campaigns: 'Campaigns',
  campaignsText: 'Send a template to a segment by WhatsApp, e-mail or SMS and follow the engagement.',
  templates: 'Message templates',
  templatesText: 'WhatsApp templates synced with the provider and e-mail templates with a preview.',
  channels: 'Channels',
  channelsText: 'Connect WhatsApp, e-mail and SMS for campaigns and conversations.',
  pixels: 'Conversion pixels',
  pixelsText: "Send won deals or a board's phase to the Conversions API.",
};
