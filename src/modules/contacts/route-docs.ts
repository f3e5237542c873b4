/** The OpenAPI tag of every contact route (routes.ts and its route groups). */
export const tags = ['Contacts'];
