/** The OpenAPI tag of every task route (routes.ts and its route groups). */
export const tags = ['Tasks'];
