/** The OpenAPI tag of every card route (routes.ts and its route groups). */
export const tags = ['Cards'];
