/** The OpenAPI tag of every quote route (routes.ts and its route groups). */
export const tags = ['Quotes'];
