/** The OpenAPI tag of every segment route (routes.ts and its route groups). */
export const tags = ['Segments'];
