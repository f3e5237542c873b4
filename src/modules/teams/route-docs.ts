/** The OpenAPI tag of every team route (routes.ts and its route groups). */
export const tags = ['Teams'];
