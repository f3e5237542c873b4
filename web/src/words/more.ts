/** The "More" page (areas.ts). */
export const ptBR = {
  title: 'Mais',
  intro: 'Marketing, automação, integrações e vendas.',
  none: 'Nenhuma outra área disponível.',
};
export const en: typeof ptBR = {
  title: 'More',
  intro: 'Marketing, automation, integrations and sales.',
  none: 'No other area available.',
};
