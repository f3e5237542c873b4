// What every lead ads route group shares: the tag and the route configs (scope, dry run).
export const tags = ['Lead ads'];
export const read = { scope: 'lead_ads:read' } as const;
export const write = { scope: 'lead_ads:write' } as const;
/** Calls the provider (OAuth, page subscriptions) or hands out a working OAuth state: no dry run (docs/dry-run.md). */
export const writeLive = { ...write, dryRun: false } as const;
