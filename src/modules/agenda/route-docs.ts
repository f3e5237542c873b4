/** What the agenda route groups share: their OpenAPI tag, the BETA mark of every description, and the scopes. */
export const tags = ['Agenda'];
export const beta = (text: string) => `BETA: ${text}`;
export const read = { scope: 'agenda:read' } as const;
export const write = { scope: 'agenda:write' } as const;
/** Reaches the CalDAV server to answer (discovery, free/busy): no dry run (docs/dry-run.md). */
export const writeLive = { ...write, dryRun: false } as const;
