/** What the automation route groups share: their OpenAPI tag and the note every description carries. */
export const tags = ['Automations'];
export const admins = 'BETA: organization admins only (plan feature `automations`).';
