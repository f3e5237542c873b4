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
