/** The OpenAPI tag of every PDF template route (routes.ts and its route groups). */
export const tags = ['PDF templates'];
