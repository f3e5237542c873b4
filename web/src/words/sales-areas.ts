/** The names of the sales areas on the "Mais" page (web/src/areas.ts); each page has its own words. */
export const ptBR = {
  products: 'Produtos',
  productsText: 'O catálogo de produtos, com preços, preço mínimo e categorias.',
  quotes: 'Propostas',
  quotesText: 'Propostas com itens do catálogo, descontos e totais, em PDF.',
  pdfTemplates: 'Modelos de PDF',
  pdfTemplatesText: 'O layout do PDF das propostas e o modelo padrão.',
  distribution: 'Filas de distribuição',
  distributionText: 'Quem recebe os cards novos de um quadro ou as conversas novas de uma caixa de entrada.',
};
export const en: typeof ptBR = {
  products: 'Products',
  productsText: 'The product catalogue, with prices, minimum prices and categories.',
  quotes: 'Quotes',
  quotesText: 'Quotes with catalogue items, discounts and totals, as a PDF.',
  pdfTemplates: 'PDF templates',
  pdfTemplatesText: "The layout of quotes' PDFs and the default template.",
  distribution: 'Distribution queues',
  distributionText: "Who gets a board's new cards or an inbox's new conversations.",
};
