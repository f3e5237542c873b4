/** The OpenAPI tag of every organization route (routes.ts and its route groups). */
export const tags = ['Organizations'];
