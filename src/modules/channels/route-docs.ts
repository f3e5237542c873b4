/** The OpenAPI tag of every chat channel route (routes.ts and its route groups). */
export const tags = ['Channels'];
