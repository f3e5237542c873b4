/** What the webhook route groups share: their OpenAPI tag and the note every description carries. */
export const tags = ['Webhooks'];
export const admins = 'BETA: organization admins only.';
