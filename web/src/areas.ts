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

// Marketing (issue 31 item 1): campaigns (a stable area), and the BETA areas the API marks so (channels and their
// templates, e-mail marketing, conversions).
import { wordsOf } from './lib/area-words';
import * as campaignWords from './words/campaigns';
import * as channelWords from './words/channels';
import * as pixelWords from './words/pixels';
import * as templateWords from './words/templates';

const cw = wordsOf(campaignWords);
const chw = wordsOf(channelWords);
const tw = wordsOf(templateWords);
const pw = wordsOf(pixelWords);
areas.push(
  { path: '/campaigns', label: () => cw('title'), description: () => cw('description') },
  { path: '/templates', label: () => tw('title'), description: () => tw('description'), beta: true },
  { path: '/channels', label: () => chw('title'), description: () => chw('description'), beta: true },
  { path: '/conversion-pixels', label: () => pw('title'), description: () => pw('description'), beta: true },
);
