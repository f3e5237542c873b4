/**
 * The areas reached from the "More" page (/app/more): each area's page registers itself here with its own words
 * (web/src/words/<area>.ts), beside its route in App.tsx. The main navigation keeps the daily pages; these are the
 * rest (campaigns, templates, channels, automations, webhooks, lead ads, distribution, pixels, products, quotes…).
 */
export interface Area {
  path: string;
  label: () => string;
  description: () => string;
  /** The API marks the area BETA (the page shows the mark). */
  beta?: boolean;
}

export const areas: Area[] = [];

import { wordsOf } from './lib/area-words';
// Marketing (issue 31 item 1): campaigns (a stable area), and the BETA areas the API marks so (channels and their
// templates, e-mail marketing, conversions). Their names only: the pages and their words load when opened.
import * as marketingWords from './words/marketing';

const mkw = wordsOf(marketingWords);
areas.push(
  { path: '/campaigns', label: () => mkw('campaigns'), description: () => mkw('campaignsText') },
  { path: '/templates', label: () => mkw('templates'), description: () => mkw('templatesText'), beta: true },
  { path: '/channels', label: () => mkw('channels'), description: () => mkw('channelsText'), beta: true },
  {
    path: '/conversion-pixels',
    label: () => mkw('pixels'),
    description: () => mkw('pixelsText'),
    beta: true,
  },
);

// Integrations (issue 31 item 1): webhooks (BETA in the API). Only the names here; the page loads when opened.
import * as integrationWords from './words/integrations';

const iw = wordsOf(integrationWords);
areas.push({
  path: '/webhooks',
  label: () => iw('webhooks'),
  description: () => iw('webhooksText'),
  beta: true,
});
// Automations and lead ads (issue 31 item 1), both BETA in the API.
areas.push(
  {
    path: '/automations',
    label: () => iw('automations'),
    description: () => iw('automationsText'),
    beta: true,
  },
  { path: '/lead-ads', label: () => iw('leadAds'), description: () => iw('leadAdsText'), beta: true },
);

// Sales (products, quotes) and distribution queues (BETA in the API), issue 31 item 1. Only the names here.
import * as salesAreaWords from './words/sales-areas';

const saw = wordsOf(salesAreaWords);
areas.push(
  { path: '/products', label: () => saw('products'), description: () => saw('productsText') },
  { path: '/quotes', label: () => saw('quotes'), description: () => saw('quotesText') },
  { path: '/pdf-templates', label: () => saw('pdfTemplates'), description: () => saw('pdfTemplatesText') },
  {
    path: '/distribution',
    label: () => saw('distribution'),
    description: () => saw('distributionText'),
    beta: true,
  },
);
