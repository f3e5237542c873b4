/** The OpenAPI tag of every invitation route (routes.ts and its route groups). */
export const tags = ['Organizations'];
